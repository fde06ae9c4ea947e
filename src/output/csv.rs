//! CSV of a search (`format=csv`), with SearXNG's columns
//! (`title,url,content,host,engine,score,type`): one `result` row per fused
//! result and one `suggestion` row per suggestion.

use super::FormatError;
use super::searxng::parsed_url;
use crate::model::SearchResponse;

/// The CSV document for `resp`, at most `limit` results.
pub fn to_csv(resp: &SearchResponse, limit: Option<usize>) -> Result<String, FormatError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["title", "url", "content", "host", "engine", "score", "type"])?;
    for r in resp.results.iter().take(limit.unwrap_or(usize::MAX)) {
        let host = parsed_url(&r.url)[1].clone();
        let score = format!("{}", if r.score.is_finite() { r.score } else { 0.0 });
        w.write_record([
            r.title.as_str(),
            &r.url,
            &r.content,
            &host,
            &r.engine,
            &score,
            "result",
        ])?;
    }
    for s in &resp.suggestions {
        w.write_record(["", "", s.as_str(), "", "", "", "suggestion"])?;
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
}
