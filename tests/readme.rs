//! Every command README.md shows a newcomer runs as written (issue #25: its
//! first command once stopped with "could not determine which binary to
//! run", and no test noticed).
//!
//! [`COMMANDS`] is the README's list, in one place: the test fails when a
//! code block of README.md holds a command it does not name, or names one
//! the README no longer shows. `cargo run --release [-- ARGS]` and
//! `metasift ARGS` run the binary cargo built for this test with those
//! arguments (a release build inside a test would take minutes; the binary
//! is the same program): `cargo run` in the checkout, the installed
//! `metasift` in an empty folder with an empty home. A server is started on
//! a free loopback port (`METASIFT_BIND=127.0.0.1:0`), asked `/healthz` (and
//! a search, when it answers from recordings), and stopped.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// How the test runs one of the README's commands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Run {
    /// A server: started, asked `/healthz`, stopped.
    Server(Place),
    /// A server answering from recordings: also asked a search, which must
    /// find results.
    Offline(Place),
    /// A command that must exit 0.
    Once(Place),
    /// Not run here, and why.
    Not(&'static str),
}

/// Where it is run.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    /// The checkout (where `cargo run` is typed).
    Checkout,
    /// An empty folder, with an empty home: an installed binary.
    Anywhere,
    /// An empty folder holding `rec/`, a recording (the demo's).
    WithRecording,
}

/// Every command of README.md's code blocks, as written there.
const COMMANDS: &[(&str, Run)] = &[
    ("cargo run --release", Run::Server(Place::Checkout)),
    ("cargo test", Run::Not("the command running this test")),
    (
        "cargo install --path . --locked --profile dist",
        Run::Not(
            "a fat-LTO build of minutes; tests/install.rs runs the binary alone, as installed",
        ),
    ),
    ("metasift serve", Run::Server(Place::Anywhere)),
    ("metasift check-config", Run::Once(Place::Anywhere)),
    (
        "docker build -t metasift . && docker run -p 8888:8888 metasift",
        Run::Not("needs Docker: scripts/container_check.sh runs it"),
    ),
    (
        "docker compose up -d",
        Run::Not("needs Docker: scripts/container_check.sh runs it"),
    ),
    (
        "docker compose up -d --scale metasift=3",
        Run::Not("needs Docker: scripts/container_check.sh runs it"),
    ),
    (
        "sudo install -m 644 deploy/metasift.service /etc/systemd/system/ && sudo systemctl enable --now metasift",
        Run::Not("needs root and systemd"),
    ),
    (
        "cargo run --release -- serve --config examples/offline.toml",
        Run::Offline(Place::Checkout),
    ),
    ("metasift serve --demo", Run::Offline(Place::Anywhere)),
    (
        "metasift search \"rust async\" --record rec/",
        Run::Not("asks the real engines on the network"),
    ),
    (
        "metasift search \"rust async\" --replay rec/",
        Run::Once(Place::WithRecording),
    ),
    (
        "metasift serve --replay rec/",
        Run::Offline(Place::WithRecording),
    ),
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The commands of README.md's `sh` code blocks: continuation lines joined,
/// comments and repeated spaces dropped.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).unwrap();
    let mut out = Vec::new();
    // Inside a fence, and whether it is a shell block.
    let mut fence: Option<bool> = None;
    let mut pending = String::new();
    for line in readme.lines() {
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(
                    lang.trim(),
                    "sh" | "bash" | "shell" | "console" | ""
                )),
            };
            continue;
        }
        if fence != Some(true) {
            continue;
        }
        let code = line.find(" #").map_or(line, |i| &line[..i]);
        let code = code.trim();
        if let Some(head) = code.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(code);
        let command = pending.split_whitespace().collect::<Vec<_>>().join(" ");
        pending.clear();
        if !command.is_empty() {
            out.push(command);
        }
    }
    out
}

#[test]
fn the_readme_shows_exactly_the_commands_tested() {
    let readme = readme_commands();
    let listed: Vec<&str> = COMMANDS.iter().map(|(c, _)| *c).collect();
    let unlisted: Vec<&String> = readme
        .iter()
        .filter(|c| !listed.contains(&c.as_str()))
        .collect();
    let gone: Vec<&&str> = listed
        .iter()
        .filter(|c| !readme.iter().any(|r| r == *c))
        .collect();
    assert!(
        unlisted.is_empty() && gone.is_empty(),
        "README.md shows commands tests/readme.rs does not name: {unlisted:?}; \
         it names commands README.md no longer shows: {gone:?}"
    );
}

