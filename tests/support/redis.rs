//! A real `redis-server` for tests: a free loopback port, no persistence, a
//! temporary directory, killed on drop.
//!
//! When `redis-server` is not installed the tests that need it skip with a
//! loud message, unless `METASIFT_REQUIRE_SERVICES=1` (CI), where a missing
//! server is a failure.

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`, stopped when dropped.
pub struct RedisServer {
    child: Child,
    port: u16,
    dir: PathBuf,
}

fn required() -> bool {
    std::env::var("METASIFT_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr").port()
}

/// Sends `PING` and expects `+PONG`.
pub fn ping(port: u16) -> bool {
    let Ok(mut s) =
        TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200))
    else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 16];
    matches!(s.read(&mut buf), Ok(n) if buf[..n].starts_with(b"+PONG"))
}

impl RedisServer {
    /// Starts a server on a free port; `None` (after a loud message) when
    /// `redis-server` is missing and services are not required.
    pub fn start(test: &str) -> Option<RedisServer> {
        RedisServer::start_on(test, free_port())
    }

    /// Starts a server on `port` (to restart one where clients expect it).
    pub fn start_on(test: &str, port: u16) -> Option<RedisServer> {
        let available = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !available {
            if required() {
                panic!("{test}: redis-server is not installed and METASIFT_REQUIRE_SERVICES=1");
            }
            eprintln!(
                "\n*** SKIPPED {test}: redis-server is not installed (apt-get install redis-server) ***\n"
            );
            return None;
        }
        let dir = std::env::temp_dir().join(format!(
            "metasift-redis-{}-{port}-{}",
            std::process::id(),
            Instant::now().elapsed().as_nanos()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir for redis");
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        let mut server = RedisServer { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !ping(port) {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("{test}: redis-server exited at start ({status}); port {port} taken?");
            }
            assert!(
                Instant::now() < deadline,
                "{test}: redis-server did not answer PING in 10 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/`
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills the server and waits until it is gone.
    pub fn stop(mut self) {
        self.kill();
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}
