//! Serving the [`router`](super::router) on a TCP listener under the limits
//! of `[server.connections]`, so that no client can hold the server by
//! sending slowly, not reading, or opening sockets and saying nothing.
//!
//! - **Request head**: hyper's `header_read_timeout` closes a connection
//!   whose request line and headers do not arrive within
//!   `header_timeout_s`, counted from the connection's start or the end of
//!   its previous response — so it is also the keep-alive idle timeout.
//! - **Request body**: every body is wrapped in tower-http's
//!   [`DeadlineBody`]: one that is not whole `body_timeout_s` after its head
//!   fails to read, the handler answers 400 and the connection closes.
//! - **Response**: a write that makes no progress for `send_timeout_s` (a
//!   client that stopped reading) fails and drops the connection
//!   ([`SendTimeout`]).
//! - **Connections**: at most `max_connections` are open (fewer when
//!   `ulimit -n` leaves no room for them and for engines, Redis and the
//!   log); the accept loop waits for a free slot (a tokio semaphore). An accept error (EMFILE
//!   from something else eating descriptors) pauses the loop, 10 ms doubling
//!   to 1 s, rather than spinning on it.
//! - **Shutdown**: the listener closes, idle connections close, requests in
//!   flight may finish for `shutdown_grace_s`; what is still open then is
//!   dropped when the runtime stops.
//!
//! HTTP/1.1 only, as `axum::serve` served it here (axum's `http2` feature is
//! off); a proxy in front speaks HTTP/2 to browsers.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::Response;
use hyper::body::{Body as _, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower_http::timeout::DeadlineBody;
use tower_service::Service as _;

use crate::config::ConnectionsConfig;

/// Longest pause of the accept loop after an accept error.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until `shutdown` completes, then lets requests
/// in flight finish for `shutdown_grace_s` and returns. Handlers see the
/// peer as `ConnectInfo<SocketAddr>`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &ConnectionsConfig,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let max_connections = within_descriptor_limit(limits.max_connections, open_files_limit());
    let slots = Arc::new(Semaphore::new(max_connections));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout());
    let graceful = GracefulShutdown::new();
    let body_timeout = limits.body_timeout();
    let send_timeout = limits.send_timeout();
    let mut backoff = Duration::ZERO;
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            biased;
            () = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                backoff = Duration::ZERO;
                accepted
            }
            // The client gave up before we accepted: nothing to wait for.
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                backoff = (backoff * 2).clamp(Duration::from_millis(10), MAX_ACCEPT_BACKOFF);
                tracing::warn!(
                    "accept error: {e}; accepting again in {} ms",
                    backoff.as_millis()
                );
                tokio::select! {
                    biased;
                    () = &mut shutdown => break,
                    () = tokio::time::sleep(backoff) => continue,
                }
            }
        };
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().ok();
        let io = TokioIo::new(SendTimeout::new(stream, send_timeout));
        let service = PerConnection {
            app: app.clone(),
            peer,
            local,
            body_timeout,
        };
        let connection = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(%peer, "connection ended: {e}");
            }
            drop(slot);
        });
    }
    drop(listener);
    let open = graceful.count();
    if open > 0 {
        tracing::info!("shutting down: {open} connection(s) open, waiting for them");
    }
    let grace = limits.shutdown_grace();
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "shutting down: connections still open after {} s are dropped",
            grace.as_secs()
        );
    }
    Ok(())
}

/// Descriptors kept for everything but client connections: engines (one
/// connection each per search in flight), Redis, the log, the runtime.
const RESERVED_DESCRIPTORS: usize = 64;

/// The connection cap actually used: `configured`, or less when the
/// process may open fewer files than that plus [`RESERVED_DESCRIPTORS`]
/// (`ulimit -n`), so the cap — not "Too many open files" — is what a flood
/// of sockets meets.
fn within_descriptor_limit(configured: usize, open_files: Option<u64>) -> usize {
    let Some(limit) = open_files.and_then(|l| usize::try_from(l).ok()) else {
        return configured;
    };
    let room = limit
        .saturating_sub(RESERVED_DESCRIPTORS.max(limit / 4))
        .max(1);
    if room < configured {
        tracing::warn!(
            "server.connections.max_connections is {configured}, but this process may open \
             only {limit} files (ulimit -n): at most {room} connections are served at once"
        );
        room
    } else {
        configured
    }
}

