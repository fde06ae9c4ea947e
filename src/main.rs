//! The `metasift` command line: parse arguments, load config, call the library.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use metasift::config::{Config, ConfigSource};
use metasift::output::searxng::SearxngResponse;
use metasift::output::text;
use metasift::search::{Asked, RequestError, Searcher};

/// A meta-search engine that removes duplicates by URL, title and snippet
/// feature codes.
#[derive(Debug, Parser)]
#[command(name = "metasift", version, about)]
struct Cli {
    /// Log lines as text (coloured on a terminal only) or as JSON objects,
    /// one per line. RUST_LOG sets what is logged.
    #[arg(long, global = true, env = "METASIFT_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    log_format: String,
    #[command(subcommand)]
    command: Option<Command>,
}

/// What `metasift search` asks besides the words, as `/search` takes it.
#[derive(Debug, Default, clap::Args)]
struct Choice {
    /// Categories to search (general, images, videos, news, science, it,
    /// map, …), comma-separated or repeated; a `!category` in the query wins.
    #[arg(long, value_delimiter = ',')]
    categories: Vec<String>,
    /// Engines to ask by name, comma-separated or repeated; a `!shortcut` in
    /// the query wins.
    #[arg(long, value_delimiter = ',')]
    engines: Vec<String>,
    /// Only results from the last day, week, month or year.
    #[arg(long, value_parser = ["day", "week", "month", "year"])]
    time_range: Option<String>,
    /// Safe search: 0 off, 1 moderate, 2 strict.
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=2))]
    safesearch: Option<u8>,
    /// Language of the results wanted (en, de, zh-CN, …); wins over a
    /// `:lang` word.
    #[arg(long, value_parser = language_code)]
    lang: Option<String>,
    /// How the engines' lists are fused: position, rrf, combsum, combmnz or
    /// borda (default: `[fusion] method`).
    #[arg(long)]
    fusion: Option<metasift::config::FusionMethod>,
}

/// A language code as `--lang` takes it.
fn language_code(s: &str) -> Result<String, String> {
    let s = s.trim();
    if !s.is_empty() && s.len() <= 16 && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        Ok(s.to_string())
    } else {
        Err(format!(
            "{s:?} is not a language code such as en, de or zh-CN"
        ))
    }
}

// One value, parsed once per process: the size of its largest variant
// (the lab's many flags) costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Start the web server (the default command).
    Serve {
        /// The configuration file, laid over the built-in defaults (default:
        /// METASIFT_CONFIG, ./engines.toml,
        /// $XDG_CONFIG_HOME/metasift/engines.toml, /etc/metasift/engines.toml,
        /// the first found; none = the built-in defaults).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Address to listen on (overrides `[server] bind` and METASIFT_BIND).
        #[arg(long)]
        bind: Option<String>,
        /// Save every engine's raw answer into this folder.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Answer every engine's request from this recording.
        #[arg(long)]
        replay: Option<PathBuf>,
        /// Serve the offline demo built into the binary (examples/offline.toml
        /// and its recordings, written out once under ~/.cache/metasift/): no
        /// engine asks the network.
        #[arg(long, conflicts_with_all = ["config", "replay"])]
        demo: bool,
    },
    /// Run one query from the terminal.
    Search {
        /// The query (`!shortcut`, operators; `!!bang` prints where it goes).
        query: String,
        /// The configuration file (looked for as `serve` does).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
        /// Result page.
        #[arg(long, default_value_t = 1)]
        page: u32,
        /// Save every engine's raw answer into this folder (says which were
        /// saved; exit 1 when an engine gave none to save).
        #[arg(long)]
        record: Option<PathBuf>,
        /// Answer every engine's request from this recording (a folder that
        /// must exist).
        #[arg(long)]
        replay: Option<PathBuf>,
        #[command(flatten)]
        choice: Choice,
    },
    /// An MCP server over stdio for an agent or an editor to start (tools:
    /// `search`, `engines`); `serve` offers the same at `/mcp`.
    Mcp {
        /// The configuration file (looked for as `serve` does).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Deduplicate a JSON Lines stream of records.
    Dedup(metasift::jsonl::DedupArgs),
    /// Compare dedup methods and thresholds on labeled data.
    Lab(metasift::lab::LabArgs),
    /// Ask a running server's `/healthz` (exit 0 when it answers 200): the
    /// container HEALTHCHECK, with no curl in the image.
    Healthcheck {
        /// The URL to ask (default: `/healthz` at the address `serve` would
        /// listen on, from the same configuration and METASIFT_BIND).
        #[arg(long)]
        url: Option<String>,
        /// The configuration file (looked for as `serve` does).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Seconds to wait for the answer.
        #[arg(long, default_value_t = 5)]
        timeout: u64,
    },
    /// Validate a configuration file; `--probe` asks each engine once.
    CheckConfig {
        /// The configuration file (looked for as `serve` does when absent).
        file: Option<PathBuf>,
        /// Ask every enabled engine this query and report what it answered.
        #[arg(long)]
        probe: Option<String>,
        /// Print the configuration the file and the built-in defaults make
        /// together (TOML, `${VAR}` not filled in), after checking it.
        #[arg(long)]
        print_merged: bool,
    },
}

