//! The API presets of `engines.toml` on the real saved answers of the data
//! folder (`api/`, section D of its README): each file read by its preset
//! (counts, template fields, honest "no results" and errors), and whole
//! category searches (`/search?format=json&categories=science`, `it`,
//! `images`, `videos`, `news`, `map`) over loopback engines answering with
//! those files, checked for SearXNG's `template`, `category` and fields.

use std::path::Path;

use metasift::config::Config;
use metasift::engines::{self, Engine, ParseError, Parsed};
use metasift::model::{Query, Template};
use serde_json::Value;

use crate::real_data::Cases;
use crate::support::{self, Behavior, LoopbackEngine, router};

fn preset(name: &str) -> Box<dyn Engine> {
    let config = support::shipped_config();
    let ec = config
        .engines
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no preset {name:?}"));
    engines::build(ec).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parse(name: &str, path: &Path) -> Result<Parsed, ParseError> {
    preset(name).parse(&read(path))
}

fn ok(name: &str, path: &Path) -> Parsed {
    parse(name, path).unwrap_or_else(|e| panic!("{name} on {}: {e}", path.display()))
}

/// Every hit carries `template`; the checks every parse must pass.
fn all_under(p: &Parsed, template: Template) {
    for h in &p.hits {
        let e = h.extra.as_ref().expect("template fields");
        assert_eq!(e.template, template, "{}", h.url);
        assert!(h.url.starts_with("http"), "{}", h.url);
        assert!(!h.title.trim().is_empty());
    }
}

/// The cases: one per data file, then the category searches.
pub fn cases(cases: &mut Cases) {
    let file = |cases: &mut Cases, rel: &str, run: fn(&Path)| {
        cases.file("apis", &format!("api/{rel}"), run);
    };
    file(cases, "arxiv/arxivpy2026_testing_s0_m10.atom.xml", |p| {
        let parsed = ok("arxiv", p);
        assert_eq!(parsed.hits.len(), 10);
        all_under(&parsed, Template::Paper);
        let first = &parsed.hits[0];
        assert_eq!(first.url, "https://arxiv.org/abs/2202.12139v1");
        let e = first.extra.as_ref().unwrap();
        assert_eq!(
            e.pdf_url.as_deref(),
            Some("https://arxiv.org/pdf/2202.12139v1")
        );
        assert!(!e.authors.is_empty(), "{e:?}");
        assert!(e.tags.contains(&"cs.SE".to_string()), "{:?}", e.tags);
        assert_eq!(first.published.as_deref(), Some("2022-02-24T15:05:19Z"));
        assert!(parsed.hits.iter().all(|h| {
            let e = h.extra.as_ref().unwrap();
            !e.authors.is_empty() && e.pdf_url.is_some()
        }));
    });
    for rel in [
        "arxiv/arxivpy2026_testing_s5_m10.atom.xml",
        "arxiv/arxivpy2026_testing_s10_m10.atom.xml",
    ] {
        file(cases, rel, |p| {
            let parsed = ok("arxiv", p);
            assert_eq!(parsed.hits.len(), 10);
            all_under(&parsed, Template::Paper);
        });
    }
    file(cases, "arxiv/arxivpy2016_au-del_maestro.atom.xml", |p| {
        let parsed = ok("arxiv", p);
        assert_eq!(parsed.hits.len(), 10, "2016 layout");
        all_under(&parsed, Template::Paper);
        // The 2016 feeds link the DOI as arxiv:doi.
        assert!(
            parsed
                .hits
                .iter()
                .any(|h| h.extra.as_ref().unwrap().doi.is_some()),
            "a DOI among 10 papers"
        );
    });
    file(cases, "arxiv/arxivpy2026_id-1707.08567.atom.xml", |p| {
        assert_eq!(ok("arxiv", p).hits.len(), 1);
    });
    file(
        cases,
        "arxiv/arxivpy2026_id-0000.0000_empty.atom.xml",
        |p| {
            assert!(
                ok("arxiv", p).hits.is_empty(),
                "an empty feed is no results"
            );
        },
    );
    file(cases, "crossref/habanero2026_ecology_rows2.json", |p| {
        let parsed = ok("crossref", p);
        assert_eq!(parsed.hits.len(), 2);
        assert_eq!(parsed.estimate, Some(586_628));
        all_under(&parsed, Template::Paper);
        let e = parsed.hits[0].extra.as_ref().unwrap();
        assert!(e.doi.is_some() && e.publisher.is_some(), "{e:?}");
    });
    file(
        cases,
        "crossref/habanero2026_ecology_author-carl-boettiger.json",
        |p| {
            let parsed = ok("crossref", p);
            assert_eq!(parsed.hits.len(), 20);
            all_under(&parsed, Template::Paper);
            let authors: Vec<&String> = parsed
                .hits
                .iter()
                .flat_map(|h| &h.extra.as_ref().unwrap().authors)
                .collect();
            assert!(
                authors.iter().any(|a| a.as_str() == "Carl Boettiger"),
                "given and family joined: {authors:?}"
            );
            assert!(
                parsed
                    .hits
                    .iter()
                    .all(|h| h.url.starts_with("https://doi.org/"))
            );
        },
    );
    file(
        cases,
        "crossref/habanero2026_ecology_rows3_select.json",
        |p| {
            assert_eq!(ok("crossref", p).hits.len(), 3);
        },
    );
    file(
        cases,
        "crossref/habanero2026_doi-notarealdoi_404.txt",
        |p| {
            let r = parse("crossref", p);
            assert!(matches!(r, Err(ParseError::Invalid(_))), "{r:?}");
        },
    );
    for (rel, count, total) in [
        ("semantic_scholar/s2py2024_turing.json", 100, Some(70_499)),
        ("semantic_scholar/s2py2024_kubernetes.json", 100, Some(3028)),
        (
            "semantic_scholar/s2py2024_sublinear-near-optimal-edit-distance.json",
            89,
            None,
        ),
    ] {
        cases.file("apis", &format!("api/{rel}"), move |p| {
            let parsed = ok("semantic_scholar", p);
            assert_eq!(parsed.hits.len(), count);
            if total.is_some() {
                assert_eq!(parsed.estimate, total);
            }
            all_under(&parsed, Template::Paper);
            assert!(
                parsed.hits[0]
                    .url
                    .starts_with("https://www.semanticscholar.org/paper/")
            );
        });
    }
    file(
        cases,
        "semantic_scholar/s2py2024_turing_openaccesspdf.json",
        |p| {
            let parsed = ok("semantic_scholar", p);
            all_under(&parsed, Template::Paper);
        },
    );
    file(cases, "semantic_scholar/s2py2024_no-results.json", |p| {
        assert!(
            ok("semantic_scholar", p).hits.is_empty(),
            "no data key: no results"
        );
    });
    file(cases, "semantic_scholar/s2py2024_paper-0_404.json", |p| {
        let r = parse("semantic_scholar", p);
        assert!(matches!(r, Err(ParseError::Invalid(_))), "{r:?}");
    });
    file(cases, "pubmed/biopython_esearch1_biopython.xml", |p| {
        let engine = preset("pubmed");
        let next = engine
            .follow_up(&read(p), &query("biopython"))
            .unwrap()
            .expect("a follow-up");
        assert!(next.url.starts_with(
            "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esummary.fcgi?db=pubmed&id=41282813%2C41148224%2C"
        ), "{}", next.url);
        assert_eq!(next.url.matches("%2C").count(), 19, "20 ids");
    });
    file(cases, "pubmed/biopython_esearch8_abcxyz.xml", |p| {
        let engine = preset("pubmed");
        let next = engine.follow_up(&read(p), &query("abcXYZ")).unwrap();
        assert!(next.is_none(), "no ids: no follow-up, no results");
    });
    file(
        cases,
        "pubmed/biopython_esummary1_esummary-id-11850928-11482001.xml",
        |p| {
            let parsed = ok("pubmed", p);
            assert_eq!(parsed.hits.len(), 2);
            all_under(&parsed, Template::Paper);
            let h = &parsed.hits[0];
            assert_eq!(h.url, "https://pubmed.ncbi.nlm.nih.gov/11850928/");
            assert_eq!(
                h.title,
                "Zirconium granuloma following treatment of rhus dermatitis."
            );
            let e = h.extra.as_ref().unwrap();
            assert_eq!(e.authors, ["LoPresti PJ", "Hambrick GW Jr"]);
            assert_eq!(e.journal.as_deref(), Some("Archives of dermatology"));
            assert_eq!(e.volume.as_deref(), Some("92"));
            // `1965 Aug`, `2001 Jun`: the month's first day.
            assert_eq!(h.published.as_deref(), Some("1965-08-01T00:00:00Z"));
            let second = parsed.hits[1].published.as_deref();
            assert_eq!(second, Some("2001-06-01T00:00:00Z"));
        },
    );
    for rel in [
        "github/github3py2017_github3-language-python.json",
        "github/github3py2017_github3-language-python_text-match.json",
    ] {
        file(cases, rel, |p| {
            let parsed = ok("github", p);
            assert_eq!(parsed.hits.len(), 8);
            all_under(&parsed, Template::Packages);
            let h = &parsed.hits[0];
            assert_eq!(h.url, "https://github.com/sigmavirus24/github3.py");
            let e = h.extra.as_ref().unwrap();
            assert_eq!(e.package_name.as_deref(), Some("sigmavirus24/github3.py"));
            assert_eq!(e.maintainer.as_deref(), Some("sigmavirus24"));
            assert!(e.popularity.is_some());
        });
    }
    file(
        cases,
        "hn_algolia/hnapi2014_fixtures-bundle_26-responses.json",
        |p| {
            let bundle: Vec<Value> = serde_json::from_str(&read(p)).unwrap();
            let engine = preset("hackernews");
            let mut stories = 0;
            for entry in &bundle {
                let url = entry["url"].as_str().unwrap();
                if !url.contains("/search") {
                    continue;
                }
                let parsed = engine
                    .parse(&entry["reply"].to_string())
                    .unwrap_or_else(|e| panic!("{url}: {e}"));
                for h in &parsed.hits {
                    assert!(h.url.starts_with("http"), "{url}: {}", h.url);
                }
                if url.contains("(story)") {
                    assert_eq!(parsed.hits.len(), 1, "{url}");
                    stories += 1;
                }
            }
            assert_eq!(stories, 6);
        },
    );
    file(
        cases,
        "brave_api/bravepy2025_hello-world_images.json",
        |p| {
            let parsed = ok("brave_images", p);
            assert_eq!(parsed.hits.len(), 20);
            all_under(&parsed, Template::Images);
            let e = parsed.hits[0].extra.as_ref().unwrap();
            assert!(
                e.img_src
                    .as_deref()
                    .unwrap()
                    .starts_with("https://media.istockphoto.com/")
            );
            assert!(
                e.thumbnail_src
                    .as_deref()
                    .unwrap()
                    .starts_with("https://imgs.search.brave.com/")
            );
            assert_eq!(e.source.as_deref(), Some("istockphoto.com"));
        },
    );
    file(
        cases,
        "brave_api/bravepy2025_hello-world_videos.json",
        |p| {
            let parsed = ok("brave_videos", p);
            assert_eq!(parsed.hits.len(), 20);
            all_under(&parsed, Template::Videos);
            let h = &parsed.hits[0];
            assert_eq!(h.url, "https://www.youtube.com/watch?v=Yw6u6YkTgQ4");
            let e = h.extra.as_ref().unwrap();
            assert_eq!(e.length.as_deref(), Some("1:56"));
            assert_eq!(e.author.as_deref(), Some("Louie Zong"));
            assert!(h.thumbnail.is_some());
        },
    );
    file(cases, "nominatim/geocoder2017_ottawa-ontario.json", |p| {
        let parsed = ok("nominatim", p);
        assert_eq!(parsed.hits.len(), 1);
        all_under(&parsed, Template::Map);
        let h = &parsed.hits[0];
        assert_eq!(h.url, "https://www.openstreetmap.org/relation/4136816");
        assert_eq!(h.title, "Ottawa, Ontario, Canada");
        let e = h.extra.as_ref().unwrap();
        assert_eq!(e.latitude.as_deref(), Some("45.421106"));
        assert_eq!(e.longitude.as_deref(), Some("-75.690308"));
        assert_eq!(e.boundingbox.len(), 4);
        let a = e.address.as_ref().unwrap();
        assert_eq!(a.locality.as_deref(), Some("Ottawa"));
        assert_eq!(a.country_code.as_deref(), Some("ca"));
    });

    let search =
        |cases: &mut Cases,
         name: &str,
         run: fn(&Path) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>| {
            cases.add(format!("apis::search::{name}"), move |root| {
                let root = root.to_path_buf();
                tokio::runtime::Runtime::new()
                    .expect("a runtime")
                    .block_on(run(&root));
            });
        };
    search(cases, "science", |root| {
        Box::pin(science(root.to_path_buf()))
    });
    search(cases, "it", |root| Box::pin(it(root.to_path_buf())));
    search(cases, "images", |root| Box::pin(images(root.to_path_buf())));
    search(cases, "videos", |root| Box::pin(videos(root.to_path_buf())));
    search(cases, "news", |root| Box::pin(news(root.to_path_buf())));
    search(cases, "map", |root| Box::pin(map(root.to_path_buf())));
}

fn query(text: &str) -> Query {
    Query {
        text: text.into(),
        page: 1,
        ..Query::default()
    }
}

/// A loopback engine answering every request with the data file `rel`.
async fn serve(root: &Path, rel: &str) -> LoopbackEngine {
    let path = root.join("api").join(rel);
    LoopbackEngine::spawn(Behavior::page(
        read(&path),
        support::content_type_for(&path),
    ))
    .await
}

/// The shipped presets `names`, each at its loopback server, the Brave key
/// they need given (a value of our own: the loopback server asks for none).
/// A loopback Hacker News answering with the reply the recorded Algolia
/// bundle holds for the request whose URL contains `asked`.
async fn hn_reply(root: &Path, asked: &str) -> LoopbackEngine {
    let bundle: Vec<Value> = serde_json::from_str(&read(
        &root.join("api/hn_algolia/hnapi2014_fixtures-bundle_26-responses.json"),
    ))
    .unwrap();
    let exchange = bundle
        .iter()
        .find(|e| e["url"].as_str().unwrap().contains(asked))
        .unwrap_or_else(|| panic!("no recorded request for {asked:?}"));
    LoopbackEngine::spawn(Behavior::page(
        exchange["reply"].to_string(),
        "application/json; charset=utf-8",
    ))
    .await
}

fn config(servers: &[(&str, &LoopbackEngine)]) -> Config {
    let mut config = support::shipped_config();
    let names: Vec<&str> = servers.iter().map(|(n, _)| *n).collect();
    support::keep_only(&mut config, &names);
    for (name, server) in servers {
        support::point_at(&mut config, name, &server.base_url());
    }
    for e in &mut config.engines {
        if e.unset_env.take().is_some() {
            for v in e.headers.values_mut() {
                *v = v.replace("${BRAVE_API_KEY}", "test-key");
            }
        }
    }
    config
}

/// `/search?format=json` of `q` and `categories`: the SearXNG answer.
async fn searxng_json(config: Config, q: &str, categories: &str) -> Value {
    let app = router::app_with(config);
    let uri = format!(
        "/search?q={}&format=json&categories={categories}",
        url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
    );
    let (resp, body) = router::get_from(&app, &uri).await;
    assert_eq!(resp.status(), 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(
        v["unresponsive_engines"],
        serde_json::json!([]),
        "every engine answered"
    );
    v
}

/// The results of `engine` in a SearXNG answer (as the kept record).
fn of<'v>(v: &'v Value, engine: &str) -> Vec<&'v Value> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["engine"] == engine)
        .collect()
}

