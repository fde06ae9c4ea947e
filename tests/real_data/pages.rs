//! Every saved HTML page of the team's data folder (`serp/`), one case a
//! page: the prefilter keeps what the selectors and the text see; every
//! shipped HTML preset reads it the same on the streaming path, the fast
//! front end and the tree path (each preset's own results pages without
//! leaving the streaming path); every redirect wrapper on it unwraps to an
//! absolute link. Then the folder as a whole: the prefilter cuts well over
//! half of the bytes, and each engine's wrappers were met.

use std::collections::BTreeMap;
use std::path::Path;

use metasift::config::{Config, EngineKind};
use metasift::engines::Engine as _;
use metasift::engines::{self, html::HtmlEngine};
use metasift_dedup::{UrlKey, unwrap_redirect, url_key};

use crate::golden;
use crate::real_data::Cases;

/// One case per saved HTML page, then the folder's.
pub fn cases(cases: &mut Cases) {
    let pages: Vec<&'static str> = metasift_data::listed("serp/")
        .filter(|f| f.ends_with(".html"))
        .collect();
    assert!(pages.len() >= 60, "{} pages listed", pages.len());
    for rel in pages {
        cases.file("pages", rel, move |path| {
            let name = rel.trim_start_matches("serp/");
            let bytes = std::fs::read(path).unwrap();
            let body = engines::decode_body(&bytes, None);
            golden::check_prefilter(&golden::prefilter_view(), name, &body);
            both_paths_agree(name, &body);
            wrappers_unwrap(name, &String::from_utf8_lossy(&bytes));
        });
    }
    cases.add("pages::serp/ (prefilter and wrappers, all pages)", |root| {
        let (all_bytes, cut_bytes, unwrapped) = folder_totals(root);
        // The point of the cut: well under half the bytes reach the parser.
        assert!(
            cut_bytes * 3 < all_bytes,
            "{cut_bytes} of {all_bytes} bytes kept"
        );
        // Counted by hand with grep over the saved pages (duplicates included).
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
    });
    cases.add(
        "pages::serp/*/celina2026_does-caffeine-affect-sleep* (Bing and DuckDuckGo agree)",
        bing_and_duckduckgo_agree_on_the_caffeine_query,
    );
}

/// The bytes before and after the prefilter and the wrappers per engine of
/// every saved HTML page.
fn folder_totals(root: &Path) -> (usize, usize, BTreeMap<String, usize>) {
    let view = golden::prefilter_view();
    let (mut all, mut cut) = (0, 0);
    let mut unwrapped = BTreeMap::new();
    for rel in metasift_data::listed("serp/").filter(|f| f.ends_with(".html")) {
        let bytes = std::fs::read(root.join(rel)).unwrap();
        let body = engines::decode_body(&bytes, None);
        all += body.len();
        cut += engines::prefilter::prefilter(&body, &view.keep).len();
        let name = rel.trim_start_matches("serp/");
        let engine = name.split('/').next().unwrap_or_default().to_string();
        *unwrapped.entry(engine).or_default() +=
            wrappers_unwrap(name, &String::from_utf8_lossy(&bytes));
    }
    (all, cut, unwrapped)
}

/// Every shipped HTML preset on the page `name`: the same outcome on the
/// streaming path, the fast front end and the tree path, and the preset's
/// own results pages read without leaving the streaming path.
fn both_paths_agree(name: &str, body: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("engines.toml");
    let config = Config::load(&path).unwrap();
    let mut left = Vec::new();
    let mut handed = Vec::new();
    for e in config
        .engines
        .into_iter()
        .filter(|e| e.kind == EngineKind::Html)
    {
        let engine = HtmlEngine::new(e.clone()).unwrap();
        assert_eq!(
            engine.tree_only(),
            None,
            "shipped preset {:?} cannot stream",
            e.name
        );
        let tree = engine.parse_tree(body);
        assert_eq!(
            engine.parse(body),
            tree,
            "{} on {name}: the engine's parse differs from the tree path",
            e.name
        );
        let own = name.starts_with(&format!("{}/", e.name));
        let own_results = own && tree.as_ref().is_ok_and(|p| !p.hits.is_empty());
        match engine.parse_fast(body) {
            Ok(outcome) => assert_eq!(
                outcome, tree,
                "{} on {name}: the fast front end and the tree path differ",
                e.name
            ),
            Err(why) if own_results => handed.push(format!("{} on {name}: {why:?}", e.name)),
            Err(_) => {}
        }
        match engine.parse_streamed(body) {
            Ok(outcome) => assert_eq!(
                outcome, tree,
                "{} on {name}: streaming and tree paths differ",
                e.name
            ),
            Err(why) if own_results => left.push(format!("{} on {name}: {why:?}", e.name)),
            Err(_) => {}
        }
    }
    assert!(
        left.is_empty(),
        "a preset's own results page left the streaming path: {left:#?}"
    );
    // The speed claim rests on this: each preset's own results pages are
    // read by the fast front end itself, not handed over.
    assert!(
        handed.is_empty(),
        "the fast front end handed over a preset's own results page: {handed:#?}"
    );
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

/// Every redirect wrapper of the page unwraps to an absolute link; returns
/// how many were unwrapped.
fn wrappers_unwrap(name: &str, html: &str) -> usize {
    let mut bad = Vec::new();
    let mut n = 0;
    for h in hrefs(html).filter(|h| is_wrapper(h)) {
        let t = unwrap_redirect(&h);
        if t == h {
            // Only Bing's links into its own verticals (a relative target)
            // and Google's internal links may stay wrapped.
            let internal = h.contains("bing.com/ck/a?")
                || (h.starts_with("/url?") && !h.contains("q=http") && !h.contains("url=http"));
            if !internal {
                bad.push(format!("{name}: still wrapped: {h}"));
            }
            continue;
        }
        if !(t.starts_with("http://") || t.starts_with("https://")) || is_wrapper(&t) {
            bad.push(format!("{name}: {h}\n  -> {t}"));
        }
        n += 1;
    }
    assert!(
        bad.is_empty(),
        "{} bad unwraps:\n{}",
        bad.len(),
        bad.join("\n")
    );
    n
}

fn bing_and_duckduckgo_agree_on_the_caffeine_query(root: &Path) {
    // The data README counts 9 of 10 shared results; check that keys find them.
    let read = |p: &str| {
        let path = root.join("serp").join(p);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
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