/// Finds the configuration (`--config`, METASIFT_CONFIG, ./engines.toml,
/// the user's and the system's config folders, else the built-in
/// defaults), says which, and loads it validated with env overrides.
fn load_config(explicit: Option<&Path>) -> anyhow::Result<(Config, ConfigSource)> {
    let source = ConfigSource::locate(explicit);
    let config = match metasift::config::load(&source, &metasift::engines::check) {
        Ok(config) => config,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            anyhow::bail!("{} problem(s) in the configuration: {source}", errors.len());
        }
    };
    tracing::info!("configuration: {}", describe(&source, &config));
    Ok((config, source))
}

/// [`load_config`] for the commands whose output is the point (`dedup`,
/// `lab`): which file they use is said on stderr whatever the log level.
fn load_config_said(explicit: Option<&Path>) -> anyhow::Result<Config> {
    let (config, source) = load_config(explicit)?;
    eprintln!("configuration: {}", describe(&source, &config));
    Ok(config)
}

/// Which file the configuration came from and how it was read.
fn describe(source: &ConfigSource, config: &Config) -> String {
    match (source.path(), config.use_defaults) {
        (None, _) => source.to_string(),
        (Some(_), Some(false)) => format!("{source}, alone (use_defaults = false)"),
        (Some(_), _) => format!("{source}, laid over the built-in defaults"),
    }
}

/// `metasift search`: exit 0 when at least one engine answered and, with
/// `--record`, every engine's answer was saved.
fn search(
    query: &str,
    config: Option<&Path>,
    format: &str,
    page: u32,
    (record, replay): (Option<PathBuf>, Option<PathBuf>),
    choice: Choice,
) -> anyhow::Result<i32> {
    let (config, _) = load_config(config)?;
    check_recording_dirs(record.as_deref(), replay.as_deref())?;
    let searcher = Searcher::from_config(config)?.with_recording(record.clone(), replay);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let asked = Asked {
        q: query.to_string(),
        page,
        engines: choice.engines,
        categories: choice.categories,
        language: choice.lang,
        time_range: choice.time_range,
        safesearch: choice.safesearch,
        fusion: choice.fusion,
        ..Asked::default()
    };
    let request = match searcher.request(asked) {
        Ok(request) => request,
        // An external bang searches nothing here: where it goes is the answer.
        Err(RequestError::ExternalBang(target)) => {
            println!("{target}");
            return Ok(0);
        }
        Err(e) => anyhow::bail!("{}", e.describe(searcher.config())),
    };
    let q = &request.query;
    let response = runtime.block_on(searcher.run(&request))?;
    if format == "json" {
        let json = SearxngResponse::from_response(&response);
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{}", text::render_text(&response));
    }
    eprint!("{}", text::render_failures(&response));
    let answered = response.engines.iter().any(|r| r.failure.is_none());
    let recorded = match &record {
        Some(dir) => report_recorded(dir, q, &response),
        None => true,
    };
    Ok(if answered && recorded { 0 } else { 1 })
}

