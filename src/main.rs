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
        Command::Serve { .. } | Command::Search { .. } | Command::CheckConfig { .. } => {
            anyhow::bail!("not built yet")
        }
    }
    Ok(())
}
