//! The finished `/lab` runs kept in memory for their `results.csv` link
//! ([`KEPT_RESULTS`] of them, under an id nobody can guess): an upload
//! cannot be recomputed from a URL.

use std::collections::VecDeque;
use std::sync::{LazyLock, Mutex};

use axum::extract::RawQuery;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Finished runs kept for their `results.csv` link.
pub(super) const KEPT_RESULTS: usize = 32;

static KEPT: LazyLock<Mutex<VecDeque<(String, String)>>> =
    LazyLock::new(|| Mutex::new(VecDeque::new()));

/// An id nobody can guess from the previous one.
pub(super) fn rand_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

pub(super) fn keep(id: &str, csv: String) {
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() >= KEPT_RESULTS {
        kept.pop_front();
    }
    kept.push_back((id.to_string(), csv));
}

/// The `results.csv` of a kept run.
pub(super) fn kept_csv(id: &str) -> Option<String> {
    let kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    kept.iter().find(|(k, _)| k == id).map(|(_, v)| v.clone())
}

/// `GET /lab/results.csv?id=…`: a kept run's rows.
pub(crate) async fn results_csv(RawQuery(raw): RawQuery) -> Response {
    let raw = raw.unwrap_or_default();
    let id = url::form_urlencoded::parse(raw.as_bytes())
        .find(|(k, _)| k == "id")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    match kept_csv(&id) {
        Some(csv) => (
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                (
                    header::CONTENT_DISPOSITION,
                    "attachment; filename=\"results.csv\"",
                ),
                (header::CACHE_CONTROL, "private, no-store"),
            ],
            csv,
        )
            .into_response(),
        None => {
            let msg = super::super::ui::Msg::new("lab-kept-missing")
                .arg("id", format!("{id:?}"))
                .arg("n", KEPT_RESULTS)
                .text(&super::super::error::reader().tr)
                + "\n";
            (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                msg,
            )
                .into_response()
        }
    }
}
