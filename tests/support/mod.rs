//! Loopback member engines for integration tests: real HTTP servers on
//! 127.0.0.1, one per engine, serving result pages we write in the engines'
//! markup ([`own_pages`]), or saved real pages of the team's data folder
//! (benches, real-data tests) — or misbehaving on
//! purpose (never answering, trickling, sending a gigabyte, looping
//! redirects, failing with a status).
//!
//! Include it from a test file with
//!
//! ```ignore
//! #[path = "support/mod.rs"]
//! mod support;
//! ```
//!
//! then point the SHIPPED presets at the servers with [`point_at`]: only
//! the scheme and host of an engine's `url` template change, so the request
//! the preset builds (path, query string, headers) is exercised as shipped.

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub mod own_pages;
pub mod pages;
pub mod router;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Request, Response, StatusCode, header};
use metasift::config::{Config, EngineConfig, EngineKind};
use metasift::engines::{Engine, Hit, ParseError, Parsed, RequestSpec};
use metasift::model::Query;

/// How a loopback engine answers every request.
#[derive(Debug, Clone)]
pub enum Behavior {
    /// 200 with this body and content type.
    Page {
        /// The body.
        body: Bytes,
        /// The `Content-Type`.
        content_type: String,
    },
    /// This status, with a short body.
    Status(u16),
    /// Accepts the request and never answers.
    Hang,
    /// 200 and headers at once, then one `chunk` every `every`, forever.
    Trickle {
        /// Bytes sent each time.
        chunk: Bytes,
        /// Pause between chunks.
        every: Duration,
    },
    /// 200 with a streamed body of `bytes` bytes and no `Content-Length`.
    Huge {
        /// Total size.
        bytes: u64,
    },
    /// 200 with a `Content-Length` header announcing `bytes`, body streamed.
    HugeDeclared {
        /// Total size.
        bytes: u64,
    },
    /// 302 to itself, forever.
    RedirectLoop,
    /// Waits, then behaves like the inner behavior.
    Delayed(Duration, Box<Behavior>),
}

impl Behavior {
    /// A saved real page, `serp/<rel>` of the data folder `root`, with a
    /// content type guessed from its extension.
    pub fn saved_page(root: &Path, rel: &str) -> Behavior {
        Behavior::Page {
            body: Bytes::from(saved_page(root, rel)),
            content_type: content_type_for(Path::new(rel)).into(),
        }
    }

    /// A page we wrote ([`own_pages`]).
    pub fn own(page: own_pages::Page) -> Behavior {
        Behavior::Page {
            body: Bytes::from(page.body),
            content_type: page.content_type.into(),
        }
    }

    /// `engine`'s answer to [`own_pages::CAFFEINE`] (DuckDuckGo or Bing).
    pub fn caffeine(engine: &str) -> Behavior {
        Behavior::results(engine, own_pages::CAFFEINE, &own_pages::caffeine(engine))
    }

    /// `engine`'s answer to [`own_pages::RUST_TUTORIAL`] (one of
    /// [`own_pages::RUST_ENGINES`]).
    pub fn rust_tutorial(engine: &str) -> Behavior {
        Behavior::results(
            engine,
            own_pages::RUST_TUTORIAL,
            &own_pages::rust_tutorial(engine),
        )
    }

    /// `engine`'s answer to [`own_pages::NEWS`] (`google_news`, `brave_api`
    /// or `wikipedia`).
    pub fn news(engine: &str) -> Behavior {
        Behavior::results(engine, own_pages::NEWS, &own_pages::news(engine))
    }

    /// `engine`'s results page for `query` listing `hits`, in its markup.
    pub fn results(engine: &str, query: &str, hits: &[own_pages::Hit]) -> Behavior {
        Behavior::own(own_pages::results(engine, query, hits))
    }

    /// A body of text with a content type.
    pub fn page(body: impl Into<String>, content_type: &str) -> Behavior {
        Behavior::Page {
            body: Bytes::from(body.into()),
            content_type: content_type.into(),
        }
    }
}

