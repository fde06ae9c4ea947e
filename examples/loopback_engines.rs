//! Six loopback member engines answering real saved result pages, for load
//! tests (`scripts/load.sh`): each listens on 127.0.0.1, answers every
//! request with one saved page of `shared/data/serp/` (≈ 1.9 MB of HTML in
//! all, the `javascript tutorial` captures of 2026), and an `engines.toml`
//! pointing `metasift serve` at them is written.
//!
//! Run with
//!
//! ```text
//! cargo run --release --example loopback_engines -- --out /tmp/load/engines.toml --seconds 600
//! ```
//!
//! It prints `ready` once every engine listens and stops after `--seconds`
//! (a bounded run: a forgotten process cannot live on).

use std::path::PathBuf;
use std::time::Duration;

use axum::http::header;
use axum::response::IntoResponse;

/// Name, saved page (under `shared/data/serp/`) and `[engine.parse]` table.
const ENGINES: [(&str, &str, &str); 6] = [
    (
        "bing",
        "bing/wsmcp2026_javascript-tutorial_http.html",
        r##"results = "#b_results > li.b_algo"
title = "h2"
url = "h2 a@href"
snippet = ".b_caption p || .b_lineclamp2 || .b_lineclamp3 || .b_lineclamp4 || .b_algoSlug || .b_paractl || .b_dList""##,
    ),
    (
        "brave",
        "brave/wsmcp2026_javascript-tutorial.html",
        r##"results = "div.snippet[data-type=\"web\"]"
title = ".search-snippet-title || .title"
url = "a@href"
snippet = ".generic-snippet .content || .video-snippet .content .line-clamp-2 || .snippet-description""##,
    ),
    (
        "mojeek",
        "mojeek/wsmcp2026_javascript-tutorial.html",
        r##"results = "ul.results-standard > li"
title = "h2 a.title || h2"
url = "h2 a.title@href || a.ob@href"
snippet = "p.s""##,
    ),
    (
        "startpage",
        "startpage/wsmcp2026_javascript-tutorial_http.html",
        r##"results = "div.result"
title = "a.result-title h2 || a.result-title || h3"
url = "a.result-title@href || a.w-gl__result-url@href || a@href"
snippet = "p.description || p.w-gl__description""##,
    ),
    (
        "yahoo",
        "yahoo/wsmcp2026_javascript-tutorial.html",
        r##"results = "div.algo-sr, #web div.res"
title = "h3.title || h3"
url = ".compTitle a@href || h3 a@href"
snippet = ".compText || .abstr""##,
    ),
    (
        "ecosia",
        "ecosia/wsmcp2026_javascript-tutorial.html",
        r##"results = "[data-test-id=\"organic-result\"]"
title = ".result-title__heading || .result__title"
url = "a.result__link@href || a@href"
snippet = ".web-result__description || .result__description""##,
    ),
];

struct Args {
    out: PathBuf,
    seconds: u64,
    data: PathBuf,
    extra: String,
}

fn args() -> Result<Args, String> {
    let mut out = None;
    let mut seconds = 600;
    let mut data = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/serp"));
    let mut extra = String::new();
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--seconds" => seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--data" => data = PathBuf::from(value()?),
            // Extra TOML put before the engines ([server], [cache], [limits]).
            "--extra" => extra = value()?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Args {
        out: out.ok_or("--out FILE is required")?,
        seconds: seconds.clamp(1, 3600),
        data,
        extra,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let mut toml = format!("{}\n", args.extra.replace("\\n", "\n"));
    for (name, page, parse) in ENGINES {
        let path = args.data.join(page);
        let body = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let body = axum::body::Bytes::from(body);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let app =
            axum::Router::new().fallback(move || {
                let body = body.clone();
                async move {
                    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
                }
            });
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        toml.push_str(&format!(
            "[[engine]]\nname = \"{name}\"\nkind = \"html\"\nurl = \"http://{addr}/search?q={{query}}&p={{page}}\"\ntimeout_ms = 3000\n[engine.parse]\n{parse}\n\n"
        ));
    }
    std::fs::write(&args.out, toml)?;
    println!("ready");
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    Ok(())
}
