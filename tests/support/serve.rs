//! A `metasift serve` child process of the built binary, on a free
//! loopback port, for the tests that need the real server (signals, two
//! processes on one Redis, the browser tests). Include it with
//!
//! ```ignore
//! #[path = "support/serve.rs"]
//! mod serve;
//! ```

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

/// A `metasift serve` child process; killed when dropped.
pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Server {
    pub fn start(config: &Path) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_metasift"));
        command
            .args(["serve", "--config"])
            .arg(config)
            .args(["--bind", "127.0.0.1:0"]);
        Server::spawn(command)
    }

    /// Starts `command` (a `metasift serve … --bind 127.0.0.1:0`, perhaps
    /// wrapped in a shell that sets a `ulimit` and `exec`s it) and waits for
    /// its address.
    pub fn spawn(mut command: Command) -> Server {
        let mut child = command
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

    /// Sends the signal `name` (`HUP`, `TERM`, …) to the server.
    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{name}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
