//! A loopback member engine that blocks like the real ones: it answers
//! while asked at most `limit` times in the last `window`, and past that
//! answers HTTP 429 (or a CAPTCHA page) — every request counts, blocked
//! ones too, so a client that keeps asking stays blocked. Used by
//! `tests/fleet.rs` and by the fleet measurement (`tools/src/bin/fleet.rs`).
//!
//! ```ignore
//! #[path = "support/blocking_engine.rs"]
//! mod blocking_engine;
//! ```

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

/// How a blocking engine says no.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// HTTP 429 with `Retry-After: 60`.
    TooManyRequests,
    /// HTTP 200 with this HTML page (a bot check: the preset's `blocked`
    /// markers must find it).
    Page(Bytes),
}

/// The answer to one query: content type and body.
pub type Answer = Arc<dyn Fn(&str) -> (&'static str, Bytes) + Send + Sync>;

/// A running blocking engine; stops when dropped.
pub struct BlockingEngine {
    /// Where it listens.
    pub addr: SocketAddr,
    requests: Arc<AtomicUsize>,
    blocked: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

/// The `q` parameter of a request, decoded.
pub fn query_of(uri: &Uri) -> String {
    uri.query()
        .and_then(|q| {
            url::form_urlencoded::parse(q.as_bytes())
                .find(|(k, _)| k == "q")
                .map(|(_, v)| v.into_owned())
        })
        .unwrap_or_default()
}

/// A SearXNG-shaped JSON answer with `n` results of their own per query.
pub fn json_results(n: usize) -> Answer {
    Arc::new(move |q: &str| {
        let slug: String = q
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let results: Vec<serde_json::Value> = (1..=n)
            .map(|i| {
                serde_json::json!({
                    "url": format!("https://example.org/{slug}/{i}"),
                    "title": format!("{q} — result {i}"),
                    "content": format!("About {q}, the {i}th page of it."),
                })
            })
            .collect();
        let body = serde_json::json!({ "results": results, "suggestions": [] }).to_string();
        ("application/json", Bytes::from(body))
    })
}

impl BlockingEngine {
    /// Starts one on an ephemeral loopback port: `answer` while asked at
    /// most `limit` times in the last `window`, `block` past it; each
    /// answer after `delay`.
    pub async fn spawn(
        limit: usize,
        window: Duration,
        block: Block,
        delay: Duration,
        answer: Answer,
    ) -> BlockingEngine {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let requests = Arc::new(AtomicUsize::new(0));
        let blocked = Arc::new(AtomicUsize::new(0));
        let seen: Arc<Mutex<VecDeque<Instant>>> = Arc::new(Mutex::new(VecDeque::new()));
        let (r, b) = (requests.clone(), blocked.clone());
        let app = axum::Router::new().fallback(move |uri: Uri| {
            let (r, b, seen, answer) = (r.clone(), b.clone(), seen.clone(), answer.clone());
            let block = block.clone();
            async move {
                r.fetch_add(1, Ordering::SeqCst);
                let over = {
                    let now = Instant::now();
                    let mut seen = seen.lock().unwrap();
                    while seen
                        .front()
                        .is_some_and(|t| now.duration_since(*t) >= window)
                    {
                        seen.pop_front();
                    }
                    seen.push_back(now);
                    seen.len() > limit
                };
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                if over {
                    b.fetch_add(1, Ordering::SeqCst);
                    return blocked_answer(&block);
                }
                let (content_type, body) = answer(&query_of(&uri));
                ([(header::CONTENT_TYPE, content_type)], body).into_response()
            }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        BlockingEngine {
            addr,
            requests,
            blocked,
            task,
        }
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }

    /// Requests answered with a block so far.
    pub fn blocked(&self) -> usize {
        self.blocked.load(Ordering::SeqCst)
    }
}

fn blocked_answer(block: &Block) -> Response {
    match block {
        Block::TooManyRequests => (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "60")],
            "too many requests",
        )
            .into_response(),
        Block::Page(body) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body.clone(),
        )
            .into_response(),
    }
}

impl Drop for BlockingEngine {
    fn drop(&mut self) {
        self.task.abort();
    }
}
