//! Loopback member engines that fail on command, and the configurations
//! and requests the `ops_serve_*` tests share. Include it with
//!
//! ```ignore
//! #[path = "support/ops_app.rs"]
//! mod ops_app;
//! ```

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use tower::ServiceExt;

/// A member engine whose HTTP status can be changed while it runs; 200
/// answers a SearXNG-style JSON page naming the query.
pub struct Switchable {
    addr: std::net::SocketAddr,
    status: Arc<AtomicU16>,
    hits: Arc<AtomicUsize>,
    pub delay_ms: Arc<AtomicU16>,
    task: tokio::task::JoinHandle<()>,
}

impl Switchable {
    pub async fn spawn(tag: &'static str) -> Switchable {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let status = Arc::new(AtomicU16::new(200));
        let hits = Arc::new(AtomicUsize::new(0));
        let delay_ms = Arc::new(AtomicU16::new(0));
        let (s, h, d) = (status.clone(), hits.clone(), delay_ms.clone());
        let app = axum::Router::new().fallback(move |req: Request<Body>| {
            let (s, h, d) = (s.clone(), h.clone(), d.clone());
            async move {
                h.fetch_add(1, Ordering::SeqCst);
                let delay = d.load(Ordering::SeqCst);
                if delay > 0 {
                    tokio::time::sleep(Duration::from_millis(u64::from(delay))).await;
                }
                let code = s.load(Ordering::SeqCst);
                let q = req.uri().query().unwrap_or("").to_string();
                let body = serde_json::json!({
                    "results": (1..=5).map(|i| serde_json::json!({
                        "url": format!("https://{tag}.example/{i}?{q}"),
                        "title": format!("{tag} result {i}"),
                        "content": format!("Snippet {i} from {tag}, for testing.")
                    })).collect::<Vec<_>>()
                });
                (
                    StatusCode::from_u16(code).unwrap(),
                    [(header::CONTENT_TYPE, "application/json")],
                    body.to_string(),
                )
            }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Switchable {
            addr,
            status,
            hits,
            delay_ms,
            task,
        }
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn set(&self, code: u16) {
        self.status.store(code, Ordering::SeqCst);
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

impl Drop for Switchable {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// An `engines.toml` text over these (name, base URL) engines.
pub fn config_text(engines: &[(&str, String)], extra: &str) -> String {
    // The whole configuration, not laid over the built-in engines.
    let mut text = format!("use_defaults = false\n[server]\ndeadline_ms = 1500\n{extra}\n",);
    for (name, base) in engines {
        text.push_str(&format!(
            "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}&p={{page}}\"\ntimeout_ms = 1500\n\n"
        ));
    }
    text
}

pub fn config(engines: &[(&str, String)], extra: &str) -> Config {
    Config::parse(&config_text(engines, extra), Path::new("test.toml")).expect("valid test config")
}

pub async fn get(app: &axum::Router, uri: &str) -> (StatusCode, axum::http::HeaderMap, String) {
    send(app, "GET", uri, "").await
}

pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "metasift-ops-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One request with an optional form body; status, headers, body.
pub async fn send(
    app: &axum::Router,
    method: &str,
    uri: &str,
    form: &str,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let mut request = Request::builder().method(method).uri(uri);
    if !form.is_empty() {
        request = request.header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    }
    let response = app
        .clone()
        .oneshot(request.body(Body::from(form.to_string())).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = axum::body::to_bytes(response.into_body(), 8 << 20)
        .await
        .unwrap();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}
