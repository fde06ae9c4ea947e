//! URL and title normalization: the table-driven cases in `tests/data/`, the
//! redirect wrappers of the pages we write in the engines' markup, and
//! properties (normalizing twice = once; nothing panics). The wrappers of
//! every saved real page and the real titles are real-data cases
//! (`tests/real_data/`).

#[path = "support/own_pages.rs"]
mod own_pages;

use metasift_dedup::{
    is_truncated_title, normalize_title, normalize_url, unwrap_redirect, url_host, url_key,
};
use std::path::Path;

use proptest::prelude::*;
use serde::Deserialize;

#[derive(Deserialize)]
struct Unwrap {
    source: String,
    input: String,
    expect: String,
}

#[derive(Deserialize)]
struct Normalized {
    #[serde(alias = "source")]
    why: String,
    input: String,
    expect: String,
}

#[derive(Deserialize)]
struct Pair {
    #[serde(alias = "source")]
    why: String,
    a: String,
    b: String,
}

#[derive(Deserialize)]
struct UrlCases {
    unwrap: Vec<Unwrap>,
    normalize: Vec<Normalized>,
    same: Vec<Pair>,
    different: Vec<Pair>,
}

#[derive(Deserialize)]
struct TitleCases {
    normalize: Vec<Normalized>,
    same: Vec<Pair>,
    different: Vec<Pair>,
}

