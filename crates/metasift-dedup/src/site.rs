//! Site descriptions: a snippet one engine gives to several of its links.
//!
//! Engines often show a site's or an author's description instead of a
//! page's own text: on `javascript tutorial` Bing lists W3Schools'
//! "JavaScript Introduction", "JavaScript Syntax" and "JavaScript Classes",
//! all three with "W3Schools offers free online tutorials…"; on a search for
//! an author, a magazine's articles all carry the author's bio. The snippet
//! stage would fold them at similarity 1.00. Two rules keep them apart:
//!
//! - **One source, two links, two pages.** A record that comes from the same
//!   source (engine) as a member of a group, under another URL key and
//!   another title, is not attached to that group at the snippet stage: an
//!   engine lists one page once, so two of its links are two pages unless
//!   more than the snippet says otherwise. Equal titles (the title stage) and
//!   equal URL keys still fold: the same page under `/Js/` and `/js/`, or a
//!   syndicated story under its own headline.
//! - **Site codes.** The codes such a record shares with the group's kept
//!   record, when that kept record is from the same source, are what the
//!   engine gave to two of its links: the site's description. They become
//!   *site codes* of the query scope and are no evidence at the snippet stage
//!   from then on, for any source — neither in `K` nor in `M` nor in
//!   `min_codes` — so a third engine's record carrying the same description
//!   does not fold with either page either. The title stage still counts
//!   them (an equal title and the site's description: the same page).
//!
//! Records of unknown source (empty `source`) are judged by their snippets
//! alone, as before. Only what was pushed *before* a record can flag it:
//! a third engine's record met before the engine's second link is judged
//! without knowing the description is the site's (a known miss).
//!
//! Sources are told apart by a 64-bit hash and kept per group as bits of a
//! 64-bit mask: past 64 sources in one query, two sources may share a bit,
//! which can only keep records apart, never merge them.

use crate::hash::{mix, xxh3};

/// The hash of a source name; `0` for an unknown (empty) one.
#[inline]
pub(crate) fn source_hash(source: &str) -> u64 {
    if source.is_empty() {
        0
    } else {
        xxh3(source.as_bytes()) | 1
    }
}

/// The sources met in one query scope, each given a bit of a 64-bit mask.
#[derive(Debug, Default)]
pub(crate) struct Sources {
    ids: Vec<u64>,
}

impl Sources {
    /// The mask bit of the source with hash `h` (`0` for an unknown source).
    pub(crate) fn bit(&mut self, h: u64) -> u64 {
        if h == 0 {
            return 0;
        }
        let i = match self.ids.iter().position(|&x| x == h) {
            Some(i) => i,
            None if self.ids.len() < 64 => {
                self.ids.push(h);
                self.ids.len() - 1
            }
            // Past 64 sources a bit is shared (see the module docs).
            None => (mix(h) % 64) as usize,
        };
        1u64 << i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_get_their_own_bits_then_share() {
        let mut s = Sources::default();
        assert_eq!(s.bit(0), 0);
        let a = s.bit(source_hash("bing"));
        let b = s.bit(source_hash("brave"));
        assert_ne!(a, b);
        assert_eq!(a, s.bit(source_hash("bing")));
        for i in 0..100 {
            assert_eq!(s.bit(source_hash(&format!("e{i}"))).count_ones(), 1);
        }
        assert_eq!(s.ids.len(), 64);
    }
}
