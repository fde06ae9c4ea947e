//! A `/lab` client that leaves mid-sweep stops its sweep (#12): the sweep
//! must not go on burning CPU for a client that is gone.
//!
//! Alone in its test binary: it watches the process's sweep counters
//! (`lab::POINTS_EVALUATED`, `lab::ABANDONED_RUNS`), which no other test
//! moves here. It waits for events, not for wall time: the client leaves
//! once the sweep has evaluated a point, and the test waits until the run
//! reports itself abandoned; the sweep then has evaluated fewer points than
//! it holds, and evaluates none after. Nothing depends on how fast the
//! machine is, except that a 150-point sweep of 1,999 records cannot end in
//! the moment between its first point and the server noticing the close.

#[path = "support/lab_upload.rs"]
mod lab_upload;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Duration;

use metasift::config::Config;
use metasift::lab::{ABANDONED_RUNS, POINTS_EVALUATED};
use metasift::web::{self, AppState};

/// Polls `done` every 5 ms until it holds; panics naming `what` after 10
/// minutes (a bound against a hang, not a speed requirement).
fn wait_for(what: &str, done: impl Fn() -> bool) {
    for _ in 0..120_000 {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("still waiting for {what} after 10 minutes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lab_sweep_stops_when_its_client_goes_away() {
    let text = "use_defaults = false\n[limits]\nlab_per_minute = 0\n[[engine]]\nname = \"e\"\n\
                kind = \"searxng\"\nurl = \"http://127.0.0.1:9/search?q={query}\"\n";
    let config = Config::parse(text, Path::new("t.toml")).unwrap();
    let app = web::router(AppState::serving(config, None, None).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let limits = metasift::config::ConnectionsConfig::default();
    let server = tokio::spawn(async move {
        web::serve::serve(listener, app, &limits, std::future::pending()).await
    });
    // Just under the pair cap, three methods, 50 thresholds: 150 points,
    // each a dedup of 1,999 records.
    const POINTS: u64 = 150;
    let body = lab_upload::body(
        &[
            ("from", "0"),
            ("to", "1"),
            ("step", "0.0204"),
            ("method", "feature-code"),
            ("method", "simhash"),
            ("method", "rabin"),
        ],
        "sets.jsonl",
        &lab_upload::record_set("large", 1999),
    );
    let (points0, abandoned0) = (
        POINTS_EVALUATED.load(Ordering::SeqCst),
        ABANDONED_RUNS.load(Ordering::SeqCst),
    );
    let client = std::thread::spawn(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(
            format!(
                "POST /lab HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary={}\r\n\
                 Content-Length: {}\r\n\r\n",
                lab_upload::BOUNDARY,
                body.len()
            )
            .as_bytes(),
        )
        .unwrap();
        s.write_all(&body).unwrap();
        // The sweep has started; the client gives up.
        wait_for("the sweep's first point", || {
            POINTS_EVALUATED.load(Ordering::SeqCst) > points0
        });
        drop(s);
    });
    tokio::task::spawn_blocking(move || {
        client.join().unwrap();
        wait_for("the run to report itself abandoned", || {
            ABANDONED_RUNS.load(Ordering::SeqCst) > abandoned0
        });
    })
    .await
    .unwrap();
    // The run has returned: it stopped before its last point, and no
    // evaluation of it goes on.
    let done = POINTS_EVALUATED.load(Ordering::SeqCst) - points0;
    assert!(
        (1..POINTS).contains(&done),
        "{done} of {POINTS} points evaluated: the sweep went on after its client left"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(POINTS_EVALUATED.load(Ordering::SeqCst) - points0, done);
    server.abort();
}