fn load<T: for<'de> Deserialize<'de>>(name: &str) -> T {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// Runs every case, then fails once with all the failures listed.
fn check_all(failures: Vec<String>, what: &str) {
    assert!(
        failures.is_empty(),
        "{} {what} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn url_unwrap_cases() {
    let cases: UrlCases = load("url_cases.toml");
    assert!(cases.unwrap.len() >= 20);
    let failures = cases
        .unwrap
        .iter()
        .filter_map(|c| {
            let got = unwrap_redirect(&c.input);
            (got != c.expect).then(|| {
                format!(
                    "[{}]\n  input  {}\n  expect {}\n  got    {got}",
                    c.source, c.input, c.expect
                )
            })
        })
        .collect();
    check_all(failures, "unwrap");
}

#[test]
fn url_normalize_cases() {
    let cases: UrlCases = load("url_cases.toml");
    let failures = cases
        .normalize
        .iter()
        .filter_map(|c| {
            let got = normalize_url(&c.input).unwrap_or_default();
            (got != c.expect).then(|| {
                format!(
                    "[{}]\n  input  {}\n  expect {}\n  got    {got}",
                    c.why, c.input, c.expect
                )
            })
        })
        .collect();
    check_all(failures, "normalize");
}

#[test]
fn url_same_and_different_cases() {
    let cases: UrlCases = load("url_cases.toml");
    let mut failures = Vec::new();
    for (pairs, want_same) in [(&cases.same, true), (&cases.different, false)] {
        for c in pairs {
            if (url_key(&c.a) == url_key(&c.b)) != want_same {
                failures.push(format!(
                    "[{}] expected {}:\n  a {} -> {:?}\n  b {} -> {:?}",
                    c.why,
                    if want_same {
                        "same key"
                    } else {
                        "different keys"
                    },
                    c.a,
                    normalize_url(&c.a),
                    c.b,
                    normalize_url(&c.b)
                ));
            }
        }
    }
    check_all(failures, "same/different");
}

#[test]
fn title_cases() {
    let cases: TitleCases = load("title_cases.toml");
    let mut failures = Vec::new();
    for c in &cases.normalize {
        let got = normalize_title(&c.input);
        if got != c.expect {
            failures.push(format!(
                "[{}]\n  input  {}\n  expect {}\n  got    {got}",
                c.why, c.input, c.expect
            ));
        }
    }
    for (pairs, want_same) in [(&cases.same, true), (&cases.different, false)] {
        for c in pairs {
            let (a, b) = (normalize_title(&c.a), normalize_title(&c.b));
            if (a == b) != want_same {
                failures.push(format!(
                    "[{}] expected {}:\n  a {a}\n  b {b}",
                    c.why,
                    if want_same { "equal" } else { "different" }
                ));
            }
        }
    }
    check_all(failures, "title");
}

#[test]
fn truncation_marks_are_recognized() {
    assert!(is_truncated_title(
        "How caffeine affects sleep: from brain ..."
    ));
    assert!(is_truncated_title("延迟退休真的来了…"));
    assert!(!is_truncated_title(
        "How caffeine affects sleep: from brain"
    ));
}

// --- every wrapper in the saved pages ---------------------------------------

/// Every link of the wrapped kinds on the pages we write (DuckDuckGo's
/// `/l/?uddg=`, Bing's `ck/a?…&u=a1<base64>`, Yahoo's and AOL's `RU=`)
/// unwraps to the result's own link, byte for byte. (The wrappers of every
/// saved real page are real-data cases, `tests/real_data/pages.rs`.)
#[test]
fn every_wrapper_of_our_pages_unwraps_to_its_link() {
    let mut checked = 0;
    for engine in ["duckduckgo", "bing", "yahoo", "aol"] {
        for (query, hits) in [
            ("q", own_pages::generic(engine, "a b&c=d é")),
            ("q2", own_pages::hello("bing")),
        ] {
            let page = own_pages::results(engine, query, &hits).body;
            let wrapped: Vec<String> = page
                .split("href=\"")
                .skip(1)
                .filter_map(|r| r.find('"').map(|e| r[..e].replace("&amp;", "&")))
                .filter(|h| h.contains("uddg=") || h.contains("/ck/a?") || h.contains("/RU="))
                .collect();
            assert!(wrapped.len() >= hits.len(), "{engine}: {wrapped:?}");
            for h in &wrapped {
                let target = unwrap_redirect(h);
                assert!(
                    hits.iter().any(|x| x.url == target),
                    "{engine}: {h} unwrapped to {target}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked}");
}

// --- properties -------------------------------------------------------------

/// Strings shaped like links, with the parts normalization cares about.
fn link_like() -> impl Strategy<Value = String> {
    link_like_with(vec!["http://", "HTTPS://", "//", "https:", "http:\\\\", ""])
}

fn link_like_with(schemes: Vec<&'static str>) -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(schemes);
    let user = prop::option::of("[a-z]{1,4}(:[a-z]{0,3})?@");
    let host = prop::sample::select(vec![
        "www.Example.com",
        "m.example.co.uk",
        "en.m.wikipedia.org",
        "bücher.example",
        "EXAMPLE.com.",
        "[::1]",
        "127.0.0.1",
        "mobile.de",
        "ex%41mple.com",
        "a",
    ]);
    let port = prop::option::of(prop::sample::select(vec![
        ":80", ":443", ":8080", ":", ":0",
    ]));
    let path = "(/([a-zA-Z0-9._~-]|%[0-9a-fA-F]{2}|%|\\.\\.|\\.|中|é| |\\\\){0,4}){0,4}";
    let query = prop::option::of(
        "\\?(([a-z_]{1,6}|utm_source|fbclid)(=([a-zA-Z0-9+%]|%20| ){0,5})?&?){0,4}",
    );
    let frag = prop::option::of("#[!/a-z%]{0,5}");
    (scheme, user, host, port, path, query, frag).prop_map(|(s, u, h, p, pa, q, f)| {
        format!(
            "{s}{}{h}{}{pa}{}{}",
            u.unwrap_or_default(),
            p.unwrap_or_default(),
            q.unwrap_or_default(),
            f.unwrap_or_default()
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn url_normalize_is_idempotent(link in link_like()) {
        if let Some(once) = normalize_url(&link) {
            let twice = normalize_url(&once);
            prop_assert_eq!(twice.as_deref(), Some(once.as_str()), "link {:?}", link);
            prop_assert_eq!(url_key(&once), url_key(&link));
        }
    }

    #[test]
    fn url_functions_never_panic(s in ".{0,200}") {
        let _ = url_key(&s);
        let _ = unwrap_redirect(&s);
        let _ = url_host(&s);
        if let Some(once) = normalize_url(&s) {
            prop_assert_eq!(normalize_url(&once), Some(once.clone()), "input {:?}", s);
        }
    }

    #[test]
    fn ddg_wrapper_returns_its_target_exactly(t in link_like_with(vec!["http://", "HTTPS://"])) {
        let enc: String = percent_encoding::utf8_percent_encode(&t, percent_encoding::NON_ALPHANUMERIC).to_string();
        let ddg = format!("//duckduckgo.com/l/?uddg={enc}&rut=abc");
        prop_assert_eq!(unwrap_redirect(&ddg), t.trim().to_string());
    }

    #[test]
    fn title_normalize_is_idempotent(t in ".{0,80}") {
        let once = normalize_title(&t);
        prop_assert_eq!(normalize_title(&once), once.clone(), "title {:?}", t);
    }

    #[test]
    fn title_normalize_is_idempotent_on_title_like_text(
        t in "[A-Za-z0-9 ？！，。：「」【】（）…百度知乎科·|_\\-.]{0,40}( - | \\| |_|-)(Wikipedia|知乎|百度百科|YouTube|[a-z]{1,8}\\.com|[a-z ]{1,12})(\\.\\.\\.|…)?"
    ) {
        let once = normalize_title(&t);
        prop_assert_eq!(normalize_title(&once), once.clone(), "title {:?}", t);
    }
}
