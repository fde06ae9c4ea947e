//! The general path of URL normalization, the reference the plain-link fast
//! path ([`super::normalize_into`]) is tested against (test builds only).

use super::{unwrapped, write_unwrapped};

/// [`normalize_into`] for any link: the reference [`write_simple`] is
/// tested against.
pub(super) fn normalize_general(link: &str, out: &mut String) -> bool {
    write_unwrapped(&unwrapped(link), out)
}
