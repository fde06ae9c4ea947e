//! Results of every SearXNG result template, for the tests of the page
//! that renders them (`web_cards.rs`, `browser_cards.rs`): loopback engines
//! answering in SearXNG's own JSON shape — each result with its `template`
//! and that template's fields, plus `infoboxes` and `answers` — answers we
//! wrote, read by [`ShapedEngine`] (SearXNG's keys are the model's serde
//! names, so the fields are read as the model names them), and loopback
//! picture servers for the thumbnails the page shows through `/image_proxy`.
//!
//! One engine per category: `commons` (images), `tube` (videos), `scholar`
//! (science), `crates` (it), `places` (map), `wiki` (general: a web result,
//! an infobox and a direct answer); with `hostile`, `evil` (general) answers
//! every template with hostile field values. Include it after `support`
//! with
//!
//! ```ignore
//! #[path = "support/cards.rs"]
//! mod cards;
//! ```

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use metasift::config::{Config, EngineConfig};
use metasift::engines::{Engine, Hit, ParseError, Parsed, RequestSpec};
use metasift::model::{Answer, Extra, Infobox, Query};
use metasift::search::Searcher;
use serde_json::{Value, json};

use crate::support::{Behavior, LoopbackEngine};

/// Reads SearXNG's `format=json` answer whole: each result's link, title,
/// snippet, date, thumbnail and template fields, the infoboxes and the
/// answers — what a member engine of these kinds gives the page.
#[derive(Debug, Clone)]
pub struct ShapedEngine {
    config: EngineConfig,
}

impl Engine for ShapedEngine {
    fn config(&self) -> &EngineConfig {
        &self.config
    }

    fn build_request(&self, query: &Query) -> RequestSpec {
        let q: String = url::form_urlencoded::byte_serialize(query.text.as_bytes()).collect();
        RequestSpec {
            url: self.config.url.replace("{query}", &q),
            headers: Vec::new(),
        }
    }

    fn parse(&self, body: &str) -> Result<Parsed, ParseError> {
        let v: Value =
            serde_json::from_str(body).map_err(|e| ParseError::Invalid(e.to_string()))?;
        let text = |item: &Value, key: &str| item[key].as_str().map(str::to_string);
        let hits = v["results"]
            .as_array()
            .ok_or_else(|| ParseError::Invalid("no results list".into()))?
            .iter()
            .map(|item| Hit {
                url: text(item, "url").unwrap_or_default(),
                title: text(item, "title").unwrap_or_default(),
                snippet: text(item, "content").unwrap_or_default(),
                published: text(item, "publishedDate"),
                thumbnail: text(item, "thumbnail"),
                extra: item
                    .get("template")
                    .and_then(|_| serde_json::from_value::<Extra>(item.clone()).ok())
                    .map(Box::new),
                ..Hit::default()
            })
            .collect();
        let list = |key: &str| v[key].as_array().cloned().unwrap_or_default();
        Ok(Parsed {
            hits,
            infoboxes: list("infoboxes")
                .into_iter()
                .filter_map(|b| serde_json::from_value::<Infobox>(b).ok())
                .collect(),
            answers: list("answers")
                .into_iter()
                .filter_map(|a| serde_json::from_value::<Answer>(a).ok())
                .collect(),
            ..Parsed::default()
        })
    }
}

