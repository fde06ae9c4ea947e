//! The binary alone (issue #15): copied into an empty folder, run with an
//! empty `HOME` and nothing else in its environment, it starts on its
//! built-in defaults, finds a user's file in the documented order, lays it
//! over them and searches through a real loopback engine — no checkout, no
//! `engines.toml` beside it.

#[path = "support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use support::{LoopbackEngine, test_page};

/// An empty folder with a copy of the binary in `bin/`, an empty `home/`
/// and an empty working directory `work/`.
struct Alone {
    root: PathBuf,
}

impl Alone {
    fn new(tag: &str) -> Alone {
        let root =
            std::env::temp_dir().join(format!("metasift-alone-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["bin", "home", "work"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let bin = root.join("bin/metasift");
        std::fs::copy(env!("CARGO_BIN_EXE_metasift"), &bin).expect("copy the binary");
        // A binary just copied can be "busy" for a moment: another test
        // thread's fork may still hold the copy's write descriptor until its
        // exec (ETXTBSY, the known race of copy-then-run in threaded tests).
        // Once it has run, every later run finds it free.
        for _ in 0..100 {
            match Command::new(&bin).arg("--version").output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                result => {
                    result.expect("run the copied binary");
                    return Alone { root };
                }
            }
        }
        panic!("the copied binary stayed busy (ETXTBSY) for 2 s");
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The copied binary with a cleared environment: only `HOME` (empty
    /// folder) and `RUST_LOG`, run in the empty working directory.
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(self.root.join("bin/metasift"));
        c.args(args)
            .env_clear()
            .env("HOME", self.home())
            .env("RUST_LOG", "info")
            .current_dir(self.work());
        c
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = self.command(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("run the copied binary")
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Alone {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn system_config_present() -> bool {
    Path::new(metasift::config::SYSTEM_CONFIG).exists()
}

#[test]
fn the_binary_alone_runs_on_its_built_in_defaults() {
    if system_config_present() {
        eprintln!(
            "!!!!! SKIPPED: {} exists on this machine !!!!!",
            metasift::config::SYSTEM_CONFIG
        );
        return;
    }
    let alone = Alone::new("defaults");
    let out = alone.run(&["check-config"], &[]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let shipped = support::shipped_config();
    assert!(
        stdout.starts_with(&format!(
            "built-in defaults: ok ({} engines",
            shipped.engines.len()
        )),
        "{stdout}"
    );
    assert!(stderr.contains("built-in defaults only"), "{stderr}");
    // The merged print of no file is the shipped file's tables.
    let out = alone.run(&["check-config", "--print-merged"], &[]);
    let merged: toml::Table = toml::from_str(&text(&out.stdout)).expect("the print is TOML");
    assert_eq!(
        merged["engine"].as_array().unwrap().len(),
        shipped.engines.len()
    );
    // Other subcommands log too (the config source at info).
    let out = alone.run(
        &["search", "!nosuchbang", "--format", "json"],
        &[("METASIFT_CONFIG", "missing.toml")],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("missing.toml"),
        "{}",
        text(&out.stderr)
    );
}

/// The lookup order, each step shown by which `results_per_page` wins and
/// by the line saying where the configuration came from.
#[test]
fn the_configuration_is_looked_for_in_the_documented_order() {
    let alone = Alone::new("lookup");
    let file = |n: u32| format!("[server]\nresults_per_page = {n}\n");
    let check = |args: &[&str], env: &[(&str, &str)], n: u32, from: &str| {
        let mut all = vec!["check-config"];
        all.extend_from_slice(args);
        all.push("--print-merged");
        let out = alone.run(&all, env);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("results_per_page = {n}\n")),
            "want {n}:\n{stdout}"
        );
        assert!(stderr.contains(from), "want {from:?}: {stderr}");
        // Laid over the defaults: the built-in engines are all there.
        assert!(stdout.contains("name = \"wikipedia\""), "{stdout}");
    };
    // ~/.config when XDG_CONFIG_HOME is unset.
    alone.write("home/.config/metasift/engines.toml", &file(3));
    check(
        &[],
        &[],
        3,
        "(from the user's config folder), laid over the built-in defaults",
    );
    // XDG_CONFIG_HOME replaces ~/.config.
    let xdg = alone.root.join("xdg");
    alone.write("xdg/metasift/engines.toml", &file(4));
    let xdg = xdg.to_str().unwrap();
    check(
        &[],
        &[("XDG_CONFIG_HOME", xdg)],
        4,
        "xdg/metasift/engines.toml (from the user's config folder)",
    );
    // ./engines.toml beats both.
    alone.write("work/engines.toml", &file(5));
    check(
        &[],
        &[("XDG_CONFIG_HOME", xdg)],
        5,
        "engines.toml (from ./engines.toml)",
    );
    // METASIFT_CONFIG beats it.
    let env_file = alone.write("env.toml", &file(6));
    let env_file = env_file.to_str().unwrap();
    check(
        &[],
        &[("METASIFT_CONFIG", env_file)],
        6,
        "env.toml (from METASIFT_CONFIG)",
    );
    // The command line beats everything.
    let flag = alone.write("flag.toml", &file(7));
    check(
        &[flag.to_str().unwrap()],
        &[("METASIFT_CONFIG", env_file)],
        7,
        "flag.toml (from the command line)",
    );
    // A file named explicitly must exist: no silent fall back.
    let out = alone.run(
        &["check-config"],
        &[("METASIFT_CONFIG", "/nonexistent/m.toml")],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("/nonexistent/m.toml"),
        "{}",
        text(&out.stderr)
    );
    // use_defaults = false is said in the log line.
    let whole = alone.write(
        "whole.toml",
        "use_defaults = false\n[[engine]]\nname = \"one\"\nkind = \"feed\"\nurl = \"https://f.example/?q={query}\"\n",
    );
    let out = alone.run(&["check-config", whole.to_str().unwrap()], &[]);
    assert!(
        text(&out.stdout).contains("ok (1 engines"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stderr).contains("alone (use_defaults = false)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_secret_comes_from_the_environment_and_is_never_printed() {
    let alone = Alone::new("secret");
    let file = alone.write(
        "work/engines.toml",
        "[[engine]]\nname = \"brave_api\"\nenabled = true\n",
    );
    let out = alone.run(&["check-config"], &[]);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    for part in [
        "brave_api",
        "X-Subscription-Token",
        "BRAVE_API_KEY",
        "not set",
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
    let out = alone.run(
        &["check-config", "--print-merged"],
        &[("BRAVE_API_KEY", "sk-secret-42")],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("${BRAVE_API_KEY}"));
    assert!(
        !all.contains("sk-secret-42"),
        "the secret was printed:\n{all}"
    );
    drop(file);
}

/// The full path through the copied binary: a user's file (found in
/// `~/.config`) adds a loopback engine to the built-in ones; `search` and
/// `serve` answer a query through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_alone_searches_through_a_users_engine() {
    let engine = LoopbackEngine::spawn(test_page(&[
        (
            "https://example.org/alone",
            "Found by the binary alone",
            "It needs no checkout.",
        ),
        ("https://example.org/two", "A second result", "Also here."),
    ]))
    .await;
    let alone = Alone::new("search");
    alone.write(
        "home/.config/metasift/engines.toml",
        &format!(
            "[server]\nresults_per_page = 7\n\n[[engine]]\nname = \"loop\"\nkind = \"searxng\"\nurl = \"{}/search?q={{query}}&format=json\"\nshortcut = \"lp\"\n",
            engine.base_url()
        ),
    );
    // `search`: the bang asks the loopback engine alone (the built-in ones
    // would need the network).
    let mut cmd = alone.command(&["search", "!lp rust", "--format", "json"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["results"][0]["url"], "https://example.org/alone");
    assert_eq!(json["results"][0]["engine"], "loop");

    // `serve`, on a free port, answering over HTTP.
    let mut child = alone
        .command(&["serve", "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if let Some(url) = line.strip_prefix("listening on ") {
                let _ = tx.send(url.trim_end_matches('/').to_string());
            }
        }
    });
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut std::io::BufReader::new(stderr), &mut s);
        s
    });
    let base = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(30)))
        .await
        .unwrap();
    let Ok(base) = base else {
        let _ = child.kill();
        panic!("serve did not start: {}", log.join().unwrap());
    };
    let client = metasift::search::client_builder().build().unwrap();
    let health = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert!(health.status().is_success());
    let body: serde_json::Value = client
        .get(format!("{base}/search?q=!lp+rust&format=json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The container's HEALTHCHECK: the binary asks /healthz itself, at the
    // address the configuration (and METASIFT_BIND) gives.
    let port = base.rsplit(':').next().unwrap().to_string();
    let bind = format!("0.0.0.0:{port}");
    let mut check = alone.command(&["healthcheck"]);
    check.env("METASIFT_BIND", &bind);
    let ok = tokio::task::spawn_blocking(move || check.output().unwrap())
        .await
        .unwrap();
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains(&format!("http://127.0.0.1:{port}/healthz: 200")));
    let _ = child.kill();
    let _ = child.wait();
    let down = alone
        .command(&["healthcheck", "--timeout", "2"])
        .env("METASIFT_BIND", &bind)
        .output()
        .unwrap();
    assert!(!down.status.success(), "a stopped server is unhealthy");
    let log = log.join().unwrap();
    assert_eq!(
        body["results"][0]["title"], "Found by the binary alone",
        "{body}"
    );
    assert!(engine.requests() >= 2, "the engine was asked by both");
    assert!(
        log.contains("home/.config/metasift/engines.toml (from the user's config folder), laid over the built-in defaults"),
        "{log}"
    );
    // No colour codes when stderr is not a terminal.
    assert!(
        !log.contains('\u{1b}'),
        "ANSI escapes in a piped log: {log:?}"
    );
}
