//! Running in public (issue #15): robots, `X-Robots-Tag`, `[server] public`
//! (per-client limits on, `/stats` and `/metrics` for the operator only),
//! the list of formats served, and the `/metrics` families. The whole router
//! is driven with `oneshot`; the member engine is a real loopback server.

#[path = "support/mod.rs"]
mod support;

use std::net::SocketAddr;
use std::path::Path;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use metasift::config::Config;
use metasift::web::{self, AppState};
use support::{LoopbackEngine, test_page};
use tower::ServiceExt;

async fn engine() -> LoopbackEngine {
    LoopbackEngine::spawn(test_page(&[(
        "https://example.org/a",
        "A result",
        "Some text.",
    )]))
    .await
}

fn config(engine: &LoopbackEngine, extra: &str) -> Config {
    let text = format!(
        "{extra}\n[[engine]]\nname = \"loop\"\nkind = \"searxng\"\nurl = \"{}/search?q={{query}}\"\n",
        engine.base_url()
    );
    metasift::engines::check_config(&text, Path::new("public.toml")).expect("valid test config")
}

fn app(config: Config, token: Option<&str>) -> axum::Router {
    let state = AppState::serving(config, None, None)
        .unwrap()
        .with_metrics_token(token.map(str::to_string));
    web::router(state)
}

