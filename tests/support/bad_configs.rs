//! The bad files of `tests/data/bad_configs.toml`: each with the line and
//! the part of the message its refusal must give (`tests/config.rs` reads
//! them alone, `tests/layering.rs` laid over the built-in defaults).

use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Cases {
    case: Vec<Case>,
}

/// One bad file.
#[derive(Debug, Deserialize)]
pub struct Case {
    /// What is wrong with it.
    pub name: String,
    /// The file's text.
    pub text: String,
    /// The line the error must name.
    pub line: usize,
    /// A part of the message the error must give.
    pub message: String,
}

/// Every case of `tests/data/bad_configs.toml`, in the file's order.
pub fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bad_configs.toml");
    let table = std::fs::read_to_string(path).expect("tests/data/bad_configs.toml");
    let cases: Cases = toml::from_str(&table).expect("tests/data/bad_configs.toml parses");
    cases.case
}
