//! Loopback proxies for the tests: an HTTP proxy (absolute-form requests
//! forwarded, `CONNECT` tunnelled) and a SOCKS5 server (`CONNECT`, with or
//! without a user name and password), each keeping a log of what it was
//! asked to reach. They only ever connect to loopback addresses.
//!
//! Include it with
//!
//! ```ignore
//! #[path = "support/proxy.rs"]
//! mod proxy;
//! ```

// Each test file uses a different part of this module.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The longest request head the HTTP proxy reads.
const MAX_HEAD: usize = 16 * 1024;
/// How long a client has to say what it wants.
const HANDSHAKE: Duration = Duration::from_secs(5);

/// Which protocol a [`TestProxy`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTTP forward proxy and `CONNECT`.
    Http,
    /// SOCKS5.
    Socks5,
}

/// A running loopback proxy; stops when dropped.
pub struct TestProxy {
    pub addr: SocketAddr,
    kind: Kind,
    log: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl TestProxy {
    /// Starts a proxy of `kind` on a free loopback port; with `credentials`
    /// (user, password) it refuses clients that do not give them (HTTP:
    /// 407; SOCKS5: the user/password method only).
    pub async fn spawn(kind: Kind, credentials: Option<(&str, &str)>) -> TestProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let creds = credentials.map(|(u, p)| (u.to_string(), p.to_string()));
        let l = log.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (l, creds) = (l.clone(), creds.clone());
                tokio::spawn(async move {
                    let _ = match kind {
                        Kind::Http => http(stream, &l, creds.as_ref()).await,
                        Kind::Socks5 => socks5(stream, &l, creds.as_ref()).await,
                    };
                });
            }
        });
        TestProxy {
            addr,
            kind,
            log,
            task,
        }
    }

    /// `http://[user:password@]127.0.0.1:PORT` or `socks5://…`, with
    /// `userinfo` (`user:password`, or `user:${VAR}`) when given.
    pub fn url(&self, userinfo: Option<&str>) -> String {
        let scheme = match self.kind {
            Kind::Http => "http",
            Kind::Socks5 => "socks5",
        };
        match userinfo {
            Some(u) => format!("{scheme}://{u}@{}", self.addr),
            None => format!("{scheme}://{}", self.addr),
        }
    }

    /// What it was asked so far: `GET http://host:port/path…`,
    /// `CONNECT host:port`, or `refused …`.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for TestProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A loopback port nothing listens on (bound, then closed).
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn note(log: &Mutex<Vec<String>>, line: String) {
    log.lock().unwrap().push(line);
}

