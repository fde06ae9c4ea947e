//! What a searcher sees on real result lists (issue #13): the saved engine
//! pages of the team's data folder (`serp/`), served by real HTTP servers on loopback
//! (or replayed from the folder) through the shipped presets, the fan-out,
//! fusion and paging.
//!
//! - A description one engine gives to several of its links (W3Schools'
//!   site description on Bing's "JavaScript Introduction", "Syntax",
//!   "Classes") folds none of those pages together, while copies across
//!   engines still fold.
//! - A result's title, link and snippet are one page's.
//! - The whole fused list is reachable page by page; the engines are asked
//!   for their next page only past its end.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use metasift::model::{MergedResult, SearchResponse};
use metasift::ops::cache::Cache;
use metasift::search::{SearchOptions, Searcher};
use metasift_dedup::{Stage, url_key};

use crate::real_data::Cases;
use crate::support::{self, Behavior, LoopbackEngine};

/// The saved `javascript tutorial` pages (the plain-HTTP captures where an
/// engine has two).
const JS_PAGES: [(&str, &str); 6] = [
    ("bing", "bing/wsmcp2026_javascript-tutorial_http.html"),
    ("brave", "brave/wsmcp2026_javascript-tutorial.html"),
    ("mojeek", "mojeek/wsmcp2026_javascript-tutorial.html"),
    (
        "startpage",
        "startpage/wsmcp2026_javascript-tutorial_http.html",
    ),
    ("yahoo", "yahoo/wsmcp2026_javascript-tutorial.html"),
    ("ecosia", "ecosia/wsmcp2026_javascript-tutorial.html"),
];

/// The cases, one per story, each on the saved pages it names.
pub fn cases(cases: &mut Cases) {
    fn add<F: std::future::Future<Output = ()>>(
        cases: &mut Cases,
        name: &str,
        test: impl FnOnce(PathBuf) -> F + Send + 'static,
    ) {
        cases.add(format!("real_lists::{name}"), move |root| {
            let root = root.to_path_buf();
            tokio::runtime::Runtime::new()
                .expect("a runtime")
                .block_on(test(root));
        });
    }
    add(
        cases,
        "a_site_description_on_several_links_of_one_engine_folds_none_of_them",
        a_site_description_on_several_links_of_one_engine_folds_none_of_them,
    );
    add(
        cases,
        "a_result_shows_the_title_link_and_snippet_of_one_page",
        a_result_shows_the_title_link_and_snippet_of_one_page,
    );
    add(
        cases,
        "the_whole_fused_list_is_paged_before_the_engines_are_asked_again",
        the_whole_fused_list_is_paged_before_the_engines_are_asked_again,
    );
    add(
        cases,
        "no_saved_list_folds_two_links_of_one_engine_by_snippet",
        no_saved_list_folds_two_links_of_one_engine_by_snippet,
    );
}

/// The shipped presets of `JS_PAGES`' engines, each pointed at a loopback
/// server answering every request with its saved page; answers cached in
/// memory, as `serve` does.
async fn js_searcher(root: &Path) -> (Searcher, Vec<LoopbackEngine>) {
    let mut config = support::shipped_config();
    let names: Vec<&str> = JS_PAGES.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    let mut servers = Vec::new();
    for (name, page) in JS_PAGES {
        let server = LoopbackEngine::spawn(Behavior::saved_page(root, page)).await;
        support::point_at(&mut config, name, &server.base_url());
        servers.push(server);
    }
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    )
    .with_cache(Cache::memory(Duration::from_secs(300), 64 << 20));
    (searcher, servers)
}

async fn page(searcher: &Searcher, text: &str, n: u32) -> SearchResponse {
    searcher
        .search(&searcher.parse_query(text, n), &SearchOptions::default())
        .await
        .expect("not overloaded")
}

/// Every fused result of a query: its pages, from 1 to `pages`.
async fn all_pages(searcher: &Searcher, text: &str) -> (SearchResponse, Vec<MergedResult>) {
    let first = page(searcher, text, 1).await;
    let mut all = first.results.clone();
    for n in 2..=first.pages {
        all.extend(page(searcher, text, n).await.results);
    }
    (first, all)
}

