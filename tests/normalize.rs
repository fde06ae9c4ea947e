//! URL and title normalization: the table-driven cases in `tests/data/`, the
//! redirect wrappers of every saved engine page, real titles, and properties
//! (normalizing twice = once; nothing panics).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metasift_dedup::{
    UrlKey, is_truncated_title, normalize_title, normalize_url, unwrap_redirect, url_host, url_key,
};
use proptest::prelude::*;
use serde::Deserialize;

const SERP_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/serp");
const DUREADER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/corpus/dureader_search_zh/search_results.jsonl"
);

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

fn html_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            html_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "html") {
            out.push(p);
        }
    }
}

/// `href="…"` values, with the few entities that occur in them decoded.
fn hrefs(html: &str) -> impl Iterator<Item = String> + '_ {
    html.split("href=\"").skip(1).filter_map(|rest| {
        let end = rest.find('"')?;
        Some(
            rest[..end]
                .replace("&amp;", "&")
                .replace("&#x3D;", "=")
                .replace("&#61;", "="),
        )
    })
}

fn is_wrapper(h: &str) -> bool {
    h.contains("uddg=")
        || (h.contains("bing.com/ck/a?") && h.contains("u=a1"))
        || (h.contains("/RU=") && (h.contains("yahoo.com") || h.contains("aol.com")))
        || h.starts_with("/url?")
        || h.contains("google.com/url?")
}

#[test]
fn every_saved_wrapper_unwraps_to_an_absolute_link() {
    let mut files = Vec::new();
    html_files(Path::new(SERP_DIR), &mut files);
    assert!(!files.is_empty(), "no saved pages under {SERP_DIR}");
    let mut unwrapped: BTreeMap<String, usize> = BTreeMap::new();
    let mut bad = Vec::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let html = String::from_utf8_lossy(&bytes);
        let engine = f
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for h in hrefs(&html).filter(|h| is_wrapper(h)) {
            let t = unwrap_redirect(&h);
            if t == h {
                // Only Bing's links into its own verticals (a relative
                // target) and Google's internal links may stay wrapped.
                let internal = h.contains("bing.com/ck/a?")
                    || (h.starts_with("/url?") && !h.contains("q=http") && !h.contains("url=http"));
                if !internal {
                    bad.push(format!("{}: still wrapped: {h}", f.display()));
                }
                continue;
            }
            if !(t.starts_with("http://") || t.starts_with("https://")) || is_wrapper(&t) {
                bad.push(format!("{}: {h}\n  -> {t}", f.display()));
            }
            *unwrapped.entry(engine.clone()).or_default() += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "{} bad unwraps:\n{}",
        bad.len(),
        bad.join("\n")
    );
    // Counted by hand with grep over tests/fixtures/serp (duplicates included).
    for (engine, at_least) in [
        ("duckduckgo", 70),
        ("bing", 20),
        ("yahoo", 100),
        ("aol", 20),
        ("google", 200),
    ] {
        let n = unwrapped.get(engine).copied().unwrap_or(0);
        assert!(
            n >= at_least,
            "{engine}: only {n} wrappers unwrapped, expected ≥ {at_least}: {unwrapped:?}"
        );
    }
}

#[test]
fn bing_and_duckduckgo_agree_on_the_caffeine_query() {
    // The data README counts 9 of 10 shared results; check that keys find them.
    let read = |p: &str| {
        let path = format!("{SERP_DIR}/{p}");
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let bing = read("bing/celina2026_does-caffeine-affect-sleep.html");
    let ddg = read("duckduckgo/celina2026_does-caffeine-affect-sleep_html.html");
    let keys = |html: &str| -> std::collections::HashSet<UrlKey> {
        hrefs(html)
            .filter(|h| is_wrapper(h))
            .map(|h| unwrap_redirect(&h))
            .filter(|t| t.starts_with("http") && !t.contains("microsoft.com"))
            .map(|t| url_key(&t))
            .collect()
    };
    let (kb, kd) = (keys(&bing), keys(&ddg));
    let shared = kb.intersection(&kd).count();
    assert!(
        shared >= 9,
        "only {shared} shared keys (bing {}, ddg {})",
        kb.len(),
        kd.len()
    );
}

#[test]
fn real_titles_normalize_idempotently() {
    let text = std::fs::read_to_string(DUREADER).unwrap_or_else(|e| panic!("{DUREADER}: {e}"));
    let mut n = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("jsonl line");
        for r in v["results"].as_array().into_iter().flatten() {
            let t = r["title"].as_str().unwrap_or_default();
            let once = normalize_title(t);
            assert_eq!(normalize_title(&once), once, "title {t:?}");
            if !t.trim().is_empty() {
                assert!(!once.is_empty(), "title {t:?} normalized to nothing");
            }
            n += 1;
        }
    }
    assert!(n > 1000, "only {n} titles read");
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