/// Connects to `host:port` only when it is this machine.
async fn upstream(host: &str, port: u16) -> std::io::Result<TcpStream> {
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1");
    if !loopback {
        return Err(std::io::Error::other("test proxy: loopback only"));
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    TcpStream::connect((host, port)).await
}

fn basic(user: &str, password: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
}

async fn http(
    mut client: TcpStream,
    log: &Mutex<Vec<String>>,
    creds: Option<&(String, String)>,
) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(HANDSHAKE, client.read(&mut buf))
            .await
            .map_err(|_| std::io::Error::other("slow client"))??;
        if n == 0 || head.len() > MAX_HEAD {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
    }
    let end = head.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let (head, rest) = head.split_at(end);
    let text = String::from_utf8_lossy(head).to_string();
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut parts = request_line.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if let Some((user, password)) = creds {
        let want = format!("Basic {}", basic(user, password));
        let given = headers
            .iter()
            .find(|(k, _)| k == "proxy-authorization")
            .map(|(_, v)| v.as_str());
        if given != Some(want.as_str()) {
            note(
                log,
                format!("refused {method} {target}: no valid credentials"),
            );
            client
                .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .await?;
            return Ok(());
        }
    }
    if method == "CONNECT" {
        note(log, format!("CONNECT {target}"));
        let (host, port) = target.rsplit_once(':').unwrap_or((target, "443"));
        let mut up = match upstream(host, port.parse().unwrap_or(443)).await {
            Ok(s) => s,
            Err(_) => {
                client
                    .write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                    .await?;
                return Ok(());
            }
        };
        client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await?;
        up.write_all(rest).await?;
        tokio::io::copy_bidirectional(&mut client, &mut up).await?;
        return Ok(());
    }
    // Absolute form: `GET http://host:port/path HTTP/1.1`.
    note(log, format!("{method} {target}"));
    let Ok(url) = url::Url::parse(target) else {
        client
            .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            .await?;
        return Ok(());
    };
    let host = url.host_str().unwrap_or("").to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let mut up = match upstream(&host, port).await {
        Ok(s) => s,
        Err(_) => {
            client
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                .await?;
            return Ok(());
        }
    };
    let path = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    // One request per connection: the upstream closes after its answer.
    let mut out = format!("{method} {path} HTTP/1.1\r\n");
    for (k, v) in &headers {
        if !matches!(
            k.as_str(),
            "proxy-authorization" | "proxy-connection" | "connection"
        ) {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    out.push_str("connection: close\r\n\r\n");
    up.write_all(out.as_bytes()).await?;
    up.write_all(rest).await?;
    let (mut cr, mut cw) = client.split();
    let (mut ur, mut uw) = up.split();
    let _ = tokio::join!(
        tokio::io::copy(&mut ur, &mut cw),
        tokio::io::copy(&mut cr, &mut uw)
    );
    Ok(())
}

async fn socks5(
    mut client: TcpStream,
    log: &Mutex<Vec<String>>,
    creds: Option<&(String, String)>,
) -> std::io::Result<()> {
    let mut greeting = [0u8; 2];
    tokio::time::timeout(HANDSHAKE, client.read_exact(&mut greeting))
        .await
        .map_err(|_| std::io::Error::other("slow client"))??;
    if greeting[0] != 5 {
        return Ok(());
    }
    let mut methods = vec![0u8; usize::from(greeting[1])];
    client.read_exact(&mut methods).await?;
    let wanted = if creds.is_some() { 2 } else { 0 };
    if !methods.contains(&wanted) {
        note(log, "refused: no acceptable method".into());
        client.write_all(&[5, 0xff]).await?;
        return Ok(());
    }
    client.write_all(&[5, wanted]).await?;
    if let Some((user, password)) = creds {
        let mut v = [0u8; 2];
        client.read_exact(&mut v).await?;
        let mut u = vec![0u8; usize::from(v[1])];
        client.read_exact(&mut u).await?;
        let mut l = [0u8; 1];
        client.read_exact(&mut l).await?;
        let mut p = vec![0u8; usize::from(l[0])];
        client.read_exact(&mut p).await?;
        if u != user.as_bytes() || p != password.as_bytes() {
            note(log, "refused: wrong credentials".into());
            client.write_all(&[1, 1]).await?;
            return Ok(());
        }
        client.write_all(&[1, 0]).await?;
    }
    let mut req = [0u8; 4];
    client.read_exact(&mut req).await?;
    if req[0] != 5 || req[1] != 1 {
        client.write_all(&[5, 7, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
        return Ok(());
    }
    let host = match req[3] {
        1 => {
            let mut a = [0u8; 4];
            client.read_exact(&mut a).await?;
            std::net::Ipv4Addr::from(a).to_string()
        }
        3 => {
            let mut l = [0u8; 1];
            client.read_exact(&mut l).await?;
            let mut d = vec![0u8; usize::from(l[0])];
            client.read_exact(&mut d).await?;
            String::from_utf8_lossy(&d).to_string()
        }
        4 => {
            let mut a = [0u8; 16];
            client.read_exact(&mut a).await?;
            std::net::Ipv6Addr::from(a).to_string()
        }
        _ => return Ok(()),
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    let port = u16::from_be_bytes(port);
    note(log, format!("CONNECT {host}:{port}"));
    let mut up = match upstream(&host, port).await {
        Ok(s) => s,
        Err(_) => {
            client.write_all(&[5, 5, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
            return Ok(());
        }
    };
    client.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
    tokio::io::copy_bidirectional(&mut client, &mut up).await?;
    Ok(())
}
