//! The site names a title loses when they end it after a separator
//! (`Rust - Wikipedia`, `延迟退休_百度知道`).
//!
//! The names are data, not code: `sites.txt` beside this file, one name per
//! line in normalized (folded) form, sorted; blank lines and lines starting
//! with `#` are skipped. The list is read once, on first use, into an
//! open-addressed hash table, so a lookup is one hash and (almost always)
//! one comparison, whatever the number of names.

use std::sync::LazyLock;

/// The known names and their lookup table.
struct KnownSites {
    /// As listed: normalized and sorted.
    names: Vec<&'static str>,
    /// The [`Words`] of each name, in the order of `names`: a lookup
    /// compares these, not the bytes, for names of up to 16 bytes.
    words: Vec<Words>,
    /// Open-addressed hash table of `names` (index + 1; 0 is empty): one
    /// hash and one comparison per segment instead of a binary search's
    /// eight comparisons.
    table: [u8; SLOTS],
    /// Longest name, in bytes.
    max_bytes: usize,
}

/// Slots of [`KnownSites::table`]: a power of two, about four per name, so a
/// lookup almost always probes one slot.
const SLOTS: usize = 512;

static SITES: LazyLock<KnownSites> = LazyLock::new(|| KnownSites::parse(include_str!("sites.txt")));

impl KnownSites {
    fn parse(text: &'static str) -> KnownSites {
        let names: Vec<&'static str> = text
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        assert!(
            names.len() < 255 && names.len() * 2 < SLOTS,
            "title/sites.txt: {} names do not fit the table",
            names.len()
        );
        let words: Vec<Words> = names.iter().map(|n| Words::of(n.as_bytes())).collect();
        let mut table = [0u8; SLOTS];
        for (k, w) in words.iter().enumerate() {
            let mut s = w.hash() & (SLOTS - 1);
            while table[s] != 0 {
                s = (s + 1) & (SLOTS - 1);
            }
            table[s] = (k + 1) as u8;
        }
        let max_bytes = names.iter().map(|n| n.len()).max().unwrap_or(0);
        KnownSites {
            names,
            words,
            table,
            max_bytes,
        }
    }

    #[inline]
    fn contains(&self, segment: &str) -> bool {
        if segment.len() > self.max_bytes {
            return false;
        }
        let w = Words::of(segment.as_bytes());
        let mut s = w.hash() & (SLOTS - 1);
        loop {
            match self.table[s] {
                0 => return false,
                k => {
                    let k = usize::from(k) - 1;
                    // Equal words are equal names up to 16 bytes; longer
                    // ones are compared whole.
                    if self.words.get(k) == Some(&w)
                        && (w.len <= 16 || self.names.get(k) == Some(&segment))
                    {
                        return true;
                    }
                }
            }
            s = (s + 1) & (SLOTS - 1);
        }
    }
}

/// A name's length and its first and last eight bytes (all of it up to
/// sixteen, zero-padded below eight), read as two words: equal for two
/// names of up to 16 bytes exactly when the names are.
#[derive(Clone, Copy, PartialEq)]
struct Words {
    len: usize,
    head: u64,
    tail: u64,
}

impl Words {
    fn of(b: &[u8]) -> Words {
        let (head, tail) = match (b.first_chunk::<8>(), b.last_chunk::<8>()) {
            (Some(h), Some(t)) => (u64::from_le_bytes(*h), u64::from_le_bytes(*t)),
            _ => {
                let mut w = [0u8; 8];
                w[..b.len()].copy_from_slice(b);
                (u64::from_le_bytes(w), 0)
            }
        };
        Words {
            len: b.len(),
            head,
            tail,
        }
    }

    /// A hash of the words: constant time, a few instructions, and it tells
    /// the known names apart well enough (a collision costs one more probe,
    /// never a wrong answer).
    fn hash(self) -> usize {
        let h = (self.head ^ self.tail.rotate_left(29) ^ self.len as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 32) as usize
    }
}

/// Whether `segment` is one of the known site names.
#[inline]
pub(super) fn is_known_site(segment: &str) -> bool {
    SITES.contains(segment)
}

/// The longest known site name, in bytes.
pub(super) fn max_known_bytes() -> usize {
    SITES.max_bytes
}

/// The known site names, normalized and sorted.
#[cfg(test)]
pub(super) fn known_sites() -> &'static [&'static str] {
    &SITES.names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::title::fold;

    #[test]
    fn known_sites_are_sorted_and_normalized() {
        let names = known_sites();
        assert!(names.len() > 100, "{} names", names.len());
        assert!(
            names.windows(2).all(|w| w[0] < w[1]),
            "title/sites.txt must be sorted, without repeats"
        );
        assert_eq!(
            max_known_bytes(),
            names.iter().map(|n| n.len()).max().unwrap_or(0)
        );
        for s in names {
            assert_eq!(s.trim(), *s, "{s:?}: no spaces around a name");
            let mut o = String::new();
            fold(s.chars(), &mut o);
            assert_eq!(&o, s, "title/sites.txt entries must be in folded form");
        }
    }

    #[test]
    fn known_table_finds_exactly_the_known_sites() {
        for s in known_sites() {
            assert!(is_known_site(s), "{s}");
            let cut = s.char_indices().last().map_or(0, |(i, _)| i);
            // Same length, ends and words but the middle byte (names of
            // more than 16 bytes are compared whole).
            let mut middle = s.to_string();
            if s.is_ascii() {
                let m = s.len() / 2;
                let x = if s.as_bytes()[m] == b'x' { "y" } else { "x" };
                middle.replace_range(m..=m, x);
            }
            for other in [
                format!("{s}x"),
                s[..cut].to_string(),
                s.to_uppercase(),
                middle,
            ] {
                assert_eq!(
                    is_known_site(&other),
                    known_sites().binary_search(&other.as_str()).is_ok(),
                    "{other}"
                );
            }
        }
        assert!(!is_known_site(""));
    }
}