async fn science(root: std::path::PathBuf) {
    let arxiv = serve(&root, "arxiv/arxivpy2026_testing_s0_m10.atom.xml").await;
    let crossref = serve(
        &root,
        "crossref/habanero2026_ecology_author-carl-boettiger.json",
    )
    .await;
    let s2 = serve(&root, "semantic_scholar/s2py2024_turing.json").await;
    let esearch = serve(&root, "pubmed/biopython_esearch1_biopython.xml").await;
    let esummary = serve(
        &root,
        "pubmed/biopython_esummary1_esummary-id-11850928-11482001.xml",
    )
    .await;
    let mut config = config(&[
        ("arxiv", &arxiv),
        ("crossref", &crossref),
        ("semantic_scholar", &s2),
        ("pubmed", &esearch),
    ]);
    // PubMed's second call goes to a server of its own.
    support::point_follow_at(&mut config, "pubmed", &esummary.base_url());
    let v = searxng_json(config, "testing", "science").await;
    for engine in ["arxiv", "crossref", "semantic_scholar", "pubmed"] {
        let results = of(&v, engine);
        assert!(!results.is_empty(), "{engine} gave results");
        for r in &results {
            assert_eq!(r["template"], "paper.html", "{engine}: {r}");
            assert_eq!(r["category"], "science", "{engine}");
        }
    }
    let paper = of(&v, "pubmed")[0];
    assert_eq!(
        paper["authors"],
        serde_json::json!(["LoPresti PJ", "Hambrick GW Jr"])
    );
    assert_eq!(paper["journal"], "Archives of dermatology");
    let arxiv_paper = of(&v, "arxiv")[0];
    assert!(
        arxiv_paper["pdf_url"]
            .as_str()
            .unwrap()
            .starts_with("https://arxiv.org/pdf/")
    );
    assert!(arxiv_paper["publishedDate"].is_string());
    assert!(of(&v, "crossref").iter().any(|r| r["doi"].is_string()));
    assert_eq!(esearch.requests(), 1);
    assert_eq!(esummary.requests(), 1, "one follow-up");
    let asked = esummary.last_uri().unwrap();
    assert!(asked.contains("id=41282813%2C"), "{asked}");
}

