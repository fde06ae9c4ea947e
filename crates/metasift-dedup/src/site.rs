//! Site descriptions: a snippet one engine gives to several of its links.
//!
//! Engines often show a site's or an author's description instead of a
//! page's own text: on `javascript tutorial` Bing lists W3Schools'
//! "JavaScript Introduction", "JavaScript Syntax" and "JavaScript Classes",
//! all three with "W3Schools offers free online tutorials…"; on a search for
//! an author, a magazine's articles all carry the author's bio. The snippet
//! stage would fold them at similarity 1.00. Two rules keep them apart:
//!
//! - **One engine, two links of one site, two pages.** A record is not
//!   attached at the snippet stage to a group that already holds a record of
//!   the same *source key* — the same source (engine) and the same host —
//!   under another URL key, unless their titles are equal: an engine lists a
//!   page once, so two of its links on one site are two pages unless more
//!   than the snippet says otherwise. Equal titles (the title stage) and
//!   equal URL keys still fold (the same page under `/Js/` and `/js/`); so
//!   does one engine's story and its syndicated copy or mirror on another
//!   host, whose shared text is the story's, not a site's.
//! - **Site codes.** The codes such a record shares with the group's kept
//!   record, when that kept record has the same source key, are what the
//!   engine gave to two links of one site: the site's description. They
//!   become *site codes* of the query scope and are no evidence at the
//!   snippet stage from then on, for any source — neither in `K` nor in `M`
//!   nor in `min_codes` — so a third engine's record carrying the same
//!   description folds with neither page. The title stage still counts them
//!   (an equal title and the site's description: the same page).
//!
//! Records of unknown source (empty `source`) are judged by their snippets
//! alone, as before. Only what was pushed *before* a record can flag it:
//! a third engine's record met before the engine's second link is judged
//! without knowing the description is the site's (a known miss).
//!
//! Which groups hold which source keys is one hash set per query scope of
//! [`member_key`]s (64-bit hashes of the key and the group).

use crate::hash::{mix, xxh3};

/// The source key of a record: its source (engine) and the hash of its
/// link's host; `0` for an unknown (empty) source.
#[inline]
pub(crate) fn source_key(source: &str, host: u64) -> u64 {
    if source.is_empty() {
        0
    } else {
        mix(xxh3(source.as_bytes()) ^ host.rotate_left(17)) | 1
    }
}

/// The key under which a scope remembers that the group of kept record
/// `local` holds a record of source key `src`.
#[inline]
pub(crate) fn member_key(src: u64, local: u32) -> u64 {
    mix(src ^ u64::from(local).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_tell_engines_hosts_and_groups_apart() {
        assert_eq!(source_key("", 7), 0);
        let a = source_key("bing", 7);
        assert_ne!(a, 0);
        assert_eq!(a, source_key("bing", 7));
        assert_ne!(a, source_key("brave", 7));
        assert_ne!(a, source_key("bing", 9));
        assert_ne!(member_key(a, 0), member_key(a, 1));
    }
}
