//! The general path of URL normalization, the reference the plain-link fast
//! paths ([`super::normalize_into`], [`super::normal_host_end`]) are tested
//! against (test builds only), and the real links they are tested on.

use super::{unwrapped, write_unwrapped};

/// [`normalize_into`] for any link: the reference [`write_simple`] is
/// tested against.
pub(super) fn normalize_general(link: &str, out: &mut String) -> bool {
    write_unwrapped(&unwrapped(link), out)
}

/// Every link of the saved result pages (`serp/` of the team's data folder, or generated links without it, and the
/// parsers' golden outputs of them, `tests/snapshots/`: each
/// `href` value, HTML-unescaped as a parser hands it over, and each
/// `http(s)://` run of text, as JSON APIs and scripts carry them) and of the
/// URL cases (`tests/data/url_cases.toml`): real links with queries,
/// percent-encoding, redirect wrappers, fragments, and the odd hostile one.
pub(crate) fn fixture_links() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/");
    let mut files = vec![std::path::PathBuf::from(crate::test_data::URL_CASES)];
    let mut links_extra = Vec::new();
    let mut dirs = vec![
        // The parsers' golden outputs of the saved pages.
        std::path::PathBuf::from(format!("{root}snapshots")),
    ];
    // The saved pages themselves, from the team's data folder; generated
    // links stand in without it.
    match crate::test_data::data_root() {
        Some(data) => dirs.push(data.join("serp")),
        None => links_extra.extend(crate::test_data::links(5000)),
    }
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut links = links_extra;
    for path in files {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = String::from_utf8_lossy(&bytes);
        for (i, _) in text.match_indices("href=\"") {
            let rest = &text[i + 6..];
            let end = rest.find('"').unwrap_or(rest.len());
            links.push(rest[..end].replace("&amp;", "&"));
        }
        for (i, _) in text.match_indices("http") {
            let rest = &text[i..];
            if rest.starts_with("http://") || rest.starts_with("https://") {
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '\\'))
                    .unwrap_or(rest.len());
                links.push(rest[..end].to_string());
            }
        }
    }
    links.sort();
    links.dedup();
    links
}

/// The folding of a host's `www` / `m` / `mobile` labels before its last
/// two, as it was (by `str` splits and `replace_range`, on a lower-cased
/// host): the reference of [`super::push_folded_host`].
pub(super) fn fold_host_labels(out: &mut String, start: usize) {
    while fold_some_labels(out, start) == 4 {}
}

fn fold_some_labels(out: &mut String, start: usize) -> usize {
    let host = &out[start..];
    if host.starts_with('[') {
        return 0;
    }
    let labels = host.bytes().filter(|&b| b == b'.').count() + 1;
    let mut cut: [(usize, usize); 4] = [(0, 0); 4];
    let mut n_cut = 0;
    let mut pos = start;
    for (i, label) in host.split('.').enumerate() {
        if i + 2 >= labels {
            break;
        }
        if matches!(label, "www" | "m" | "mobile") && n_cut < cut.len() {
            cut[n_cut] = (pos, pos + label.len() + 1);
            n_cut += 1;
        }
        pos += label.len() + 1;
    }
    for &(a, b) in cut[..n_cut].iter().rev() {
        out.replace_range(a..b, "");
    }
    n_cut
}
