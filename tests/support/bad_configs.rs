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
    /// The file's other problems, `(line, message part)`, each reported
    /// in the same run (the error list is exactly `line` and these).
    #[serde(default)]
    pub more: Vec<(usize, String)>,
}

impl Case {
    /// Every problem of the file: `(line, message part)`, in line order.
    pub fn problems(&self) -> Vec<(usize, String)> {
        let mut all = vec![(self.line, self.message.clone())];
        all.extend(self.more.iter().cloned());
        all
    }
}

/// Every case of `tests/data/bad_configs.toml`, in the file's order.
pub fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bad_configs.toml");
    let table = std::fs::read_to_string(path).expect("tests/data/bad_configs.toml");
    let cases: Cases = toml::from_str(&table).expect("tests/data/bad_configs.toml parses");
    cases.case
}

/// Whether `shown` (each error as `FILE:LINE:COLUMN: message`) is exactly
/// the case's problems, in line order, each in `file` at its own line.
pub fn reports_every_problem(case: &Case, file: &str, shown: &[String]) -> Result<(), String> {
    let want = case.problems();
    let fits = shown.len() == want.len()
        && want.iter().zip(shown).all(|((line, part), got)| {
            got.starts_with(&format!("{file}:{line}:")) && got.contains(part.as_str())
        });
    if fits {
        Ok(())
    } else {
        Err(format!(
            "{}: got\n  {}\nwant (line, part)\n  {want:?}",
            case.name,
            shown.join("\n  ")
        ))
    }
}
