//! Proxies per engine (issue #28): requests of an engine with a proxy go
//! through it (HTTP and SOCKS5, credentials from the environment), the
//! `[outgoing]` pool is taken in turn, an engine with `proxy = []` goes
//! direct, and a dead proxy rests, is skipped, and shows on `/stats`
//! (without its credentials). Real `metasift serve` processes; the proxies
//! and engines are loopback servers of this test that log what they see.

#[path = "support/proxy.rs"]
mod proxy;
#[path = "support/serve.rs"]
#[allow(dead_code)]
mod serve;
#[path = "support/mod.rs"]
mod support;

use std::process::Command;

use proxy::{Kind, TestProxy, closed_port};
use serve::Server;
use support::{LoopbackEngine, test_page};

fn engine(name: &str, base: &str, extra: &str) -> String {
    format!(
        "[[engine]]\nname = \"{name}\"\nkind = \"searxng\"\nurl = \"{base}/search?q={{query}}\"\ntimeout_ms = 3000\n{extra}\n\n"
    )
}

/// Starts `metasift serve` on `text`, with `env` set.
fn serve(dir: &std::path::Path, text: &str, env: &[(&str, &str)]) -> Server {
    let path = dir.join("engines.toml");
    std::fs::write(
        &path,
        format!("use_defaults = false\n[server]\ndeadline_ms = 3000\n{text}"),
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_metasift"));
    command
        .args(["serve", "--config"])
        .arg(&path)
        .args(["--bind", "127.0.0.1:0"]);
    for (k, v) in env {
        command.env(k, v);
    }
    Server::spawn(command)
}

async fn get_json(base: &str, path_and_query: &str) -> serde_json::Value {
    let client = metasift::search::client_builder().build().unwrap();
    let response = client
        .get(format!("{base}{path_and_query}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{path_and_query}");
    response.json().await.unwrap()
}

fn engines_of(answer: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["engines"].as_array().unwrap().iter())
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

fn page(site: &str) -> support::Behavior {
    test_page(&[(&format!("https://{site}.example/a"), site, "A result.")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engines_go_through_their_proxy_with_credentials_from_the_environment() {
    let socks = TestProxy::spawn(Kind::Socks5, Some(("ms", "s0cks-pw"))).await;
    let http = TestProxy::spawn(Kind::Http, Some(("ms", "http-pw"))).await;
    let (a, b, c) = (
        LoopbackEngine::spawn(page("viasocks")).await,
        LoopbackEngine::spawn(page("viahttp")).await,
        LoopbackEngine::spawn(page("direct")).await,
    );
    let dir = support::fresh_dir("proxy-through");
    let text = format!(
        "{}{}{}",
        engine(
            "viasocks",
            &a.base_url(),
            &format!("proxy = \"{}\"", socks.url(Some("ms:${MS_SOCKS_PW}")))
        ),
        engine(
            "viahttp",
            &b.base_url(),
            &format!("proxy = \"{}\"", http.url(Some("ms:${MS_HTTP_PW}")))
        ),
        engine("direct", &c.base_url(), ""),
    );
    let server = serve(
        &dir,
        &text,
        &[("MS_SOCKS_PW", "s0cks-pw"), ("MS_HTTP_PW", "http-pw")],
    );
    let answer = get_json(&server.base, "/search?format=json&q=proxied").await;
    assert_eq!(
        engines_of(&answer),
        ["direct", "viahttp", "viasocks"],
        "{answer}"
    );
    // Each proxy saw its engine's request, and only that one.
    assert_eq!(socks.log(), [format!("CONNECT {}", a.addr)]);
    let seen = http.log();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].starts_with(&format!("GET {}/search?q=proxied", b.base_url())),
        "{seen:?}"
    );
    assert_eq!((a.requests(), b.requests(), c.requests()), (1, 1, 1));
    // `/stats` shows both proxies, never a password.
    let client = metasift::search::client_builder().build().unwrap();
    let stats = client
        .get(format!("{}/stats?format=json", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let html = client
        .get(format!("{}/stats", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for shown in [&stats, &html] {
        assert!(!shown.contains("s0cks-pw") && !shown.contains("http-pw"));
        assert!(
            shown.contains(&format!("socks5://{}", socks.addr)),
            "{shown}"
        );
        assert!(shown.contains(&format!("http://{}", http.addr)), "{shown}");
    }
    let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
    for p in stats["proxies"].as_array().unwrap() {
        assert_eq!(
            (p["requests"].as_u64(), p["failures"].as_u64()),
            (Some(1), Some(0)),
            "{p}"
        );
    }
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_proxy_credential_the_environment_lacks_is_refused_at_start_by_name() {
    let dir = support::fresh_dir("proxy-unset");
    let path = dir.join("engines.toml");
    std::fs::write(
        &path,
        format!(
            "use_defaults = false\n{}",
            engine(
                "e",
                "http://127.0.0.1:9",
                "proxy = \"socks5://u:${MS_UNSET_PROXY_PW}@127.0.0.1:1080\""
            )
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_metasift"))
        .arg("check-config")
        .arg(&path)
        .env_remove("MS_UNSET_PROXY_PW")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("MS_UNSET_PROXY_PW") && err.contains("engine.proxy"),
        "{err}"
    );
    assert!(err.contains("engines.toml:"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_proxy_rests_is_reported_and_the_pool_goes_on_without_it() {
    let live = TestProxy::spawn(Kind::Http, None).await;
    let dead = format!("http://127.0.0.1:{}", closed_port());
    let pooled = LoopbackEngine::spawn(page("pooled")).await;
    let direct = LoopbackEngine::spawn(page("local")).await;
    let dir = support::fresh_dir("proxy-dead");
    let text = format!(
        "[outgoing]\nproxies = [\"{dead}\", \"{}\"]\n{}{}",
        live.url(None),
        engine("pooled", &pooled.base_url(), ""),
        engine("local", &direct.base_url(), "proxy = []"),
    );
    let server = serve(&dir, &text, &[]);
    let mut answered = 0;
    for i in 0..6 {
        let answer = get_json(&server.base, &format!("/search?format=json&q=turn+{i}")).await;
        let names = engines_of(&answer);
        assert!(names.contains(&"local".to_string()), "{answer}");
        if names.contains(&"pooled".to_string()) {
            answered += 1;
        } else {
            // Only the dead proxy's turn may fail, and only before it rests.
            let why = answer["unresponsive_engines"].to_string();
            assert!(why.contains("proxy"), "{why}");
        }
    }
    // The dead proxy failed once, then rested: every later search went
    // through the live one.
    assert!(answered >= 5, "{answered} of 6 answered");
    assert_eq!(live.log().len(), answered, "{:?}", live.log());
    assert_eq!(pooled.requests(), answered);
    assert_eq!(direct.requests(), 6);
    let stats = get_json(&server.base, "/stats?format=json").await;
    let proxies = stats["proxies"].as_array().unwrap();
    let dead_row = proxies
        .iter()
        .find(|p| dead.ends_with(p["proxy"].as_str().unwrap().trim_start_matches("http://")))
        .unwrap();
    assert_eq!(dead_row["failures"], 1, "{dead_row}");
    assert_eq!(dead_row["resting"], true, "{dead_row}");
    assert!(dead_row["resting_until"].is_string(), "{dead_row}");
    // A proxy's failure is not the engine's: it is not suspended.
    let engine_row = stats["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "pooled")
        .unwrap();
    assert_eq!(engine_row["suspended"], false, "{engine_row}");
    drop(server);
    let _ = std::fs::remove_dir_all(dir);
}
