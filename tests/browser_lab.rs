//! A real browser on `/lab` of a real `metasift serve`: Debian's headless
//! Chromium loads the lab page of the built binary (on a free loopback port,
//! `[lab] data_dir` pointing at `tests/fixtures/lab`), picks the PAWS-X file,
//! narrows the sweep, clicks "Run the sweep" (a real mouse event, no script
//! submits the form), and reads the chart and the table from the rendered
//! DOM. A screenshot is saved under `target/tmp/browser/lab.png` for a person
//! to look at.
//!
//! The DevTools-pipe helpers are copied from `tests/browser.rs`.
//!
//! Skips with a loud message when `chromium` is missing, unless
//! `METASIFT_REQUIRE_SERVICES=1`. Run with `cargo test --test browser_lab`.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

fn find_chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// A `metasift serve` child process; killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(config: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_metasift"))
            .args(["serve", "--config"])
            .arg(config)
            .args(["--bind", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start metasift serve");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("listening on ") {
                    let _ = tx.send(url.trim_end_matches('/').to_string());
                }
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(base) => base,
            Err(e) => {
                let _ = child.kill();
                panic!("metasift serve did not report its address: {e}");
            }
        };
        Server { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium spoken to over the DevTools pipe.
struct Browser {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    pending: Vec<Value>,
    next_id: u64,
    session: Option<String>,
    _profile: TempDir,
}

impl Browser {
    fn launch(chromium: &Path) -> Browser {
        let profile = TempDir::new("chromium-profile");
        // fd 3 is what Chromium reads commands from, fd 4 where it writes
        // answers: map them onto our pipes.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 0</dev/null 1>/dev/null"#)
            .arg(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--no-first-run",
                "--no-default-browser-check",
                "--mute-audio",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.0.display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromium");
        let stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 64 * 1024];
            loop {
                match stdout.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
                while let Some(end) = buf.iter().position(|&b| b == 0) {
                    let msg: Vec<u8> = buf.drain(..=end).collect();
                    if let Ok(v) = serde_json::from_slice::<Value>(&msg[..msg.len() - 1])
                        && tx.send(v).is_err()
                    {
                        return;
                    }
                }
            }
        });
        let mut browser = Browser {
            child,
            stdin,
            messages: rx,
            pending: Vec::new(),
            next_id: 1,
            session: None,
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = target["targetId"]
            .as_str()
            .expect("a target id")
            .to_string();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({ "targetId": target_id, "flatten": true }),
        );
        browser.session = Some(attached["sessionId"].as_str().expect("a session").into());
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        browser
    }

    fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("chromium exited"),
        }
    }

    /// Sends a command (to the page session once attached) and waits for its
    /// answer; events met meanwhile are kept for [`Browser::wait_event`].
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.stdin.write_all(&bytes).expect("write to chromium");
        self.stdin.flush().expect("flush to chromium");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.recv(deadline);
            if v["id"] == json!(id) {
                if let Some(err) = v.get("error") {
                    panic!("{method} failed: {err}");
                }
                return v["result"].clone();
            }
            self.pending.push(v);
        }
    }

    fn wait_event(&mut self, method: &str) -> Value {
        if let Some(i) = self.pending.iter().position(|v| v["method"] == method) {
            return self.pending.remove(i);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let v = self.recv(deadline);
            if v["method"] == method {
                return v;
            }
        }
    }

    fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expression}: {e}");
        }
        r["result"]["value"].clone()
    }

    fn navigate(&mut self, url: &str) {
        self.pending
            .retain(|v| v["method"] != "Page.loadEventFired");
        self.call("Page.navigate", json!({ "url": url }));
        self.wait_event("Page.loadEventFired");
    }

    /// A real left click in the middle of the first element matching `css`.
    fn click(&mut self, css: &str) {
        let rect = self.eval(&format!(
            "(() => {{ const e = document.querySelector({css:?}); \
             if (!e) return null; e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); \
             return {{x: r.left + r.width / 2, y: r.top + r.height / 2}}; }})()"
        ));
        assert!(!rect.is_null(), "nothing matches {css}");
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": rect["x"], "y": rect["y"],
                        "button": "left", "clickCount": 1 }),
            );
        }
    }

    fn screenshot(&mut self, file: &Path, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height,
                    "deviceScaleFactor": 1, "mobile": mobile }),
        );
        let shot = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": false }),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("png data"))
            .expect("base64 png");
        std::fs::write(file, png).expect("write screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "{label}-{}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn services_required() -> bool {
    std::env::var("METASIFT_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

#[test]
fn chromium_runs_a_lab_sweep() {
    let Some(chromium) = find_chromium() else {
        if services_required() {
            panic!("chromium is required (METASIFT_REQUIRE_SERVICES=1) but not on PATH");
        }
        eprintln!(
            "\n!!!!! SKIPPED tests/browser_lab.rs: chromium is not installed (apt-get install chromium) !!!!!\n"
        );
        return;
    };
    let dir = TempDir::new("lab-serve");
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lab");
    let config = dir.0.join("engines.toml");
    std::fs::write(
        &config,
        format!(
            r#"
[server]
deadline_ms = 500
[lab]
data_dir = "{fixtures}"
[[engine]]
name = "nowhere"
kind = "json"
url = "http://127.0.0.1:9/?q={{query}}"
[engine.parse]
results = "/items"
title = "title"
url = "url"
snippet = "snippet"
"#
        ),
    )
    .expect("write config");
    let server = Server::start(&config);
    let mut browser = Browser::launch(&chromium);
    browser.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
    );
    browser.navigate(&format!("{}/lab", server.base));
    let offered = browser
        .eval("Array.from(document.querySelectorAll('#file option')).map(o => o.value).join(' ')");
    let offered = offered.as_str().unwrap_or_default().to_string();
    assert!(offered.contains("pawsx_zh_dev200.tsv"), "{offered}");
    assert!(offered.contains("stsb_en_dev200.tsv"), "{offered}");

    // Choose the file and a coarser range in the form's own controls.
    browser.eval(
        "document.querySelector('#file').value = 'pawsx_zh_dev200.tsv'; \
         document.querySelector('#from').value = '0.3'; \
         document.querySelector('#step').value = '0.1'; \
         document.querySelector('input[value=none]').checked = false; true",
    );
    browser
        .pending
        .retain(|v| v["method"] != "Page.loadEventFired");
    browser.click("#run");
    browser.wait_event("Page.loadEventFired");

    let state = browser.eval(
        "(() => ({ \
           svg: !!document.querySelector('#lab-chart svg polyline, #lab-chart svg path'), \
           rows: Array.from(document.querySelectorAll('#lab-rows tbody tr')) \
             .map(tr => Array.from(tr.cells).map(c => c.textContent)), \
           best: document.querySelectorAll('#lab-best tbody tr').length, \
           csv: document.querySelector('#csv') && document.querySelector('#csv').getAttribute('href'), \
           title: document.querySelector('#lab-run h2') && document.querySelector('#lab-run h2').textContent \
         }))()",
    );
    assert_eq!(state["svg"], json!(true), "no chart lines: {state}");
    let rows = state["rows"].as_array().expect("rows");
    // feature-code 7 thresholds, rabin 7, simhash up to 7; none unticked.
    assert!(rows.len() >= 14, "{state}");
    assert!(rows.iter().all(|r| r[0] != "none"), "{state}");
    assert_eq!(rows[0][0], "feature-code");
    assert_eq!(rows[0][1], "0.3");
    assert_eq!(state["best"], json!(3), "{state}");
    assert!(
        state["csv"]
            .as_str()
            .is_some_and(|h| h.starts_with("/lab/results.csv?id=")),
        "{state}"
    );
    assert_eq!(state["title"], json!("lab/pawsx_zh_dev200.tsv"));

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&shots).expect("screenshot dir");
    browser.screenshot(&shots.join("lab.png"), 1280, 1500, false);
    eprintln!("screenshot: {}", shots.join("lab.png").display());
}
