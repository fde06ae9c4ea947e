//! Headless Chromium for the browser tests, driven through the DevTools
//! protocol over `--remote-debugging-pipe` (JSON messages separated by NUL
//! on fds 3 and 4, wired to the child's stdin and stdout by `sh`), so no
//! crate and no download is needed; plus a `metasift serve` child process
//! and a temporary folder. Include it with
//!
//! ```ignore
//! #[path = "support/chromium.rs"]
//! mod chromium;
//! ```

// Each browser test uses a different part of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

#[path = "serve.rs"]
mod serve;
// Not every browser test starts `metasift serve` (browser_cards serves in-process).
#[allow(unused_imports)]
pub use serve::Server;

/// Chromium for the test file `test`, or `None` after a loud skip message
/// when it is not installed — a failure instead under
/// `METASIFT_REQUIRE_SERVICES=1`.
pub fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        if std::env::var("METASIFT_REQUIRE_SERVICES").is_ok_and(|v| v == "1") {
            panic!("chromium is required (METASIFT_REQUIRE_SERVICES=1) but not on PATH");
        }
        eprintln!(
            "\n!!!!! SKIPPED {test}: chromium is not installed (apt-get install chromium) !!!!!\n"
        );
    }
    found
}

pub fn find_chromium() -> Option<PathBuf> {
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

/// A headless Chromium spoken to over the DevTools pipe.
pub struct Browser {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    pending: Vec<Value>,
    next_id: u64,
    session: Option<String>,
    _profile: TempDir,
}

impl Browser {
    pub fn launch(chromium: &Path) -> Browser {
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

    pub fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.messages.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("chromium exited"),
        }
    }

    /// Sends a command (to the page session once attached) and waits for its
    /// answer; events met meanwhile are kept for [`Browser::wait_event`].
    pub fn call(&mut self, method: &str, params: Value) -> Value {
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

    /// Drops the `method` events already received, so that the next
    /// [`Browser::wait_event`] waits for one that comes after this call.
    pub fn forget_events(&mut self, method: &str) {
        self.pending.retain(|v| v["method"] != method);
    }

    pub fn wait_event(&mut self, method: &str) -> Value {
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

    pub fn eval(&mut self, expression: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true }),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expression}: {e}");
        }
        r["result"]["value"].clone()
    }

    pub fn navigate(&mut self, url: &str) {
        self.pending
            .retain(|v| v["method"] != "Page.loadEventFired");
        self.call("Page.navigate", json!({ "url": url }));
        self.wait_event("Page.loadEventFired");
    }

    /// A real left click in the middle of the first element matching `css`.
    pub fn click(&mut self, css: &str) {
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

    pub fn screenshot(&mut self, file: &Path, width: u32, height: u32, mobile: bool) {
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
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        // Unique per call: the tests run at once, and two Chromiums on one
        // profile folder make the second exit at start.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// Writes `config` whole (`use_defaults = false`: not laid over the
    /// built-in engines) as `engines.toml` in this folder; its path.
    pub fn whole_config(&self, mut config: metasift::config::Config) -> PathBuf {
        config.use_defaults = Some(false);
        let path = self.0.join("engines.toml");
        std::fs::write(&path, toml::to_string(&config).unwrap()).unwrap();
        path
    }
}

/// The folder a browser test saves its screenshots in
/// (`target/tmp/<name>/`), created.
pub fn screenshots(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
