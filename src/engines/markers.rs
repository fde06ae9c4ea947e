//! Case-insensitive search for page markers ("One last step", "No results
//! found for", `antispider`, …) without a lower-cased copy of the page.
//!
//! A results page is 0.1–0.5 MB, and every parse looks for its engine's
//! markers in all of it. Copying the whole page lower-cased costs an
//! allocation of its size per parse; an Aho-Corasick automaton with ASCII
//! case folding avoids the copy but measured 10–20× slower than SIMD
//! substring search on these pages (its prefilters find few rare bytes in
//! lower-case English). So the page is folded 16 KiB at a time into one
//! small buffer, each chunk overlapping the last by a marker's length, and
//! `memchr::memmem` finders (built once per engine) search the chunk.
//!
//! Markers are lower-cased fully when read and the page is ASCII-folded, so
//! CJK markers match as written and `İ`/`K` in a page never turn into ASCII.

use memchr::memmem::Finder;

/// Bytes folded per step.
const CHUNK: usize = 16 * 1024;

/// A list of markers, searched case-insensitively.
#[derive(Debug, Clone)]
pub(crate) struct Markers {
    finders: Vec<Finder<'static>>,
    longest: usize,
}

impl Markers {
    /// The markers in `list` (empty ones never match).
    pub(crate) fn new<S: AsRef<str>>(list: impl IntoIterator<Item = S>) -> Markers {
        let finders: Vec<Finder<'static>> = list
            .into_iter()
            .map(|m| Finder::new(m.as_ref().to_lowercase().as_bytes()).into_owned())
            .collect();
        let longest = finders.iter().map(|f| f.needle().len()).max().unwrap_or(0);
        Markers { finders, longest }
    }

    /// Whether there are no markers at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.finders.iter().all(|f| f.needle().is_empty())
    }

    /// The index of the first marker (in list order) that occurs in `text`.
    pub(crate) fn first_in(&self, text: &str) -> Option<usize> {
        self.found_in(text).iter().position(|&f| f)
    }

    /// Per marker, whether it occurs in `text`; once marker 0 is found the
    /// rest are not looked for (nothing can come before it), so one search
    /// serves two lists put one after the other when only the first list's
    /// first match and whether the second has any are asked.
    pub(crate) fn found_in(&self, text: &str) -> Vec<bool> {
        let mut found = vec![false; self.finders.len()];
        self.scan(text, &mut found, true);
        found
    }

    /// Marks `found[i]` for every marker `i` in `text`; with `stop_at_first`
    /// the scan ends once marker 0 is seen (nothing can come before it).
    fn scan(&self, text: &str, found: &mut [bool], stop_at_first: bool) {
        if self.is_empty() {
            return;
        }
        let bytes = text.as_bytes();
        let overlap = self.longest.saturating_sub(1);
        let mut buf = vec![0u8; CHUNK + overlap];
        let mut start = 0;
        loop {
            let end = (start + CHUNK + overlap).min(bytes.len());
            let buf = &mut buf[..end - start];
            // A plain loop over two slices (the compiler vectorizes part of
            // it; measured: fewer instructions than `extend` with a map, or
            // a copy folded in place).
            for (d, s) in buf.iter_mut().zip(&bytes[start..end]) {
                *d = s.to_ascii_lowercase();
            }
            let buf = &*buf;
            for (i, f) in self.finders.iter().enumerate() {
                if !found[i] && !f.needle().is_empty() && f.find(buf).is_some() {
                    found[i] = true;
                }
            }
            if (stop_at_first && found.first() == Some(&true))
                || found.iter().all(|&f| f)
                || end == bytes.len()
            {
                return;
            }
            start += CHUNK;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_markers_in_any_ascii_case_and_in_list_order() {
        let m = Markers::new(["One last step", "captcha", "访问过于频繁"]);
        assert_eq!(m.first_in("x CAPTCHA y one LAST step"), Some(0));
        assert_eq!(m.first_in("please solve the CaPtChA"), Some(1));
        assert_eq!(m.first_in("您访问过于频繁了"), Some(2));
        assert_eq!(m.first_in("nothing here"), None);
        assert_eq!(m.first_in(""), None);
        // Only ASCII folds: the Kelvin sign is not a `k`.
        assert_eq!(Markers::new(["k"]).first_in("\u{212a}"), None);
        assert!(Markers::new([""]).is_empty());
        assert_eq!(Markers::new([""]).first_in("abc"), None);
    }

    #[test]
    fn one_search_serves_two_lists() {
        // `blocked` markers then `no_results` ones: the search stops at
        // marker 0, and otherwise says which of the others are there.
        let m = Markers::new(["one last step", "verify", "no results for"]);
        assert_eq!(m.found_in("No Results For x; verify"), [false, true, true]);
        assert_eq!(m.found_in("One Last Step"), [true, false, false]);
        assert_eq!(m.found_in("nothing"), [false, false, false]);
    }

    #[test]
    fn finds_markers_across_chunk_boundaries() {
        for at in [0, CHUNK - 7, CHUNK - 1, CHUNK, 3 * CHUNK - 3, 3 * CHUNK + 5] {
            let mut page = "é".repeat(at / 2) + &"x".repeat(at % 2);
            page.push_str("Unusual Traffic");
            page.push_str(&"y".repeat(CHUNK));
            let m = Markers::new(["zzz", "unusual traffic"]);
            assert_eq!(m.first_in(&page), Some(1), "marker at {at}");
        }
    }
}