/// A running loopback engine; stops when dropped.
#[derive(Debug)]
pub struct LoopbackEngine {
    /// Where it listens.
    pub addr: SocketAddr,
    hits: Arc<AtomicUsize>,
    last_uri: Arc<Mutex<Option<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl LoopbackEngine {
    /// Starts a server on an ephemeral loopback port.
    pub async fn spawn(behavior: Behavior) -> LoopbackEngine {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let hits = Arc::new(AtomicUsize::new(0));
        let last_uri = Arc::new(Mutex::new(None));
        let behavior = Arc::new(behavior);
        let (h, l) = (hits.clone(), last_uri.clone());
        let app = axum::Router::new().fallback(move |req: Request<Body>| {
            let behavior = behavior.clone();
            h.fetch_add(1, Ordering::SeqCst);
            *l.lock().unwrap() = Some(req.uri().to_string());
            async move { respond(&behavior, req.uri().to_string()).await }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        LoopbackEngine {
            addr,
            hits,
            last_uri,
            task,
        }
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests served so far (redirect hops count).
    pub fn requests(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// Path and query of the last request.
    pub fn last_uri(&self) -> Option<String> {
        self.last_uri.lock().unwrap().clone()
    }
}

impl Drop for LoopbackEngine {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn respond(behavior: &Behavior, uri: String) -> Response<Body> {
    let mut behavior = behavior;
    while let Behavior::Delayed(wait, inner) = behavior {
        tokio::time::sleep(*wait).await;
        behavior = inner;
    }
    let mut response = match behavior {
        Behavior::Page { body, content_type } => {
            let mut r = Response::new(Body::from(body.clone()));
            if let Ok(v) = HeaderValue::from_str(content_type) {
                r.headers_mut().insert(header::CONTENT_TYPE, v);
            }
            r
        }
        Behavior::Status(code) => {
            let mut r = Response::new(Body::from(format!("status {code}")));
            *r.status_mut() = StatusCode::from_u16(*code).unwrap_or(StatusCode::IM_A_TEAPOT);
            r
        }
        Behavior::Hang => {
            std::future::pending::<()>().await;
            unreachable!("pending never completes")
        }
        Behavior::Trickle { chunk, every } => {
            let (chunk, every) = (chunk.clone(), *every);
            let stream = futures::stream::unfold((), move |()| {
                let chunk = chunk.clone();
                async move {
                    tokio::time::sleep(every).await;
                    Some((Ok::<_, std::io::Error>(chunk), ()))
                }
            });
            html(Body::from_stream(stream))
        }
        Behavior::Huge { bytes } => html(Body::from_stream(zeros(*bytes))),
        Behavior::HugeDeclared { bytes } => {
            let mut r = html(Body::from_stream(zeros(*bytes)));
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(*bytes));
            r
        }
        Behavior::RedirectLoop => {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::FOUND;
            if let Ok(v) = HeaderValue::from_str(&uri) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            r
        }
        Behavior::Delayed(..) => unreachable!("unwrapped above"),
    };
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    response
}

fn html(body: Body) -> Response<Body> {
    let mut r = Response::new(body);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

/// `bytes` of `<` in 64 KiB chunks, made lazily so a gigabyte costs nothing
/// until someone reads it.
fn zeros(bytes: u64) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    const CHUNK: u64 = 64 * 1024;
    let block = Bytes::from(vec![b'<'; CHUNK as usize]);
    futures::stream::unfold(bytes, move |left| {
        let block = block.clone();
        async move {
            if left == 0 {
                return None;
            }
            let n = left.min(CHUNK);
            Some((Ok(block.slice(..n as usize)), left - n))
        }
    })
}

/// The crate root.
/// An empty scratch folder `metasift-TAG-PID` under the system's temporary
/// folder (emptied first if an earlier run left it).
pub fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("metasift-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Bytes of the saved page `serp/<rel>` of the data folder `root`.
pub fn saved_page(root: &Path, rel: &str) -> Vec<u8> {
    let path = root.join("serp").join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("saved page {}: {e}", path.display()))
}

/// Writes a folder laid out like the data folder's `serp/` under `dir`:
/// each `(engine, query, page)` as `engine/ours_<query>.<ext>`, and an
/// `index.json` of `{file, engine, query, kind, format}` naming them (what
/// `--replay` and `import_saved_pages` read). Returns `dir`.
pub fn write_serp_folder(dir: &Path, pages: &[(&str, &str, own_pages::Page)]) -> PathBuf {
    let mut index = Vec::new();
    for (engine, query, page) in pages {
        let (ext, format) = match page.content_type {
            t if t.starts_with("application/json") => ("json", "json"),
            t if t.contains("xml") => ("rss.xml", "rss"),
            _ => ("html", "html"),
        };
        let slug: String = query
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '-' })
            .collect();
        let file = format!("{engine}/ours_{slug}.{ext}");
        std::fs::create_dir_all(dir.join(engine)).unwrap();
        std::fs::write(dir.join(&file), &page.body).unwrap();
        index.push(serde_json::json!({
            "file": file, "engine": engine, "query": query,
            "kind": "results", "format": format,
        }));
    }
    std::fs::write(
        dir.join("index.json"),
        serde_json::to_vec_pretty(&index).unwrap(),
    )
    .unwrap();
    dir.to_path_buf()
}

/// The six engines' pages of the load script, the web and fan-out benches
/// and the tools: the saved `javascript tutorial` pages
/// ([`pages::JS_PAGES`], ≈ 1.9 MB of real HTML) when the team's data folder
/// is there, else our `rust tutorial` pages of the same engines; says which
/// on stderr (the figures of the two are not comparable). Each is (shipped
/// preset, body, content type).
pub fn js_pages() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    match metasift_data::root() {
        Some(root) => {
            eprintln!(
                "pages: the saved javascript tutorial pages of {}",
                root.display()
            );
            pages::JS_PAGES
                .iter()
                .map(|(name, rel)| {
                    let ct = content_type_for(Path::new(rel));
                    (*name, saved_page(&root, rel), ct)
                })
                .collect()
        }
        None => {
            eprintln!(
                "pages: our own rust tutorial pages (tests/support/own_pages.rs); {}",
                metasift_data::ABSENT
            );
            own_pages::RUST_ENGINES
                .iter()
                .map(|name| {
                    let page = own_pages::results(
                        name,
                        own_pages::RUST_TUTORIAL,
                        &own_pages::rust_tutorial(name),
                    );
                    (*name, page.body.into_bytes(), page.content_type)
                })
                .collect()
        }
    }
}

/// A content type from a file extension.
pub fn content_type_for(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => "application/json; charset=utf-8",
        Some("xml") | Some("rss") => "application/rss+xml; charset=utf-8",
        Some("atom") => "application/atom+xml; charset=utf-8",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "text/html; charset=utf-8",
    }
}

/// The shipped `engines.toml`, loaded and validated.
pub fn shipped_config() -> Config {
    Config::load(&crate_dir().join("engines.toml")).expect("the shipped engines.toml loads")
}

/// `template` with its scheme and host replaced by `base`
/// (`http://127.0.0.1:PORT`); path, query string and placeholders stay.
pub fn rehost(template: &str, base: &str) -> String {
    let after_scheme = template.find("://").map_or(0, |i| i + 3);
    let path_start = template[after_scheme..]
        .find(['/', '?'])
        .map_or(template.len(), |i| after_scheme + i);
    format!("{base}{}", &template[path_start..])
}

/// DuckDuckGo and Bing, the engines of the web tests
/// (`tests/data/web_engines.toml`), for [`point_at`] to aim at loopback servers.
pub fn web_engines() -> Config {
    let path = crate_dir().join("tests/data/web_engines.toml");
    Config::load(&path).expect("tests/data/web_engines.toml loads")
}

/// Points engine `name` of `config` at `base` and enables it; panics when
/// the config has no such engine (a preset was renamed: fix the test).
pub fn point_at(config: &mut Config, name: &str, base: &str) {
    let engine = config
        .engines
        .iter_mut()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no engine {name:?} in the config"));
    engine.url = rehost(&engine.url, base);
    if let Some(f) = &mut engine.follow {
        f.url = rehost(&f.url, base);
    }
    engine.enabled = true;
}

/// Points the second call of the two-call preset `name` (`[engine.follow]`:
/// PubMed's summary, Wikidata's entities) at `base`, a server of its own.
pub fn point_follow_at(config: &mut Config, name: &str, base: &str) {
    let engine = config
        .engines
        .iter_mut()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no engine {name:?} in the config"));
    let follow = engine
        .follow
        .as_mut()
        .unwrap_or_else(|| panic!("{name:?} makes no second call"));
    follow.url = rehost(&follow.url, base);
}

/// Keeps only the named engines of `config` (in the order given), so a test
/// asks exactly the loopback servers it started.
pub fn keep_only(config: &mut Config, names: &[&str]) {
    let mut kept = Vec::new();
    for name in names {
        let e = config
            .engines
            .iter()
            .find(|e| e.name == *name)
            .unwrap_or_else(|| panic!("no engine {name:?} in the config"))
            .clone();
        kept.push(e);
    }
    config.engines = kept;
    // The shipped autocomplete source goes with its engine: a config naming
    // an engine it lacks is refused by `serve` and `check-config`.
    if config
        .server
        .autocomplete
        .as_ref()
        .is_some_and(|a| !names.contains(&a.as_str()))
    {
        config.server.autocomplete = None;
    }
}

/// Whether tests must fail rather than skip when an outside program is
/// missing.
pub fn services_required() -> bool {
    std::env::var("METASIFT_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

/// A minimal engine for tests that must not depend on a real site's
/// markup: it asks `{base}/search?q={query}&p={page}` and reads a
/// SearXNG-like JSON body `{"results": [{"url", "title", "content"}],
/// "suggestions": [..]}`. A body mentioning "captcha" is a blocked page.
#[derive(Debug, Clone)]
pub struct TestEngine {
    config: EngineConfig,
}

impl TestEngine {
    /// An engine named `name` answering at `base` (`http://127.0.0.1:PORT`).
    pub fn new(name: &str, base: &str) -> TestEngine {
        TestEngine {
            config: test_engine_config(name, base),
        }
    }

    /// An engine over a ready configuration (its `url` is used as is).
    pub fn from_config(config: EngineConfig) -> TestEngine {
        TestEngine { config }
    }
}

/// The `[[engine]]` table of a [`TestEngine`].
pub fn test_engine_config(name: &str, base: &str) -> EngineConfig {
    let table = format!(
        "name = {name:?}\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}&p={{page}}\"\n"
    );
    toml::from_str(&table).expect("a valid engine table")
}

impl Engine for TestEngine {
    fn config(&self) -> &EngineConfig {
        &self.config
    }

    fn build_request(&self, query: &Query) -> RequestSpec {
        let q: String = url::form_urlencoded::byte_serialize(query.text.as_bytes()).collect();
        let url = self
            .config
            .url
            .replace("{query}", &q)
            .replace("{page}", &query.page.to_string())
            .replace(
                "{offset}",
                &((query.page.max(1) - 1) * self.config.page_size).to_string(),
            )
            .replace("{lang}", query.lang.as_deref().unwrap_or("en"));
        RequestSpec {
            url,
            headers: self
                .config
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    fn parse(&self, body: &str) -> Result<Parsed, ParseError> {
        if body.to_ascii_lowercase().contains("captcha") {
            return Err(ParseError::Blocked("a CAPTCHA page".into()));
        }
        let v: serde_json::Value =
            serde_json::from_str(body).map_err(|e| ParseError::Invalid(e.to_string()))?;
        let items = v["results"]
            .as_array()
            .ok_or_else(|| ParseError::Invalid("no results list".into()))?;
        let text =
            |item: &serde_json::Value, key: &str| item[key].as_str().unwrap_or("").to_string();
        let hits = items
            .iter()
            .map(|item| Hit {
                url: text(item, "url"),
                title: text(item, "title"),
                snippet: text(item, "content"),
                ..Hit::default()
            })
            .collect();
        let suggestions = v["suggestions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Parsed {
            hits,
            suggestions,
            estimate: None,
            ..Parsed::default()
        })
    }
}

/// A [`TestEngine`] answer body listing `(url, title, content)` records.
pub fn test_page(results: &[(&str, &str, &str)]) -> Behavior {
    let results: Vec<serde_json::Value> = results
        .iter()
        .map(|(u, t, c)| serde_json::json!({"url": u, "title": t, "content": c}))
        .collect();
    Behavior::page(
        serde_json::json!({ "results": results, "suggestions": [] }).to_string(),
        "application/json",
    )
}

/// The engine kind a [`TestEngine`] claims (it is not built from it).
pub const TEST_ENGINE_KIND: EngineKind = EngineKind::Searxng;