/// `--record` and `--replay` folders checked before anything is asked:
/// a replay folder that is not there, or a record folder that cannot be
/// written, is one clear error.
fn check_recording_dirs(record: Option<&Path>, replay: Option<&Path>) -> anyhow::Result<()> {
    use metasift::search::recording;
    if let Some(dir) = replay {
        recording::check_replay_dir(dir).map_err(|e| anyhow::anyhow!("--replay: {e}"))?;
    }
    if let Some(dir) = record {
        recording::prepare_record_dir(dir)
            .map_err(|e| anyhow::anyhow!("--record: cannot write recordings: {e}"))?;
    }
    Ok(())
}

/// Says on stderr which answers `--record` saved into `dir` and which
/// engine gave none to save (and why); false when any engine's is missing.
fn report_recorded(
    dir: &Path,
    q: &metasift::model::Query,
    response: &metasift::model::SearchResponse,
) -> bool {
    use metasift::search::recording::is_recorded;
    let (saved, missing): (Vec<_>, Vec<_>) = response
        .engines
        .iter()
        .partition(|r| is_recorded(dir, &r.engine, q));
    eprintln!(
        "recorded {} of {} engine answers into {}",
        saved.len(),
        response.engines.len(),
        dir.display()
    );
    for r in &missing {
        let why = match &r.failure {
            Some(kind) => format!("no answer to save ({})", kind.as_str()),
            None => "its answer could not be written (see the warning above)".into(),
        };
        eprintln!("not recorded: {}: {why}", r.engine);
    }
    missing.is_empty()
}

/// `metasift check-config`: every problem with its file:line, then the
/// merged configuration or the probe table; exit 1 on any problem or
/// failed engine.
fn check_config(
    file: Option<&Path>,
    probe: Option<&str>,
    print_merged: bool,
) -> anyhow::Result<i32> {
    let source = ConfigSource::locate(file);
    let config = match metasift::config::load(&source, &metasift::engines::check) {
        Ok(config) => config,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            return Ok(1);
        }
    };
    let enabled = config.engines.iter().filter(|e| e.enabled).count();
    let name = source
        .path()
        .map_or("built-in defaults".to_string(), |p| p.display().to_string());
    eprintln!("configuration: {}", describe(&source, &config));
    if print_merged {
        print!("{}", Config::layered_toml(&source)?);
    } else {
        println!(
            "{name}: ok ({} engines, {enabled} enabled)",
            config.engines.len()
        );
        for (name, why) in metasift::engines::tree_only_engines(&config) {
            println!("engine {name:?} reads its pages with the tree path only: {why}");
        }
    }
    let Some(text) = probe else { return Ok(0) };
    let searcher = Searcher::from_config(config)?;
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let reports = runtime.block_on(searcher.probe(text));
    print!("{}", text::render_probe(&reports));
    Ok(if reports.iter().all(|r| r.failure.is_none()) {
        0
    } else {
        1
    })
}

