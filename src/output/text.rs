//! The terminal's plain text of a search (`metasift search`), of its
//! unresponsive engines (standard error) and of `check-config --probe`.
//! Engine text is put on one line with its control characters dropped: an
//! engine could send escape sequences to the reader's terminal.

use std::fmt::Write as _;

use crate::model::{EngineReport, SearchResponse};

/// The terminal listing: rank, title, link, snippet, engines with
/// positions, and the duplicates hidden under each result.
pub fn render_text(response: &SearchResponse) -> String {
    let mut out = String::new();
    if response.results.is_empty() {
        out.push_str("no results\n");
    }
    for (rank, r) in response.results.iter().enumerate() {
        let _ = writeln!(out, "{:>2}. {}", rank + 1, one_line(&r.title));
        let _ = writeln!(out, "    {}", r.url);
        if !r.content.trim().is_empty() {
            let _ = writeln!(out, "    {}", one_line(&r.content));
        }
        let engines: Vec<String> = r
            .engines
            .iter()
            .zip(&r.positions)
            .map(|(e, p)| format!("{e} #{p}"))
            .collect();
        let _ = writeln!(
            out,
            "    engines: {}   score {:.3}",
            engines.join(", "),
            r.score
        );
        for d in &r.duplicates {
            let sim = d.similarity.map(|s| format!(" {s:.2}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "      = {} #{} by {}{}: {}",
                d.engine,
                d.position,
                d.stage.as_str(),
                sim,
                d.url
            );
        }
    }
    out
}

/// One line per unresponsive engine, for standard error, and one for the
/// results left out for breaking the query's operators.
pub fn render_failures(response: &SearchResponse) -> String {
    let mut out = String::new();
    if response.broke_operators > 0 {
        let _ = writeln!(
            out,
            "{} engine result(s) left out for breaking the query's operators",
            response.broke_operators
        );
    }
    for r in &response.engines {
        if let Some(kind) = r.failure {
            let _ = writeln!(
                out,
                "{}: {} after {} ms: {}",
                r.engine,
                kind.as_str(),
                r.elapsed_ms,
                r.reason.as_deref().unwrap_or("")
            );
        }
    }
    out
}

/// The `check-config --probe` table: engine, status, time, results.
pub fn render_probe(reports: &[EngineReport]) -> String {
    let status = |r: &EngineReport| match r.failure {
        None => "ok".to_string(),
        Some(kind) => format!("{}: {}", kind.as_str(), r.reason.as_deref().unwrap_or("")),
    };
    let name_w = reports
        .iter()
        .map(|r| r.engine.chars().count())
        .chain([6])
        .max()
        .unwrap_or(6);
    let mut out = format!(
        "{:<name_w$}  {:>8}  {:>7}  status\n",
        "engine", "time", "results"
    );
    for r in reports {
        let _ = writeln!(
            out,
            "{:<name_w$}  {:>5} ms  {:>7}  {}",
            r.engine,
            r.elapsed_ms,
            r.results,
            one_line(&status(r))
        );
    }
    out
}

/// Engine text on one terminal line: newlines and control characters (an
/// engine could send escape sequences) become spaces.
fn one_line(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_data::sample;

    #[test]
    fn text_is_one_line_per_field_without_control_characters() {
        let text = render_text(&sample());
        assert!(text.contains(" 1. Example [31mtitle"));
        assert!(!text.contains('\u{1b}'));
        assert!(text.contains("engines: a #1, b #3"));
        assert!(text.contains("= b #3 by url: https://www.example.com"));
        let failures = render_failures(&sample());
        assert_eq!(
            failures,
            "c: timeout after 3000 ms: no complete answer within 3000 ms\n"
        );
    }

    #[test]
    fn probe_table_has_one_row_per_engine() {
        let table = render_probe(&sample().engines);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[1].starts_with("a ") && lines[1].ends_with("ok"),
            "{table}"
        );
        assert!(
            lines[2].contains("3000 ms") && lines[2].contains("timeout: no complete"),
            "{table}"
        );
    }
}
