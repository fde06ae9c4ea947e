//! CSV of a search (`format=csv`), with SearXNG's columns
//! (`title,url,content,host,engine,score,type`): one `result` row per fused
//! result and one `suggestion` row per suggestion.

use super::FormatError;
use super::searxng::parsed_url;
use crate::model::SearchResponse;

/// A text cell a spreadsheet will show as text: one that starts with `=`,
/// `+`, `-`, `@`, a tab or a carriage return (OWASP's list), or with the
/// full-width `＝ ＋ － ＠` some spreadsheets also read as formulas, gets a
/// leading `'`. The CSV writer then quotes the field as its content needs.
pub fn cell(text: &str) -> std::borrow::Cow<'_, str> {
    const TRIGGERS: &[char] = &[
        '=', '+', '-', '@', '\t', '\r', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}',
    ];
    if text.starts_with(TRIGGERS) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// The CSV document for `resp`, at most `limit` results.
pub fn to_csv(resp: &SearchResponse, limit: Option<usize>) -> Result<String, FormatError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["title", "url", "content", "host", "engine", "score", "type"])?;
    for r in resp.results.iter().take(limit.unwrap_or(usize::MAX)) {
        let host = parsed_url(&r.url)[1].clone();
        let score = format!("{}", if r.score.is_finite() { r.score } else { 0.0 });
        w.write_record([
            &*cell(&r.title),
            &cell(&r.url),
            &cell(&r.content),
            &cell(&host),
            &cell(&r.engine),
            &score,
            "result",
        ])?;
    }
    for s in &resp.suggestions {
        w.write_record(["", "", &cell(s), "", "", "", "suggestion"])?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))?;
    // Every field written was a `&str`, so the buffer is UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::test_data::response;

    #[test]
    fn csv_quotes_commas_quotes_and_newlines() {
        let text = to_csv(&response("a, \"b\""), None).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let row = r.records().next().unwrap().unwrap();
        assert_eq!(&row[0], "a, \"b\"");
        assert_eq!(&row[2], "line one\nline \"two\", three");
        assert_eq!(&row[3], "example.org");
        assert_eq!(&row[4], "e");
        assert_eq!(&row[6], "result");
    }

    #[test]
    fn formula_cells_are_written_as_text() {
        for (raw, shown) in [
            (
                "=HYPERLINK(\"http://evil.example\",\"x\")",
                "'=HYPERLINK(\"http://evil.example\",\"x\")",
            ),
            ("+1+1", "'+1+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("\r=1", "'\r=1"),
            ("＝1+1", "'＝1+1"),
            ("a=1", "a=1"),
            ("", ""),
        ] {
            assert_eq!(cell(raw), shown, "{raw:?}");
        }
        let mut resp = response("=cmd|' /C calc'!A0");
        resp.results[0].content = "-1,\"=2\"".into();
        resp.suggestions = vec!["@x".into()];
        let text = to_csv(&resp, None).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<_> = r.records().map(Result::unwrap).collect();
        assert_eq!(&rows[0][0], "'=cmd|' /C calc'!A0");
        assert_eq!(&rows[0][2], "'-1,\"=2\"");
        assert_eq!(&rows[1][2], "'@x");
        // No line of the document starts a formula either.
        assert!(
            !text.lines().any(|l| l.starts_with(['=', '+', '-', '@'])),
            "{text}"
        );
    }
}