/// Logs to stderr for every subcommand: `info` for the server and
/// `check-config`, `warn` for the others (their output is the point),
/// RUST_LOG overriding; colour only on a terminal.
fn init_logging(format: &str, default_level: &str) {
    use std::io::IsTerminal as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    if format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// `metasift healthcheck`: 0 when `/healthz` answers 200 in time.
fn healthcheck(url: Option<String>, config: Option<&Path>, timeout: u64) -> anyhow::Result<i32> {
    let url = match url {
        Some(url) => url,
        None => {
            let (config, _) = load_config(config)?;
            let bind = config.server.bind;
            // A server listening on every address answers on loopback.
            let (host, port) = bind.rsplit_once(':').context("[server] bind has no port")?;
            let host = match host {
                "0.0.0.0" | "" => "127.0.0.1",
                "[::]" => "[::1]",
                h => h,
            };
            format!("http://{host}:{port}/healthz")
        }
    };
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let answer = runtime.block_on(async {
        let client = metasift::search::client_builder()
            .timeout(std::time::Duration::from_secs(timeout))
            .build()?;
        client.get(&url).send().await
    });
    match answer {
        Ok(r) if r.status().is_success() => {
            println!("{url}: {}", r.status());
            Ok(0)
        }
        Ok(r) => {
            eprintln!("{url}: {}", r.status());
            Ok(1)
        }
        Err(e) => {
            eprintln!("{url}: {e}");
            Ok(1)
        }
    }
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve {
        config: None,
        bind: None,
        record: None,
        replay: None,
        demo: false,
    });
    let level = match command {
        Command::Serve { .. } | Command::CheckConfig { .. } => "info",
        // Each engine's failure is said once, in the list after the
        // results, not also as a log line.
        Command::Search { .. } => "warn,metasift::search::gather=error",
        _ => "warn",
    };
    init_logging(&cli.log_format, level);
    match command {
        Command::Dedup(args) => {
            let config = load_config_said(args.config.as_deref())?;
            let code = metasift::jsonl::run(&args, &config.dedup)?;
            std::process::exit(code);
        }
        Command::Lab(args) => {
            let config = load_config_said(args.config.as_deref())?;
            metasift::lab::run(&args, &config)?
        }
        Command::Serve {
            config,
            bind,
            record,
            replay,
            demo,
        } => {
            #[cfg(all(target_os = "linux", target_env = "gnu"))]
            with_fixed_mmap_threshold();
            let config = if demo {
                let base = metasift::search::demo::default_base();
                let file = metasift::search::demo::write_out(&base).with_context(|| {
                    format!("writing the built-in demo into {}", base.display())
                })?;
                Some(file)
            } else {
                config
            };
            serve(config.as_deref(), bind, record, replay)?
        }
        Command::Mcp { config } => {
            let (config, _) = load_config(config.as_deref())?;
            let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
            runtime.block_on(async {
                let searcher = metasift::mcp::searcher_for(config)?;
                metasift::mcp::serve_stdio(searcher).await
            })?;
        }
        Command::Search {
            query,
            config,
            format,
            page,
            record,
            replay,
            choice,
        } => {
            let code = search(
                &query,
                config.as_deref(),
                &format,
                page,
                (record, replay),
                choice,
            )?;
            std::process::exit(code);
        }
        Command::Healthcheck {
            url,
            config,
            timeout,
        } => {
            let code = healthcheck(url, config.as_deref(), timeout)?;
            std::process::exit(code);
        }
        Command::CheckConfig {
            file,
            probe,
            print_merged,
        } => {
            let code = check_config(file.as_deref(), probe.as_deref(), print_merged)?;
            std::process::exit(code);
        }
    }
    Ok(())
}

/// What `serve` runs under when the environment names no `GLIBC_TUNABLES`:
/// glibc's own default mmap threshold (128 KiB), fixed. Left dynamic,
/// glibc raises it to the size of each large block freed, so after the
/// first engine page (100 KB–1 MB) every later one comes from the
/// per-thread arenas, which keep it: 60–75 MB under uncached load against
/// 40–50 MB fixed (docs/decisions.md, "The server's memory").
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_TUNABLE: &str = "glibc.malloc.mmap_threshold=131072";

