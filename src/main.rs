//! The `metasift` command line: parse arguments, load config, call the library.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

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
        Command::Search { .. } | Command::CheckConfig { .. } => {
            anyhow::bail!("not built yet")
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
    if record.is_some() || replay.is_some() {
        anyhow::bail!("--record and --replay are not supported by `serve` yet");
    }
    let config = metasift::config::Config::load(config_path)?;
    let bind = bind
        .or_else(|| std::env::var("METASIFT_BIND").ok())
        .unwrap_or_else(|| config.server.bind.clone());
    let client = reqwest::Client::builder()
        .build()
        .context("cannot build the HTTP client")?;
    let searcher = metasift::search::Searcher::new(std::sync::Arc::new(config), client);
    let app = metasift::web::router(metasift::web::AppState::new(searcher));

    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&bind)
            .await
            .with_context(|| format!("cannot listen on {bind}"))?;
        let addr = listener.local_addr()?;
        tracing::info!("metasift listening on http://{addr}/");
        // Tests that start the binary on port 0 read the address from here.
        println!("listening on http://{addr}/");
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .context("server failed")?;
        tracing::info!("metasift stopped");
        Ok(())
    })
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
