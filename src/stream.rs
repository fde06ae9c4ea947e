//! `metasift dedup`: JSON Lines in, one verdict per record out, streaming.
//! (Skeleton: completed by the dedup issue.)

use std::path::PathBuf;

/// Arguments of `metasift dedup`.
#[derive(Debug, Clone, clap::Args)]
pub struct DedupArgs {
    /// Input JSON Lines file, `-` for standard input.
    #[arg(long, default_value = "-")]
    pub input: PathBuf,
    /// Output file, `-` for standard output.
    #[arg(long, default_value = "-")]
    pub output: PathBuf,
}

/// Runs the command; returns the process exit code.
pub fn run(_args: &DedupArgs) -> Result<i32, std::io::Error> {
    Ok(0)
}