/// The result holding a record whose link ends with `tail` (any case).
fn holder<'a>(results: &'a [MergedResult], tail: &str) -> Vec<&'a MergedResult> {
    let tail = tail.to_lowercase();
    results
        .iter()
        .filter(|r| {
            r.url.to_lowercase().ends_with(&tail)
                || r.duplicates
                    .iter()
                    .any(|d| d.url.to_lowercase().ends_with(&tail))
        })
        .collect()
}

/// The results holding a record with the URL key of `link`.
fn same_key<'a>(results: &'a [MergedResult], link: &str) -> Vec<&'a MergedResult> {
    let key = url_key(link);
    results
        .iter()
        .filter(|r| url_key(&r.url) == key || r.duplicates.iter().any(|d| url_key(&d.url) == key))
        .collect()
}

/// The class of the site-description trap, on any list: a record joins a
/// group at the snippet stage only when no earlier member of the group comes
/// from its engine under another URL key.
fn assert_no_same_engine_snippet_groups(text: &str, results: &[MergedResult]) {
    for r in results {
        let mut members = vec![(r.engine.as_str(), url_key(&r.url))];
        for d in &r.duplicates {
            let key = url_key(&d.url);
            if d.stage == Stage::Snippet {
                let twin = members.iter().find(|(e, k)| *e == d.engine && *k != key);
                assert!(
                    twin.is_none(),
                    "{text}: {} ({}) joined {} ({}) by its snippet, though {} lists both",
                    d.url,
                    d.title,
                    r.url,
                    r.title,
                    d.engine
                );
            }
            members.push((d.engine.as_str(), key));
        }
    }
}

async fn a_site_description_on_several_links_of_one_engine_folds_none_of_them(root: PathBuf) {
    let (searcher, _servers) = js_searcher(&root).await;
    let (_, results) = all_pages(&searcher, "javascript tutorial").await;
    // Bing gives "W3Schools offers free online tutorials…" to three pages and
    // "Well organized and easy to understand…" to two more (Brave and
    // Startpage give the latter to a third): five pages, five results.
    let pages = [
        "/js/js_intro.asp",
        "/js/js_syntax.asp",
        "/js/js_classes.asp",
        "/js/js_examples.asp",
        "/js/js_es6.asp",
    ];
    let mut seen = BTreeSet::new();
    for p in pages {
        let found = holder(&results, p);
        assert_eq!(found.len(), 1, "{p}: {found:#?}");
        assert!(
            seen.insert(found[0].url.clone()),
            "{p} shares the result {} with another W3Schools page: {:#?}",
            found[0].url,
            found[0]
        );
    }
    assert_no_same_engine_snippet_groups("javascript tutorial", &results);

    // Recall stays: the copies across engines still fold.
    let tutorial = same_key(&results, "https://www.w3schools.com/js/");
    assert_eq!(tutorial.len(), 1, "{tutorial:#?}");
    assert!(tutorial[0].engines.len() >= 5, "{:?}", tutorial[0].engines);
    for site in [
        "https://javascript.info/",
        "https://www.javascripttutorial.net/",
    ] {
        let found = same_key(&results, site);
        assert_eq!(found.len(), 1, "{site}: {found:#?}");
        assert!(
            found[0].engines.len() >= 4,
            "{site}: {:?}",
            found[0].engines
        );
    }
    // js_intro: Bing and Brave agree by link.
    let intro = holder(&results, "/js/js_intro.asp")[0];
    assert!(intro.engines.len() >= 2, "{:?}", intro.engines);
}

async fn a_result_shows_the_title_link_and_snippet_of_one_page(root: PathBuf) {
    let (searcher, _servers) = js_searcher(&root).await;
    let query = searcher.parse_query("javascript tutorial", 1);
    let (_, gathered) = searcher
        .answers(&query, &SearchOptions::default())
        .await
        .expect("not overloaded");
    let (_, results) = all_pages(&searcher, "javascript tutorial").await;
    assert!(results.len() > 20, "{} results", results.len());
    let records: Vec<_> = gathered.answers.iter().flat_map(|a| &a.results).collect();
    for r in &results {
        let key = url_key(&r.url);
        let same_page: Vec<_> = records.iter().filter(|x| url_key(&x.url) == key).collect();
        assert!(
            same_page.iter().any(|x| x.title == r.title),
            "{}: title {:?} is no title of that link: {:?}",
            r.url,
            r.title,
            same_page.iter().map(|x| &x.title).collect::<Vec<_>>()
        );
        assert!(
            same_page.iter().any(|x| x.snippet == r.content),
            "{}: its snippet is another page's: {:?}",
            r.url,
            r.content
        );
    }
    // The case of the issue: js_examples.asp under its own title.
    let examples = holder(&results, "/js/js_examples.asp")[0];
    assert_eq!(examples.title, "JavaScript Examples - W3Schools");
}