/// Splits a command as a shell would for these simple ones (double quotes).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// The binary's arguments for `cargo run --release [-- ARGS]` or `metasift ARGS`.
fn binary_args(command: &str) -> Vec<String> {
    let w = words(command);
    if w.first().map(String::as_str) == Some("metasift") {
        return w[1..].to_vec();
    }
    assert!(
        w.starts_with(&["cargo".into(), "run".into(), "--release".into()]),
        "{command}: neither `metasift …` nor `cargo run --release …`"
    );
    match w.iter().position(|x| x == "--") {
        Some(i) => w[i + 1..].to_vec(),
        None => {
            assert_eq!(w.len(), 3, "{command}: arguments after `--` only");
            Vec::new()
        }
    }
}

/// A fresh folder for one command, with its home inside.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("metasift-readme-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("home")).unwrap();
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// The command, in its place, with an environment that names no
/// configuration of the machine's.
fn command(args: &[String], place: Place, name: &str) -> (Command, PathBuf) {
    let dir = scratch(name);
    let cwd = match place {
        Place::Checkout => crate_dir(),
        Place::Anywhere => dir.clone(),
        Place::WithRecording => {
            copy_dir(&crate_dir().join("examples/demo"), &dir.join("rec"));
            dir.clone()
        }
    };
    let home = dir.join("home");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_metasift"));
    cmd.args(args)
        .current_dir(cwd)
        .env_remove("METASIFT_CONFIG")
        .env("METASIFT_BIND", "127.0.0.1:0")
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .stdin(Stdio::null());
    (cmd, dir)
}

/// `GET path` on a loopback server: (status, body).
fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// Starts the server, asks it, stops it.
fn serve(readme: &str, args: &[String], place: Place, offline: bool, name: &str) {
    let (mut cmd, dir) = command(args, place, name);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(addr) = line.strip_prefix("listening on http://") {
                let _ = tx.send(addr.trim_end_matches('/').to_string());
            }
        }
    });
    // A bound on a broken start, not a measure of speed.
    let addr = rx.recv_timeout(Duration::from_secs(120));
    let outcome = std::panic::catch_unwind(|| {
        let addr = addr.unwrap_or_else(|_| panic!("{readme}: never said `listening on`"));
        let (status, body) = http_get(&addr, "/healthz");
        assert_eq!((status, body.trim()), (200, "ok"), "{readme}: /healthz");
        let (status, _) = http_get(&addr, "/");
        assert_eq!(status, 200, "{readme}: the front page");
        if offline {
            let (status, body) = http_get(&addr, "/search?q=rust&format=json");
            assert_eq!(status, 200, "{readme}: {body}");
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            let results = json["results"].as_array().map_or(0, Vec::len);
            assert!(results > 0, "{readme}: no result for `rust`: {body}");
            // Engines whose recording lacks `rust` say so; none failed.
            let failed: Vec<&serde_json::Value> = json["unresponsive_engines"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|e| !e[1].as_str().is_some_and(|r| r.contains("no recording")))
                .collect();
            assert!(
                failed.is_empty(),
                "{readme}: engines failed offline: {failed:?}"
            );
        }
    });
    let _ = child.kill();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(panic) = outcome {
        eprintln!("{readme}: exit {status}; its log:\n{stderr}");
        std::panic::resume_unwind(panic);
    }
}

fn once(readme: &str, args: &[String], place: Place, name: &str) {
    let (mut cmd, dir) = command(args, place, name);
    let out = cmd.output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{readme}: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    if args.first().map(String::as_str) == Some("search") {
        assert!(
            stdout.contains("http"),
            "{readme}: no result printed:\n{stdout}"
        );
    }
}

#[test]
fn every_readme_command_runs_as_written() {
    for (i, (readme, run)) in COMMANDS.iter().enumerate() {
        let name = i.to_string();
        match *run {
            Run::Server(place) => serve(readme, &binary_args(readme), place, false, &name),
            Run::Offline(place) => serve(readme, &binary_args(readme), place, true, &name),
            Run::Once(place) => once(readme, &binary_args(readme), place, &name),
            Run::Not(why) => eprintln!("not run: {readme} ({why})"),
        }
    }
}