/// A `width` × `height` PNG shading from `from` to `to` (left to right,
/// lighter downwards): pictures a person can tell apart on a screenshot.
/// Written whole here (stored deflate blocks), no crate needed.
pub fn png(width: u32, height: u32, from: [u8; 3], to: [u8; 3]) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    }
    let mut raw = Vec::new();
    for y in 0..height {
        raw.push(0); // no filter
        for x in 0..width {
            for c in 0..3 {
                let t = x as f64 / (width.max(2) - 1) as f64;
                let v = from[c] as f64 * (1.0 - t) + to[c] as f64 * t;
                let light = 0.35 * y as f64 / height.max(1) as f64;
                raw.push((v + (255.0 - v) * light) as u8);
            }
        }
    }
    let mut z = vec![0x78, 0x01];
    for (i, block) in raw.chunks(65_535).enumerate() {
        let last = (i + 1) * 65_535 >= raw.len();
        z.push(u8::from(last));
        z.extend_from_slice(&(block.len() as u16).to_le_bytes());
        z.extend_from_slice(&(!(block.len() as u16)).to_le_bytes());
        z.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &header);
    chunk(&mut out, b"IDAT", &z);
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The colours of the picture servers.
const SHADES: [([u8; 3], [u8; 3]); 4] = [
    ([222, 165, 132], [183, 65, 14]),
    ([120, 170, 220], [20, 60, 140]),
    ([150, 210, 150], [30, 110, 60]),
    ([230, 200, 120], [140, 90, 20]),
];

/// The DOI of the first paper.
pub const DOI: &str = "10.48550/arXiv.1706.03762";