/// The soft limit on open files (`ulimit -n`), where Linux tells it.
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Accept errors about one connection (reset or aborted before it was
/// accepted), after which the next accept may go on at once.
fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}

/// The router as one connection's hyper service: the peer address for the
/// handlers, and the body deadline.
#[derive(Clone)]
struct PerConnection {
    app: Router,
    peer: SocketAddr,
    /// The address the connection came in on.
    local: Option<SocketAddr>,
    body_timeout: Duration,
}

impl hyper::service::Service<Request<Incoming>> for PerConnection {
    type Response = Response;
    type Error = Infallible;
    type Future = axum::routing::future::RouteFuture<Infallible>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let mut request = request.map(|body| {
            if body.is_end_stream() {
                Body::new(body)
            } else {
                Body::new(DeadlineBody::new(self.body_timeout, body))
            }
        });
        request.extensions_mut().insert(ConnectInfo(self.peer));
        // An HTTP/1.0 request may name no host: it asked the address it
        // connected to, which links back to this server then name (not
        // `[server] bind`, which `--bind` or a port 0 overrides).
        if !request.headers().contains_key(axum::http::header::HOST)
            && let Some(local) = self.local
            && let Ok(host) = axum::http::HeaderValue::from_str(&local.to_string())
        {
            request.headers_mut().insert(axum::http::header::HOST, host);
        }
        self.app.clone().call(request)
    }
}

/// A stream whose writes fail with `TimedOut` once they have made no
/// progress for `limit` (the peer stopped reading); reads pass through.
struct SendTimeout<T> {
    inner: T,
    limit: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> SendTimeout<T> {
    fn new(inner: T, limit: Duration) -> Self {
        SendTimeout {
            inner,
            limit,
            stalled: None,
        }
    }

    /// Progress clears the stall timer; `Pending` starts it (once) and
    /// turns into an error when it fires.
    fn watch<R>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client read nothing of the response for {} s",
                    limit.as_secs_f64()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for SendTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SendTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.watch(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.watch(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.watch(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let poll = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.watch(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt as _;

    #[test]
    fn the_cap_leaves_descriptors_for_the_rest() {
        assert_eq!(within_descriptor_limit(512, None), 512);
        assert_eq!(within_descriptor_limit(512, Some(20_000)), 512);
        assert_eq!(within_descriptor_limit(512, Some(1024)), 512);
        assert_eq!(within_descriptor_limit(512, Some(256)), 192);
        assert_eq!(within_descriptor_limit(100, Some(256)), 100);
        assert_eq!(within_descriptor_limit(512, Some(10)), 1);
        if cfg!(target_os = "linux") {
            assert!(open_files_limit().is_some_and(|n| n > 0));
        }
    }

    #[tokio::test]
    async fn a_write_nobody_reads_fails_after_the_send_timeout() {
        let (near, _far) = tokio::io::duplex(64);
        let mut w = SendTimeout::new(near, Duration::from_millis(300));
        let started = tokio::time::Instant::now();
        let err = w.write_all(&[b'x'; 4096]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(300) && waited < Duration::from_secs(5),
            "{waited:?}"
        );
    }

    #[tokio::test]
    async fn a_slow_reader_that_keeps_reading_is_not_cut_off() {
        use tokio::io::AsyncReadExt as _;
        let (near, mut far) = tokio::io::duplex(64);
        let reader = tokio::spawn(async move {
            let mut buf = [0u8; 64];
            let mut total = 0;
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                match far.read(&mut buf).await {
                    Ok(0) | Err(_) => return total,
                    Ok(n) => total += n,
                }
            }
        });
        let mut w = SendTimeout::new(near, Duration::from_millis(300));
        // 128 reads of 64 bytes 20 ms apart: longer than the timeout in
        // all, never that long stalled.
        w.write_all(&[b'x'; 1024 * 8]).await.unwrap();
        drop(w);
        assert_eq!(reader.await.unwrap(), 1024 * 8);
    }
}