async fn it(root: std::path::PathBuf) {
    let github = serve(&root, "github/github3py2017_github3-language-python.json").await;
    let hn = hn_reply(&root, "tags=(story)&query=apple").await;
    let v = searxng_json(
        config(&[("github", &github), ("hackernews", &hn)]),
        "github3",
        "it",
    )
    .await;
    let repos = of(&v, "github");
    assert_eq!(repos.len(), 8);
    for r in &repos {
        assert_eq!(r["template"], "packages.html");
        assert_eq!(r["category"], "it");
        assert!(
            r["package_name"].is_string() && r["source_code_url"].is_string(),
            "{r}"
        );
    }
    let stories = of(&v, "hackernews");
    assert_eq!(stories.len(), 1);
    assert_eq!(stories[0]["template"], "default.html");
    assert_eq!(stories[0]["category"], "it");
}

async fn images(root: std::path::PathBuf) {
    let brave = serve(&root, "brave_api/bravepy2025_hello-world_images.json").await;
    let v = searxng_json(config(&[("brave_images", &brave)]), "hello world", "images").await;
    let results = of(&v, "brave_images");
    // Images are told apart by the image, not by the page they are on.
    assert_eq!(results.len(), 20);
    for r in &results {
        assert_eq!(r["template"], "images.html");
        assert_eq!(r["category"], "images");
        assert!(
            r["img_src"].is_string() && r["thumbnail_src"].is_string(),
            "{r}"
        );
        assert_ne!(
            r["img_src"], r["thumbnail_src"],
            "the image, and its preview"
        );
    }
}

