//! Thumbnails on the results page through `/image_proxy`, with a real
//! image server on loopback: the page links each engine's thumbnail signed
//! (the CSP stays `img-src 'self'`); a good image is relayed with caching
//! headers; a non-image, an oversized body (announced or not), a bad
//! signature, a slow server, and local addresses no engine lives on are
//! refused with the reason, in bounded time.
//!
//! Run with `cargo test --test image_proxy`.

#[path = "support/mod.rs"]
mod support;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{Request, Response, StatusCode, header};
use metasift::config::Config;
use metasift::search::Searcher;
use metasift::web::{self, AppState};
use support::{Behavior, LoopbackEngine};

/// A 1×1 PNG (a red pixel), written out byte by byte.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

/// The image server: `/good.png`, `/page.html` (not an image), `/big.png`
/// (2 MB streamed with no length), `/big-declared.png` (a 2 MB length
/// announced), `/slow.png` (answers after 30 s), `/to-metadata` (a redirect
/// to the cloud metadata address). Counts requests.
struct ImageServer {
    base: String,
    hits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ImageServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn image_server() -> ImageServer {
    use axum::routing::get;
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let big = || {
        futures::stream::iter(
            (0..32).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![0u8; 64 * 1024]))),
        )
    };
    let app = axum::Router::new()
        .route(
            "/good.png",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], PNG) }),
        )
        .route(
            "/page.html",
            get(|| async { ([(header::CONTENT_TYPE, "text/html")], "<p>hello</p>") }),
        )
        .route(
            "/vector.svg",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "image/svg+xml")],
                    "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>",
                )
            }),
        )
        .route(
            "/big.png",
            get(move || async move {
                (
                    [(header::CONTENT_TYPE, "image/png")],
                    Body::from_stream(big()),
                )
            }),
        )
        .route(
            "/big-declared.png",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], vec![0u8; 2 << 20]) }),
        )
        .route(
            "/slow.png",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                ([(header::CONTENT_TYPE, "image/png")], PNG)
            }),
        )
        .route(
            "/to-metadata",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [(header::LOCATION, "http://169.254.169.254/latest/meta-data/")],
                )
            }),
        )
        .layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                counted.fetch_add(1, Ordering::SeqCst);
                next.run(req)
            },
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    ImageServer {
        base: format!("http://{addr}"),
        hits,
        task,
    }
}

async fn send(app: &axum::Router, req: Request<Body>) -> (Response<()>, Bytes) {
    support::router::send_bytes(app.clone(), req).await
}