/// glibc reads its tunables only when a process starts, so `serve` runs
/// itself again, once, with [`MMAP_THRESHOLD_TUNABLE`] — unless the
/// operator set `GLIBC_TUNABLES` (theirs is kept as it is), or this is
/// already the second run (`METASIFT_REEXEC`; a secure-mode start may drop
/// the tunables). When the binary cannot be run again it goes on as it is.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn with_fixed_mmap_threshold() {
    use std::os::unix::process::CommandExt as _;
    if std::env::var_os("GLIBC_TUNABLES").is_some() || std::env::var_os("METASIFT_REEXEC").is_some()
    {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let mut again = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        again.arg0(arg0);
    }
    // Returns only when the binary could not be run.
    let error = again
        .args(args)
        .env("GLIBC_TUNABLES", MMAP_THRESHOLD_TUNABLE)
        .env("METASIFT_REEXEC", "1")
        .exec();
    tracing::warn!("running with glibc's dynamic mmap threshold ({error})");
}

/// `metasift serve`: load the config, build the searcher, listen until
/// Ctrl-C or SIGTERM, then let in-flight requests finish.
fn serve(
    config_path: Option<&Path>,
    bind: Option<String>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
) -> anyhow::Result<()> {
    // Validated with every problem shown; METASIFT_BIND applied.
    let (mut config, source) = load_config(config_path)?;
    check_recording_dirs(record.as_deref(), replay.as_deref())?;
    // A reload re-reads the file alone: --record/--replay hold until then.
    config.apply_recording(record, replay);
    let bind = bind.unwrap_or_else(|| config.server.bind.clone());
    let server_config = config.server.clone();
    let admin_token = std::env::var("METASIFT_ADMIN_TOKEN").ok();
    let metrics_token = std::env::var("METASIFT_METRICS_TOKEN").ok();
    if config.server.public {
        tracing::info!(
            "public instance: per-client limits on, /stats and /metrics for loopback{}",
            if metrics_token.is_some() {
                " or the METASIFT_METRICS_TOKEN bearer"
            } else {
                " only"
            }
        );
    } else {
        tracing::info!(
            "private instance: per-client limits {} ([server] public = true for an open one)",
            if config.limits.per_minute > 0 {
                "on, as [limits] sets"
            } else {
                "off"
            }
        );
    }
    // A reload re-reads the file chosen at start (none: nothing to reload).
    let config_path = source.path().map(Path::to_path_buf);

    let connections = config.server.connections.clone();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let served = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&bind)
            .await
            .with_context(|| format!("cannot listen on {bind}"))?;
        let addr = listener.local_addr()?;
        // The name /stats gives this instance when health is shared.
        let mut config = config;
        config
            .server
            .instance_id
            .get_or_insert_with(|| metasift::ops::shared_health::default_instance_id(addr.port()));
        // Built inside the runtime: a Redis cache starts a connection task.
        let state = metasift::web::AppState::serving(config, config_path, admin_token)?
            .with_metrics_token(metrics_token);
        reload_on_sighup(state.clone());
        let app = metasift::web::router(state);
        tracing::info!("metasift listening on http://{addr}/");
        if let Some(warning) = server_config.base_url_disagrees(addr) {
            tracing::warn!("{warning}");
        }
        // Tests that start the binary on port 0 read the address from here.
        println!("listening on http://{addr}/");
        metasift::web::serve::serve(listener, app, &connections, shutdown_signal())
            .await
            .context("server failed")?;
        anyhow::Ok(())
    });
    // Connections still open after the grace period, and lab work still
    // running on blocking threads, are dropped here, not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    served?;
    tracing::info!("metasift stopped");
    Ok(())
}

/// SIGHUP re-reads the configuration file, like `POST /admin/reload`.
/// The handler is installed before this returns (so before `listening on`
/// is printed): a SIGHUP sent right after start must reload, not kill.
fn reload_on_sighup(state: metasift::web::AppState) {
    #[cfg(unix)]
    {
        let Ok(mut hup) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        else {
            return;
        };
        tokio::spawn(async move {
            while hup.recv().await.is_some() {
                match state.reload().await {
                    Ok(message) => tracing::info!("SIGHUP: {}", message.trim_end()),
                    Err(e) => {
                        tracing::warn!("SIGHUP: reload refused, running configuration kept: {e}")
                    }
                }
            }
        });
    }
    #[cfg(not(unix))]
    let _ = state;
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}
