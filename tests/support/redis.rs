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

/// Whether `redis-server` is installed; when it is not, a loud skip, or a
/// failure under `METASIFT_REQUIRE_SERVICES=1`.
fn available(test: &str) -> bool {
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
    }
    available
}

fn temp_dir(port: u16) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "metasift-redis-{}-{port}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&dir).expect("temp dir for redis");
    dir
}

/// A three-primary Redis Cluster on free loopback ports (no replicas),
/// joined with `redis-cli --cluster create`; `None` (after a loud
/// message) without `redis-server`.
pub struct RedisCluster {
    pub nodes: Vec<RedisServer>,
}

impl RedisCluster {
    pub fn start(test: &str) -> Option<RedisCluster> {
        let mut nodes = Vec::new();
        for _ in 0..3 {
            let port = free_port();
            let conf = format!("nodes-{port}.conf");
            nodes.push(RedisServer::start_with(
                test,
                port,
                &[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    &conf,
                    "--cluster-node-timeout",
                    "2000",
                ],
            )?);
        }
        let mut create = Command::new("redis-cli");
        create.arg("--cluster").arg("create");
        for n in &nodes {
            create.arg(format!("127.0.0.1:{}", n.port()));
        }
        let out = create
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .expect("run redis-cli --cluster create");
        assert!(
            out.status.success(),
            "{test}: redis-cli --cluster create failed: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        // Every node must agree the cluster is up before a client asks.
        let deadline = Instant::now() + Duration::from_secs(20);
        for n in &nodes {
            loop {
                let info = Command::new("redis-cli")
                    .args(["-p", &n.port().to_string(), "cluster", "info"])
                    .output()
                    .expect("redis-cli cluster info");
                if String::from_utf8_lossy(&info.stdout).contains("cluster_state:ok") {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "{test}: the cluster did not come up in 20 s"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Some(RedisCluster { nodes })
    }

    /// `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port()))
            .collect();
        format!("redis+cluster://{}", hosts.join(","))
    }
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
        RedisServer::start_with(test, port, &[])
    }

    /// Starts a server on a free port with `extra` arguments
    /// (`--replicaof 127.0.0.1 P`, `--cluster-enabled yes`, …).
    pub fn start_with(test: &str, port: u16, extra: &[&str]) -> Option<RedisServer> {
        if !available(test) {
            return None;
        }
        let dir = temp_dir(port);
        let mut command = Command::new("redis-server");
        command
            .args(["--port", &port.to_string()])
            .args(["--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(["--appendonly", "no"])
            .arg("--dir")
            .arg(&dir)
            .args(extra);
        Some(RedisServer::spawn(test, command, port, dir))
    }

    /// A Sentinel on a free port watching the primary at `primary_port`
    /// as `mymaster` (quorum 2), quick to act: down after 1 s, fail-over
    /// timeout 3 s. Its configuration file is its own, in its own folder
    /// (a Sentinel rewrites it).
    pub fn sentinel(test: &str, primary_port: u16) -> Option<RedisServer> {
        if !available(test) {
            return None;
        }
        let port = free_port();
        let dir = temp_dir(port);
        let conf = dir.join("sentinel.conf");
        std::fs::write(
            &conf,
            format!(
                "port {port}\nbind 127.0.0.1\ndir {}\n\
                 sentinel monitor mymaster 127.0.0.1 {primary_port} 2\n\
                 sentinel down-after-milliseconds mymaster 1000\n\
                 sentinel failover-timeout mymaster 3000\n\
                 sentinel parallel-syncs mymaster 1\n",
                dir.display()
            ),
        )
        .expect("write sentinel.conf");
        let mut command = Command::new("redis-server");
        command.arg(&conf).arg("--sentinel");
        Some(RedisServer::spawn(test, command, port, dir))
    }

    fn spawn(test: &str, mut command: Command, port: u16, dir: PathBuf) -> RedisServer {
        let child = command
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
        server
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
