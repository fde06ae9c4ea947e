//! `POST /lab` uploads for the tests of the lab page: a multipart body of
//! text fields and one `upload` file, and labeled record sets to put in it.
//! Include it with `#[path = "support/lab_upload.rs"] mod lab_upload;`.

#![allow(dead_code)]

/// The multipart boundary of every body built here.
pub const BOUNDARY: &str = "----metasiftlabupload";

/// `multipart/form-data; boundary=…`, the type of [`body`]'s bytes.
pub fn content_type() -> String {
    format!("multipart/form-data; boundary={BOUNDARY}")
}

/// A multipart body: the text `fields`, then `file` as the `upload` field
/// named `file_name`.
pub fn body(fields: &[(&str, &str)], file_name: &str, file: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    for (k, v) in fields {
        body.extend_from_slice(
            format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"{file_name}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// One labeled record set of `n` records (every tenth a copy of the one
/// before), as JSON Lines.
pub fn record_set(query: &str, n: usize) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..n {
        let g = if i % 10 == 9 { i - 1 } else { i };
        out.push_str(
            &serde_json::json!({
                "query": query,
                "group": format!("g{g}"),
                "id": i,
                "url": format!("https://site{g}.example/page/{g}"),
                "title": format!("Result number {g} about {query}"),
                "snippet": format!("Snippet {g}: some words about the topic, number {g}, here."),
            })
            .to_string(),
        );
        out.push('\n');
    }
    out.into_bytes()
}
