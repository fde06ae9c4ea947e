//! Six loopback member engines answering real saved result pages, for load
//! tests (`scripts/load.sh`): each listens on 127.0.0.1, answers every
//! request with one saved page of `serp/` in the team's data folder
//! (`METASIFT_DATA`, else `../shared/data`; ≈ 1.9 MB of HTML in all, the
//! `javascript tutorial` captures of 2026; `--data DIR` for another such
//! folder), and an `engines.toml`
//! pointing `metasift serve` at them is written.
//!
//! Run with
//!
//! ```text
//! cargo run --release -p metasift-tools --bin loopback_engines -- --out /tmp/load/engines.toml --seconds 600
//! ```
//!
//! It prints `ready` once every engine listens and stops after `--seconds`
//! (a bounded run: a forgotten process cannot live on).

use std::path::PathBuf;
use std::time::Duration;

use axum::http::header;
use axum::response::IntoResponse;

/// Name of the shipped preset (`engines.toml`) and its saved page.
#[path = "../../../tests/support/pages.rs"]
mod pages;
use pages::JS_PAGES as ENGINES;

/// The `[[engine]]` tables written for `metasift serve`.
#[derive(serde::Serialize)]
struct Engines {
    engine: Vec<metasift::config::EngineConfig>,
}

struct Args {
    out: PathBuf,
    seconds: u64,
    data: PathBuf,
    extra: String,
    timeout_ms: u64,
}

fn args() -> Result<Args, String> {
    let mut out = None;
    let mut seconds = 600;
    let mut data = metasift_data::file("serp").unwrap_or_default();
    let mut extra = String::new();
    let mut timeout_ms = 3000;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--seconds" => seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--data" => data = PathBuf::from(value()?),
            // Extra TOML put before the engines ([server], [cache], [limits]).
            "--extra" => extra = value()?,
            // Each engine's timeout (3000 ms; longer under valgrind, where
            // the server runs ~50 times slower).
            "--timeout-ms" => {
                timeout_ms = value()?.parse().map_err(|e| format!("--timeout-ms: {e}"))?
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if data.as_os_str().is_empty() {
        return Err(format!("{} (or give --data DIR)", metasift_data::ABSENT));
    }
    Ok(Args {
        out: out.ok_or("--out FILE is required")?,
        seconds: seconds.clamp(1, 3600),
        data,
        extra,
        timeout_ms,
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    // The whole configuration: not laid over the built-in engines, which
    // would ask the real sites.
    let mut toml = format!(
        "use_defaults = false\n{}\n",
        args.extra.replace("\\n", "\n")
    );
    let shipped = metasift::config::Config::load(&PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engines.toml"
    )))?;
    let mut engines = Engines { engine: Vec::new() };
    for (name, page) in ENGINES {
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
        // The shipped preset as it is (selectors and block / no-results
        // markers), pointed at the loopback engine.
        let mut preset = shipped
            .engines
            .iter()
            .find(|e| e.name == name)
            .ok_or(format!("no preset {name:?} in engines.toml"))?
            .clone();
        preset.url = format!("http://{addr}/search?q={{query}}&p={{page}}");
        preset.timeout_ms = args.timeout_ms;
        preset.enabled = true;
        engines.engine.push(preset);
    }
    toml.push_str(&toml::to_string(&engines)?);
    std::fs::write(&args.out, toml)?;
    println!("ready");
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    Ok(())
}