async fn call(
    app: &axum::Router,
    uri: &str,
    peer: Option<&str>,
    headers: &[(&str, &str)],
) -> (StatusCode, axum::http::HeaderMap, String) {
    let mut req = Request::builder().uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut req = req.body(Body::empty()).unwrap();
    if let Some(peer) = peer {
        let addr: SocketAddr = peer.parse().unwrap();
        req.extensions_mut().insert(ConnectInfo(addr));
    }
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = axum::body::to_bytes(resp.into_body(), 1 << 20)
        .await
        .unwrap();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn robots_txt_allows_the_front_page_only_and_results_say_noindex() {
    let engine = engine().await;
    let app = app(config(&engine, ""), None);
    let (status, _, body) = call(&app, "/robots.txt", None, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, "User-agent: *\nAllow: /$\nDisallow: /\n");
    let (_, headers, _) = call(&app, "/", None, &[]).await;
    assert!(
        headers.get("x-robots-tag").is_none(),
        "the front page may be indexed"
    );
    for uri in [
        "/search?q=a",
        "/search?q=a&format=json",
        "/stats",
        "/nowhere",
    ] {
        let (_, headers, _) = call(&app, uri, None, &[]).await;
        assert_eq!(
            headers.get("x-robots-tag").map(|v| v.to_str().unwrap()),
            Some("noindex, nofollow"),
            "{uri}"
        );
    }
}

#[tokio::test]
async fn a_format_not_listed_is_refused_with_403() {
    let engine = engine().await;
    let app = app(
        config(&engine, "[server]\nformats = [\"html\", \"rss\"]\n"),
        None,
    );
    let (status, _, body) = call(&app, "/search?q=a&format=json", None, &[]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(body.contains("format=json is not served"), "{body}");
    assert_eq!(
        call(&app, "/search?q=a&format=csv", None, &[]).await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        call(&app, "/search?q=a&format=rss", None, &[]).await.0,
        StatusCode::OK
    );
    assert_eq!(call(&app, "/search?q=a", None, &[]).await.0, StatusCode::OK);
    assert_eq!(
        engine.requests(),
        1,
        "refused formats never reach the engines"
    );
    // Every format by default; an unknown one in the list is refused at load.
    let err =
        metasift::engines::check_config("[server]\nformats = [\"xml\"]\n", Path::new("f.toml"))
            .unwrap_err();
    assert!(
        err[0].to_string().starts_with("f.toml:2:1: server.formats"),
        "{}",
        err[0]
    );
}

#[tokio::test]
async fn a_public_instance_keeps_stats_and_metrics_to_loopback_or_the_token() {
    let engine = engine().await;
    let public = app(
        config(&engine, "[server]\npublic = true\n"),
        Some("m-token"),
    );
    for uri in ["/stats", "/stats?format=json", "/metrics"] {
        let outside = call(&public, uri, Some("203.0.113.9:5000"), &[]).await;
        assert_eq!(outside.0, StatusCode::FORBIDDEN, "{uri}");
        let wrong = call(
            &public,
            uri,
            Some("203.0.113.9:5000"),
            &[("authorization", "Bearer nope")],
        )
        .await;
        assert_eq!(wrong.0, StatusCode::FORBIDDEN, "{uri}");
        let token = call(
            &public,
            uri,
            Some("203.0.113.9:5000"),
            &[("authorization", "Bearer m-token")],
        )
        .await;
        assert_eq!(token.0, StatusCode::OK, "{uri}");
        let local = call(&public, uri, Some("127.0.0.1:5000"), &[]).await;
        assert_eq!(local.0, StatusCode::OK, "{uri}");
        let local6 = call(&public, uri, Some("[::1]:5000"), &[]).await;
        assert_eq!(local6.0, StatusCode::OK, "{uri}");
    }
    // Behind a trusted proxy on loopback, the client the proxy names counts.
    let proxied = app(
        config(
            &engine,
            "[server]\npublic = true\n[limits]\ntrust_forwarded = true\n",
        ),
        None,
    );
    let via = call(
        &proxied,
        "/metrics",
        Some("127.0.0.1:4000"),
        &[("x-forwarded-for", "198.51.100.7")],
    )
    .await;
    assert_eq!(via.0, StatusCode::FORBIDDEN);
    // A private instance leaves them open.
    let private = app(config(&engine, ""), None);
    assert_eq!(
        call(&private, "/metrics", Some("203.0.113.9:5000"), &[])
            .await
            .0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn per_client_limits_are_on_when_public_and_off_by_default_when_private() {
    let engine = engine().await;
    // The built-in defaults set per_minute = 60, burst = 20: a public
    // instance uses them, a private one does not.
    let layered = |extra: &str| {
        let text = format!(
            "{extra}\n[[engine]]\nname = \"loop\"\nkind = \"searxng\"\nurl = \"{}/search?q={{query}}\"\n",
            engine.base_url()
        );
        let mut c =
            metasift::engines::check_config_layered(&text, Path::new("p.toml"), &|_| None).unwrap();
        // Only the loopback engine is asked: the built-in presets would ask
        // the network, whose failures (or answers) take their own time.
        for e in &mut c.engines {
            e.enabled = e.name == "loop";
        }
        c
    };
    let private = layered("");
    assert_eq!(private.limits.per_minute, 0);
    assert_eq!(private.limits.autocomplete_per_minute, 0);
    let public = layered("[server]\npublic = true\n");
    assert_eq!(public.limits.per_minute, 60);
    assert!(public.limits.autocomplete_per_minute > 0);
    // A private file that sets the limit keeps it.
    let asked = layered("[limits]\nper_minute = 5\n");
    assert_eq!(asked.limits.per_minute, 5);
    assert_eq!(asked.limits.autocomplete_per_minute, 0);
    // The shipped engines.toml read as the user's file (`cargo run` in a
    // checkout finds it as ./engines.toml) changes nothing: private, off.
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/engines.toml")).unwrap();
    let checkout =
        metasift::engines::check_config_layered(&shipped, Path::new("engines.toml"), &|_| None)
            .unwrap();
    assert_eq!(checkout.limits.per_minute, 0);
    assert_eq!(checkout.limits.autocomplete_per_minute, 0);
    let public_checkout = metasift::engines::check_config_layered(
        &format!("{shipped}\n").replacen("[server]\n", "[server]\npublic = true\n", 1),
        Path::new("engines.toml"),
        &|_| None,
    )
    .unwrap();
    assert_eq!(public_checkout.limits.per_minute, 60);
    assert_eq!(public_checkout.limits.autocomplete_per_minute, 300);

    // Seen from a client: 3 quick searches with burst 2.
    let limited = |c: Config| app(c, None);
    let mut public = public;
    public.limits.burst = 2;
    public.cache.ttl_s = 0;
    let public = limited(public);
    let mut codes = Vec::new();
    for i in 0..3 {
        let uri = format!("/search?q=q{i}&format=json");
        codes.push(call(&public, &uri, Some("203.0.113.9:5000"), &[]).await.0);
    }
    assert_eq!(
        codes.last(),
        Some(&StatusCode::TOO_MANY_REQUESTS),
        "{codes:?}"
    );
    let private = limited(private);
    for i in 0..25 {
        let uri = format!("/search?q=p{i}&format=json");
        let (status, _, _) = call(&private, &uri, Some("203.0.113.9:5000"), &[]).await;
        assert_eq!(status, StatusCode::OK, "search {i} on a private instance");
    }
}

#[tokio::test]
async fn metrics_name_build_http_routes_cache_and_ratios_as_prometheus_does() {
    let engine = engine().await;
    let app = app(config(&engine, ""), None);
    call(&app, "/search?q=a&format=json", None, &[]).await;
    call(&app, "/search?q=a&format=json", None, &[]).await;
    call(&app, "/nowhere/at/all", None, &[]).await;
    let (status, headers, body) = call(&app, "/metrics", None, &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    for needle in [
        &format!(
            "metasift_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        ) as &str,
        "metasift_http_requests_total{route=\"/search\",status=\"200\"} 2",
        "metasift_http_requests_total{route=\"unmatched\",status=\"404\"} 1",
        "metasift_http_request_duration_seconds_count{route=\"/search\"} 2",
        "# TYPE metasift_http_request_duration_seconds histogram",
        "metasift_engine_success_ratio{engine=\"loop\"} 1",
        "metasift_cache_hit_ratio 0.5",
        "metasift_searches_in_flight 0",
        "# TYPE metasift_cache_entries gauge",
    ] {
        assert!(body.contains(needle), "missing {needle:?} in\n{body}");
    }
    // Every family has HELP and TYPE, and every sample line parses.
    for line in body
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (name, value) = line.rsplit_once(' ').unwrap();
        assert!(value.parse::<f64>().is_ok(), "{line}");
        let family = name.split('{').next().unwrap();
        let base = family
            .trim_end_matches("_bucket")
            .trim_end_matches("_sum")
            .trim_end_matches("_count");
        assert!(
            body.contains(&format!("# TYPE {family} "))
                || body.contains(&format!("# TYPE {base} ")),
            "no TYPE for {family}"
        );
    }
}

/// The per-client budget is spent by searches that reach the engines: a
/// cached answer is refunded, so reloading a result page (or paging back)
/// never runs a client out.
#[tokio::test]
async fn cached_answers_do_not_spend_the_per_client_budget() {
    let engine = engine().await;
    let mut config = config(
        &engine,
        "[server]\npublic = true\n[limits]\nper_minute = 1\nburst = 2\n",
    );
    config.cache.ttl_s = 300;
    let app = app(config, None);
    let client = Some("203.0.113.9:5000");
    for i in 0..10 {
        let (status, _, _) = call(&app, "/search?q=same&format=json", client, &[]).await;
        assert_eq!(status, StatusCode::OK, "cached search {i}");
    }
    assert_eq!(engine.requests(), 1, "one fan-out, nine cache hits");
    // The second new query is the burst's last; the third is refused.
    assert_eq!(
        call(&app, "/search?q=other&format=json", client, &[])
            .await
            .0,
        StatusCode::OK
    );
    let (status, headers, _) = call(&app, "/search?q=third&format=json", client, &[]).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(headers.contains_key(header::RETRY_AFTER));
    assert_eq!(engine.requests(), 2);
}
