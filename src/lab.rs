//! Threshold sweeps, metrics and plots. (Skeleton: completed by the dedup issue.)

use std::path::PathBuf;

/// Arguments of `metasift lab`.
#[derive(Debug, Clone, clap::Args)]
pub struct LabArgs {
    /// Labeled data: pair TSV / JSON Lines, or record sets with a `group`.
    #[arg(long, required = true)]
    pub data: Vec<PathBuf>,
    /// Output folder.
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs the command.
pub fn run(_args: &LabArgs) -> Result<(), std::io::Error> {
    Ok(())
}