/// What each engine answers, given the picture servers' base URLs.
fn answers(pics: &[String]) -> Vec<(&'static str, &'static str, Value)> {
    let pic = |i: usize, path: &str| format!("{}/{path}", pics[i % pics.len()]);
    let images: Vec<Value> = [
        ("Ferris the crab, Rust's mascot", "1200x800"),
        ("Rust logo in black", "512x512"),
        ("Rusty iron chain", "4000x3000"),
        ("Rust on a steel beam", "1920x1280"),
        ("Corroded bolt close-up", "2048x1365"),
        ("Rust-coloured autumn leaves", "3264x2448"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (title, res))| {
        json!({
            "url": format!("https://commons.wikimedia.org/wiki/File:Rust_{i}.jpg"),
            "title": title, "content": "",
            "template": "images.html",
            "img_src": pic(i, &format!("full/{i}.png")),
            "thumbnail_src": pic(i, &format!("thumb/{i}.png")),
            "resolution": res, "source": "Wikimedia Commons",
            "author": "A photographer",
        })
    })
    .collect();
    let videos = vec![
        json!({
            "url": "https://framatube.org/w/9c9de5e8-0a1e-484a-b099-e80766180a6d",
            "title": "Rust in 100 seconds", "template": "videos.html",
            "content": "A quick tour of the Rust programming language: ownership, borrowing, cargo.",
            "thumbnail": pic(0, "video/0.png"), "length": "PT1M47S", "author": "Fireship",
            "publishedDate": "2021-09-20T00:00:00Z",
            "iframe_src": "https://evil.example/embed/0",
        }),
        json!({
            "url": "https://framatube.org/w/aa11", "title": "Learning Rust ownership the hard way",
            "template": "videos.html",
            "content": "A long talk about lifetimes, borrowing and the borrow checker.",
            "thumbnail": pic(1, "video/1.png"), "length": "3723", "author": "RustConf",
            "iframe_src": "https://www.youtube-nocookie.com/embed/abc",
        }),
        json!({
            "url": "https://framatube.org/w/bb22", "title": "Async Rust explained",
            "template": "videos.html", "content": "Futures, executors and pinning.",
            "thumbnail": pic(2, "video/2.png"), "length": "25:04",
        }),
    ];
    let papers = vec![
        json!({
            "url": "https://arxiv.org/abs/1706.03762", "title": "Attention Is All You Need",
            "template": "paper.html",
            "content": "The dominant sequence transduction models are based on complex recurrent or convolutional neural networks.",
            "authors": ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit",
                        "Llion Jones", "Aidan N. Gomez", "Łukasz Kaiser", "Illia Polosukhin"],
            "journal": "Advances in Neural Information Processing Systems", "volume": "30",
            "doi": DOI, "pdf_url": "https://arxiv.org/pdf/1706.03762",
            "publishedDate": "2017-06-12T17:57:34Z",
        }),
        json!({
            "url": "https://doi.org/10.1145/3385412.3386036",
            "title": "RustBelt meets relaxed memory", "template": "paper.html",
            "content": "The Rust programming language supports safe systems programming by means of a strong ownership-tracking type system.",
            "authors": ["Hoang-Hai Dang", "Jacques-Henri Jourdan"],
            "journal": "Proceedings of the ACM on Programming Languages",
            "doi": "https://doi.org/10.1145/3385412.3386036", "publishedDate": "2020-01-01",
        }),
    ];
    let packages = vec![
        json!({
            "url": "https://crates.io/crates/serde", "title": "serde", "template": "packages.html",
            "content": "A generic serialization/deserialization framework",
            "package_name": "serde", "version": "1.0.228", "license": "MIT OR Apache-2.0",
            "homepage": "https://serde.rs", "source_code_url": "https://github.com/serde-rs/serde",
            "maintainer": "dtolnay", "popularity": "712,345,678 downloads",
            "tags": ["serde", "serialization", "no_std"],
        }),
        json!({
            "url": "https://crates.io/crates/tokio", "title": "tokio", "template": "packages.html",
            "content": "An event-driven, non-blocking I/O platform for writing asynchronous I/O backed applications.",
            "package_name": "tokio", "version": "1.54.1", "license": "MIT",
            "homepage": "https://tokio.rs", "source_code_url": "https://github.com/tokio-rs/tokio",
        }),
    ];
    let places = vec![
        json!({
            "url": "https://www.openstreetmap.org/way/5013364", "title": "Tour Eiffel",
            "template": "map.html", "content": "Tower, attraction",
            "latitude": "48.8582599", "longitude": "2.2945006",
            "boundingbox": ["48.8574753", "48.8590453", "2.2933119", "2.2956897"],
            "address": {"name": "Tour Eiffel", "road": "Avenue Gustave Eiffel", "house_number": "5",
                        "locality": "Paris", "postcode": "75007", "country": "France",
                        "country_code": "fr"},
        }),
        json!({
            "url": "https://www.openstreetmap.org/relation/71525", "title": "Paris",
            "template": "map.html", "content": "City, Île-de-France, France",
            "latitude": "48.8534951", "longitude": "2.3483915",
            "boundingbox": ["48.8155755", "48.9021560", "2.2241220", "2.4697602"],
            "address": {"locality": "Paris", "country": "France"},
        }),
    ];
    let wiki = json!({
        "results": [{
            "url": "https://www.rust-lang.org/", "title": "Rust Programming Language",
            "content": "A language empowering everyone to build reliable and efficient software.",
        }],
        "infoboxes": [{
            "infobox": "Rust", "id": "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            "content": "Rust is a general-purpose programming language emphasizing performance, type safety and concurrency.",
            "img_src": pic(0, "infobox/rust.png"),
            "attributes": [
                {"label": "Paradigms", "value": "multi-paradigm: concurrent, functional, generic, imperative"},
                {"label": "Designed by", "value": "Graydon Hoare"},
                {"label": "First appeared", "value": "July 7, 2010"},
                {"label": "Typing discipline", "value": "affine, inferred, nominal, static, strong"},
            ],
            "urls": [
                {"title": "Official website", "url": "https://www.rust-lang.org/"},
                {"title": "Wikipedia", "url": "https://en.wikipedia.org/wiki/Rust_(programming_language)"},
                {"title": "Wikidata", "url": "https://www.wikidata.org/wiki/Q575650"},
            ],
            "engine": "wiki",
        }],
        "answers": [{
            "answer": "Rust is a multi-paradigm, general-purpose programming language.",
            "url": "https://en.wikipedia.org/wiki/Rust_(programming_language)", "engine": "wiki",
        }],
    });
    vec![
        ("commons", "images", json!({ "results": images })),
        ("tube", "videos", json!({ "results": videos })),
        ("scholar", "science", json!({ "results": papers })),
        ("crates", "it", json!({ "results": packages })),
        ("places", "map", json!({ "results": places })),
        ("wiki", "general", wiki),
    ]
}

