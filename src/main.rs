//! The `metasift` command line: parse arguments, load config, call the library.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use metasift::config::Config;
use metasift::output::searxng::SearxngResponse;
use metasift::output::text;
use metasift::search::{SearchOptions, Searcher};

/// A meta-search engine that removes duplicates by URL, title and snippet
/// feature codes.
#[derive(Debug, Parser)]
#[command(name = "metasift", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the web server (the default command).
    Serve {
        /// The configuration file.
        #[arg(long, default_value = "engines.toml")]
        config: PathBuf,
        /// Address to listen on (overrides `[server] bind` and METASIFT_BIND).
        #[arg(long)]
        bind: Option<String>,
        /// Save every engine's raw answer into this folder.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Answer every engine's request from this recording.
        #[arg(long)]
        replay: Option<PathBuf>,
    },
    /// Run one query from the terminal.
    Search {
        /// The query (`!shortcut` allowed).
        query: String,
        /// The configuration file.
        #[arg(long, default_value = "engines.toml")]
        config: PathBuf,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
        /// Result page.
        #[arg(long, default_value_t = 1)]
        page: u32,
        /// Save every engine's raw answer into this folder.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Answer every engine's request from this recording.
        #[arg(long)]
        replay: Option<PathBuf>,
    },
    /// Deduplicate a JSON Lines stream of records.
    Dedup(metasift::stream::DedupArgs),
    /// Compare dedup methods and thresholds on labeled data.
    Lab(metasift::lab::LabArgs),
    /// Validate a configuration file; `--probe` asks each engine once.
    CheckConfig {
        /// The configuration file.
        #[arg(default_value = "engines.toml")]
        file: PathBuf,
        /// Ask every enabled engine this query and report what it answered.
        #[arg(long)]
        probe: Option<String>,
    },
}

/// Loads a configuration for running searches: validated, env applied.
fn load_config(path: &Path) -> anyhow::Result<Config> {
    let mut config = match metasift::engines::check_config_file(path) {
        Ok(config) => config,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            anyhow::bail!("{} problem(s) in {}", errors.len(), path.display());
        }
    };
    config.apply_env();
    Ok(config)
}

/// `metasift search`: exit 0 when at least one engine answered.
fn search(
    query: &str,
    config: &Path,
    format: &str,
    page: u32,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
) -> anyhow::Result<i32> {
    let searcher = Searcher::from_config(load_config(config)?)?.with_recording(record, replay);
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let q = searcher.parse_query(query, page);
    let response = runtime.block_on(searcher.search(&q, &SearchOptions::default()))?;
    if format == "json" {
        let json = SearxngResponse::from_response(&response);
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{}", text::render_text(&response));
    }
    eprint!("{}", text::render_failures(&response));
    let answered = response.engines.iter().any(|r| r.failure.is_none());
    Ok(if answered { 0 } else { 1 })
}

/// `metasift check-config`: every problem with its file:line, then the
/// probe table; exit 1 on any problem or failed engine.
fn check_config(file: &Path, probe: Option<&str>) -> anyhow::Result<i32> {
    let config = match metasift::engines::check_config_file(file) {
        Ok(config) => config,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            return Ok(1);
        }
    };
    let enabled = config.engines.iter().filter(|e| e.enabled).count();
    println!(
        "{}: ok ({} engines, {enabled} enabled)",
        file.display(),
        config.engines.len()
    );
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

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Serve {
        config: PathBuf::from("engines.toml"),
        bind: None,
        record: None,
        replay: None,
    });
    match command {
        Command::Dedup(args) => {
            let code = metasift::stream::run(&args)?;
            std::process::exit(code);
        }
        Command::Lab(args) => metasift::lab::run(&args)?,
        Command::Serve {
            config,
            bind,
            record,
            replay,
        } => serve(&config, bind, record, replay)?,
        Command::Search {
            query,
            config,
            format,
            page,
            record,
            replay,
        } => {
            let code = search(&query, &config, &format, page, record, replay)?;
            std::process::exit(code);
        }
        Command::CheckConfig { file, probe } => {
            let code = check_config(&file, probe.as_deref())?;
            std::process::exit(code);
        }
    }
    Ok(())
}

/// `metasift serve`: load the config, build the searcher, listen until
/// Ctrl-C or SIGTERM, then let in-flight requests finish.
fn serve(
    config_path: &std::path::Path,
    bind: Option<String>,
    record: Option<PathBuf>,
    replay: Option<PathBuf>,
) -> anyhow::Result<()> {
    use anyhow::Context as _;

    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    // Validated with every problem shown; METASIFT_BIND applied.
    let mut config = load_config(config_path)?;
    // A reload re-reads the file alone: --record/--replay hold until then.
    config.apply_recording(record, replay);
    let bind = bind.unwrap_or_else(|| config.server.bind.clone());
    let server_config = config.server.clone();
    let admin_token = std::env::var("METASIFT_ADMIN_TOKEN").ok();
    let config_path = config_path.to_path_buf();

    let connections = config.server.connections.clone();
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let served = runtime.block_on(async move {
        // Built inside the runtime: a Redis cache starts a connection task.
        let state = metasift::web::AppState::serving(config, Some(config_path), admin_token)?;
        reload_on_sighup(state.clone());
        let app = metasift::web::router(state);
        let listener = tokio::net::TcpListener::bind(&bind)
            .await
            .with_context(|| format!("cannot listen on {bind}"))?;
        let addr = listener.local_addr()?;
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