async fn get(app: &axum::Router, uri: &str) -> (Response<()>, Bytes) {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

/// A SearXNG member on loopback whose two results carry thumbnails on the
/// image server; the app over it.
async fn app_over(images: &ImageServer) -> (axum::Router, LoopbackEngine) {
    let body = serde_json::json!({
        "results": [
            {"url": "https://a.example/1", "title": "First", "content": "one",
             "thumbnail": format!("{}/good.png", images.base)},
            {"url": "https://b.example/2", "title": "Second", "content": "two",
             "thumbnail": "javascript:alert(1)"},
        ]
    });
    let engine = LoopbackEngine::spawn(Behavior::page(body.to_string(), "application/json")).await;
    let mut config = support::router::config("");
    config.engines = vec![support::test_engine_config("sx", &engine.base_url())];
    (support::router::app_with(config), engine)
}

/// The `src` of every thumbnail on a results page, `&amp;` undone.
fn thumbs(html: &str) -> Vec<String> {
    html.split("<img class=\"thumb\" src=\"")
        .skip(1)
        .map(|s| {
            s.split('"')
                .next()
                .unwrap()
                .replace("&#38;", "&")
                .replace("&amp;", "&")
        })
        .collect()
}

#[tokio::test]
async fn the_page_shows_thumbnails_through_the_signed_proxy() {
    let images = image_server().await;
    let (app, _engine) = app_over(&images).await;
    let (resp, html) = get(&app, "/search?q=thumbs").await;
    let html = String::from_utf8_lossy(&html).into_owned();
    let csp = resp.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(csp.contains("img-src 'self' data:;"), "{csp}");
    let srcs = thumbs(&html);
    assert_eq!(
        srcs.len(),
        1,
        "the javascript: thumbnail is not linked: {html}"
    );
    assert!(
        srcs[0].starts_with("/image_proxy?url=http%3A%2F%2F127.0.0.1"),
        "{}",
        srcs[0]
    );
    assert!(!html.contains("javascript:alert"), "{html}");

    let (resp, body) = get(&app, &srcs[0]).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()[header::CONTENT_TYPE], "image/png");
    assert_eq!(
        resp.headers()[header::CACHE_CONTROL],
        "public, max-age=86400"
    );
    assert_eq!(resp.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    assert_eq!(&body[..], PNG);
    assert_eq!(images.hits.load(Ordering::SeqCst), 1);

    // Turned off in the preferences: no thumbnail, nothing fetched.
    let (_, html) = send(
        &app,
        Request::get("/search?q=thumbs")
            .header(header::COOKIE, "metasift_prefs=thumbnails%3D0")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let html = String::from_utf8_lossy(&html);
    assert!(thumbs(&html).is_empty(), "{html}");
    assert!(html.contains("First"));
    // The preferences form has the box, ticked unless turned off.
    let (_, form) = get(&app, "/preferences").await;
    assert!(String::from_utf8_lossy(&form).contains(
        "<input id=\"p-thumbnails\" type=\"checkbox\" name=\"thumbnails\" value=\"1\" checked>"
    ));
    let (resp, _) = send(
        &app,
        Request::post("/preferences")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from("form=1&engine=sx&category=general&favicons=1"))
            .unwrap(),
    )
    .await;
    let cookie = resp.headers()[header::SET_COOKIE].to_str().unwrap();
    assert!(
        cookie.starts_with("metasift_prefs=thumbnails=0;"),
        "{cookie}"
    );
}

/// The proxied link of `path` on the image server, signed as a page signs it.
fn signed(images: &ImageServer, path: &str) -> String {
    web::image_proxy_link(&format!("{}{path}", images.base)).unwrap()
}

#[tokio::test]
async fn what_is_not_a_small_image_from_an_allowed_place_is_refused() {
    let images = image_server().await;
    let (app, _engine) = app_over(&images).await;
    let text = |b: &Bytes| String::from_utf8_lossy(b).into_owned();

    // A bad signature: refused before anything is fetched.
    let good = signed(&images, "/good.png");
    let forged = format!("{}0", &good[..good.len() - 1]);
    let forged = if forged == good {
        format!("{}1", &good[..good.len() - 1])
    } else {
        forged
    };
    let other = format!(
        "/image_proxy?url={}&h={}",
        url::form_urlencoded::byte_serialize(format!("{}/page.html", images.base).as_bytes())
            .collect::<String>(),
        good.rsplit("h=").next().unwrap()
    );
    for uri in [
        forged.as_str(),
        other.as_str(),
        "/image_proxy?url=http%3A%2F%2F127.0.0.1%2F",
    ] {
        let (resp, body) = get(&app, uri).await;
        assert!(
            matches!(
                resp.status(),
                StatusCode::FORBIDDEN | StatusCode::BAD_REQUEST
            ),
            "{uri}: {}",
            resp.status()
        );
        assert!(!text(&body).is_empty());
    }
    assert_eq!(images.hits.load(Ordering::SeqCst), 0, "nothing fetched");

    // Signed, but not a picture: HTML, SVG.
    for (path, why) in [
        ("/page.html", "text/html"),
        ("/vector.svg", "image/svg+xml"),
    ] {
        let (resp, body) = get(&app, &signed(&images, path)).await;
        assert_eq!(resp.status(), StatusCode::BAD_GATEWAY, "{path}");
        assert!(
            text(&body).contains("not an image") && text(&body).contains(why),
            "{}",
            text(&body)
        );
    }
    // Too large: announced, and counted while it streams.
    for path in ["/big-declared.png", "/big.png"] {
        let (resp, body) = get(&app, &signed(&images, path)).await;
        assert_eq!(resp.status(), StatusCode::BAD_GATEWAY, "{path}");
        assert!(
            text(&body).contains("larger than 1048576 bytes"),
            "{path}: {}",
            text(&body)
        );
    }
    // A redirect to the metadata address is not followed.
    let (resp, body) = get(&app, &signed(&images, "/to-metadata")).await;
    assert_eq!(resp.status(), StatusCode::BAD_GATEWAY);
    assert!(text(&body).contains("169.254.169.254"), "{}", text(&body));

    // A slow server: cut at the fetch timeout, not waited for.
    let started = Instant::now();
    let (resp, body) = get(&app, &signed(&images, "/slow.png")).await;
    let took = started.elapsed();
    assert_eq!(
        resp.status(),
        StatusCode::GATEWAY_TIMEOUT,
        "{}",
        text(&body)
    );
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(6),
        "{took:?}"
    );
}

/// When no engine lives on loopback, the image server there is out of
/// reach, by address and by name (`localhost` resolves to it): the proxy
/// must not make the server fetch its neighbours.
#[tokio::test]
async fn local_addresses_are_out_of_reach_unless_an_engine_lives_there() {
    let images = image_server().await;
    let mut config = Config::parse("", Path::new("test.toml")).unwrap();
    config.engines = vec![support::test_engine_config("far", "https://search.example")];
    let searcher = Searcher::new(
        Arc::new(config),
        metasift::search::client_builder().build().unwrap(),
    );
    let app = web::router(AppState::new(searcher));
    let port = images.base.rsplit(':').next().unwrap();
    for target in [
        format!("{}/good.png", images.base),
        format!("http://localhost:{port}/good.png"),
        format!("http://[::ffff:127.0.0.1]:{port}/good.png"),
    ] {
        let uri = web::image_proxy_link(&target).unwrap();
        let (resp, body) = get(&app, &uri).await;
        let body = String::from_utf8_lossy(&body);
        assert!(
            matches!(
                resp.status(),
                StatusCode::FORBIDDEN | StatusCode::BAD_GATEWAY
            ),
            "{target}: {} {body}",
            resp.status()
        );
        assert!(body.contains("local address"), "{target}: {body}");
    }
    assert_eq!(images.hits.load(Ordering::SeqCst), 0);
}