/// Every template with hostile values: links that run script, markup in
/// text, a DOI that closes the attribute, an engine's own player, numbers
/// that are not coordinates.
fn hostile_answer() -> Value {
    let evil = "\"><script>alert(1)</script>";
    json!({
        "results": [
            {"url": "https://evil.example/package", "title": format!("package {evil}"), "template": "packages.html",
             "content": evil, "package_name": evil, "version": evil, "license": evil,
             "homepage": "javascript:alert(1)", "source_code_url": "data:text/html,<script>alert(1)</script>"},
            {"url": "https://evil.example/paper", "title": "paper", "template": "paper.html",
             "authors": [evil, "<img src=x onerror=alert(1)>"], "journal": evil,
             "doi": "10.1/\"><script>alert(1)</script>", "pdf_url": "javascript:alert(1)"},
            {"url": "https://evil.example/video", "title": "video", "template": "videos.html",
             "thumbnail": "javascript:alert(1)", "length": evil,
             "iframe_src": "https://evil.example/player"},
            {"url": "https://evil.example/place", "title": "place", "template": "map.html",
             "latitude": "NaN", "longitude": "1e999", "address": {"road": evil}},
            {"url": "https://evil.example/image", "title": "image", "template": "images.html",
             "img_src": "javascript:alert(1)", "thumbnail_src": "data:image/png;base64,AAAA",
             "resolution": evil, "source": evil},
        ],
        "infoboxes": [{
            "infobox": evil, "id": "x", "content": evil, "img_src": "javascript:alert(1)",
            "attributes": [{"label": evil, "value": evil}],
            "urls": [{"title": evil, "url": "javascript:alert(1)"},
                     {"title": "ok", "url": "https://ok.example/"}],
            "engine": "evil",
        }],
        "answers": [{"answer": evil, "url": "javascript:alert(1)", "engine": "evil"}],
    })
}

/// The engines, the picture servers and the configuration that asks them.
pub struct Cards {
    /// Every engine's table, pointed at its loopback server.
    pub config: Config,
    /// The engines as the searcher runs them.
    pub engines: Vec<Arc<dyn Engine>>,
    /// The loopback servers (engines, then pictures); they stop when dropped.
    pub servers: Vec<LoopbackEngine>,
    /// The picture servers' base URLs.
    pub pictures: Vec<String>,
}

impl Cards {
    /// Starts the engines (with `hostile`, the `evil` engine too).
    pub async fn start(hostile: bool) -> Cards {
        let mut servers = Vec::new();
        let mut pictures = Vec::new();
        for (from, to) in SHADES {
            let server = LoopbackEngine::spawn(Behavior::Page {
                body: png(320, 213, from, to).into(),
                content_type: "image/png".into(),
            })
            .await;
            pictures.push(server.base_url());
            servers.push(server);
        }
        let mut list = answers(&pictures);
        if hostile {
            list.push(("evil", "general", hostile_answer()));
        }
        let mut text = String::from("use_defaults = false\n[server]\ndeadline_ms = 5000\n");
        for (name, category, body) in &list {
            let server =
                LoopbackEngine::spawn(Behavior::page(body.to_string(), "application/json")).await;
            text.push_str(&format!(
                "[[engine]]\nname = {name:?}\nkind = \"searxng\"\n\
                 url = \"{}/search?q={{query}}\"\ncategories = [{category:?}]\n",
                server.base_url()
            ));
            servers.push(server);
        }
        let config = Config::parse(&text, Path::new("cards.toml")).expect("a valid config");
        let engines = config
            .engines
            .iter()
            .map(|c| Arc::new(ShapedEngine { config: c.clone() }) as Arc<dyn Engine>)
            .collect();
        Cards {
            config,
            engines,
            servers,
            pictures,
        }
    }

    /// A searcher over the engines.
    pub fn searcher(&self) -> Searcher {
        Searcher::with_engines(
            Arc::new(self.config.clone()),
            metasift::search::client_builder().build().unwrap(),
            self.engines.clone(),
        )
    }

    /// The app (no socket).
    pub fn app(&self) -> axum::Router {
        metasift::web::router(metasift::web::AppState::new(self.searcher()))
    }
}