async fn videos(root: std::path::PathBuf) {
    let brave = serve(&root, "brave_api/bravepy2025_hello-world_videos.json").await;
    let v = searxng_json(config(&[("brave_videos", &brave)]), "hello world", "videos").await;
    let results = of(&v, "brave_videos");
    assert!(results.len() >= 15, "{}", results.len());
    for r in &results {
        assert_eq!(r["template"], "videos.html");
        assert_eq!(r["category"], "videos");
        assert!(r["thumbnail"].is_string(), "{r}");
        assert!(
            r.get("iframe_src").is_none(),
            "no player given, none made up"
        );
    }
    assert!(results.iter().any(|r| r["length"] == "1:56"));
}

async fn news(root: std::path::PathBuf) {
    let hn = hn_reply(
        &root,
        "search_by_date?hitsPerPage=1&tags=(story)&query=apple",
    )
    .await;
    let gn = LoopbackEngine::spawn(Behavior::news("google_news")).await;
    let v = searxng_json(
        config(&[("hackernews", &hn), ("google_news", &gn)]),
        support::own_pages::NEWS,
        "news",
    )
    .await;
    let hn_results = of(&v, "hackernews");
    assert_eq!(hn_results.len(), 1);
    assert_eq!(
        hn_results[0]["category"], "news",
        "the tab asked, not the engine's first"
    );
    assert!(hn_results[0]["publishedDate"].is_string());
    assert!(!of(&v, "google_news").is_empty());
}

async fn map(root: std::path::PathBuf) {
    let osm = serve(&root, "nominatim/geocoder2017_ottawa-ontario.json").await;
    let v = searxng_json(config(&[("nominatim", &osm)]), "Ottawa, Ontario", "map").await;
    let r = of(&v, "nominatim");
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["template"], "map.html");
    assert_eq!(r[0]["category"], "map");
    assert_eq!(r[0]["latitude"], "45.421106");
    assert_eq!(r[0]["longitude"], "-75.690308");
    assert_eq!(r[0]["boundingbox"].as_array().unwrap().len(), 4);
    assert_eq!(r[0]["address"]["country_code"], "ca");
}