async fn the_whole_fused_list_is_paged_before_the_engines_are_asked_again(root: PathBuf) {
    let (searcher, servers) = js_searcher(&root).await;
    let query = searcher.parse_query("javascript tutorial", 1);
    let (_, gathered) = searcher
        .answers(&query, &SearchOptions::default())
        .await
        .expect("not overloaded");
    let per_page = searcher.config().server.results_per_page;
    let config = searcher.config();
    let fused = metasift::fusion::fuse(&gathered.answers, &config.dedup, &config.fusion, false);
    assert!(
        fused.len() > per_page,
        "{} fused results fit one page of {per_page}",
        fused.len()
    );

    let (first, all) = all_pages(&searcher, "javascript tutorial").await;
    assert_eq!(first.results.len(), per_page);
    assert_eq!(first.total_results, fused.len());
    assert_eq!(first.pages as usize, fused.len().div_ceil(per_page));
    let urls = |rs: &[MergedResult]| rs.iter().map(|r| r.url.clone()).collect::<Vec<_>>();
    assert_eq!(
        urls(&all),
        urls(&fused),
        "pages 1..{} are the fused list",
        first.pages
    );
    let json = metasift::output::searxng::answer(&first, None);
    assert_eq!(json.number_of_results, fused.len() as u64);
    assert_eq!(json.results.len(), per_page);
    // Each engine was asked once: its page 1.
    for ((name, _), server) in JS_PAGES.iter().zip(&servers) {
        assert_eq!(server.requests(), 1, "{name}: {:?}", server.last_uri());
    }

    // Past the fused list, the engines are asked for their page 2.
    let next = page(&searcher, "javascript tutorial", first.pages + 1).await;
    for ((name, _), server) in JS_PAGES.iter().zip(&servers) {
        assert_eq!(server.requests(), 2, "{name}");
    }
    // Every loopback server answers every page with its saved page 1: the
    // engines' page 2 repeats what pages 1..pages showed, so nothing is shown
    // twice, and the list ends there.
    assert!(next.results.is_empty(), "{:#?}", urls(&next.results));
    assert_eq!(next.total_results, fused.len());
    // A page far past the end asks the engines no further than the page that
    // brought nothing new (their page 2, from the answers cache now).
    let far = page(&searcher, "javascript tutorial", first.pages + 9).await;
    assert!(far.results.is_empty());
    for ((name, _), server) in JS_PAGES.iter().zip(&servers) {
        assert_eq!(server.requests(), 2, "{name}: {:?}", server.last_uri());
    }
}

/// Every saved query, replayed from the folder through every shipped
/// preset: no group holds two links of one engine merged by snippet alone.
async fn no_saved_list_folds_two_links_of_one_engine_by_snippet(root: PathBuf) {
    let serp = root.join("serp");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(serp.join("index.json")).expect("serp/index.json"))
            .expect("index.json");
    let queries: BTreeSet<String> = index
        .as_array()
        .expect("a list")
        .iter()
        .filter(|e| e["kind"] == "results")
        .filter_map(|e| e["query"].as_str().map(str::to_string))
        .collect();
    assert!(queries.len() >= 8, "{queries:?}");
    let searcher = Searcher::from_config(support::shipped_config())
        .unwrap()
        .with_recording(None, Some(serp))
        .with_cache(Cache::memory(Duration::from_secs(300), 64 << 20));
    let mut checked = 0;
    for text in &queries {
        // Bangs and `:lang` words in saved queries stay search text here.
        let (_, results) = all_pages(&searcher, text).await;
        assert_no_same_engine_snippet_groups(text, &results);
        checked += results.len();
    }
    assert!(checked > 100, "{checked} results checked");
}
