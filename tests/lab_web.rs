//! `/lab` through `web::router` and `oneshot`: the data folder is listed and
//! nothing outside it is read, a sweep on pairs of our own (`tests/data/lab/`,
//! in the shapes of PAWS-X zh and STS-B en) shows the chart and a table whose
//! values equal the `results.csv` that `metasift lab` writes for the same
//! file, and bad uploads (too large, binary, an image, malformed lines, a CSV
//! of other columns) and bad sweeps are refused with a 4xx naming the problem.
//!
//! Run with `cargo test --test lab_web`.

#[path = "support/lab_upload.rs"]
mod lab_upload;
#[path = "support/router.rs"]
mod router;

use std::path::{Path, PathBuf};
use std::process::Command;

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lab");

fn app() -> axum::Router {
    let text = format!(
        r#"
[server]
deadline_ms = 500
[lab]
data_dir = "{FIXTURES}"
[[engine]]
name = "nowhere"
kind = "json"
url = "http://127.0.0.1:9/?q={{query}}"
[engine.parse]
results = "/items"
title = "title"
url = "url"
snippet = "snippet"
"#
    );
    router::app_with(router::config(&text))
}

async fn send(req: Request<Body>) -> (Response<()>, String) {
    router::send(app(), req).await
}

async fn get(uri: &str) -> (Response<()>, String) {
    send(Request::get(uri).body(Body::empty()).unwrap()).await
}

/// A multipart body with text fields and one `upload` file.
fn multipart(fields: &[(&str, &str)], file_name: &str, file: &[u8]) -> Request<Body> {
    let body = lab_upload::body(fields, file_name, file);
    Request::post("/lab")
        .header(header::CONTENT_TYPE, lab_upload::content_type())
        .body(Body::from(body))
        .unwrap()
}

/// The cells of the rows of the table with `id`.
fn table(html: &str, id: &str) -> Vec<Vec<String>> {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no table {id}"));
    let body = &html[start..];
    let body = &body[body.find("<tbody>").expect("tbody")..body.find("</tbody>").expect("/tbody")];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            row.split("<td>")
                .skip(1)
                .map(|c| c[..c.find("</td>").expect("/td")].to_string())
                .collect()
        })
        .collect()
}

/// The column names and rows of the table with `id`, each row as
/// (column, cell) pairs.
fn named_table(html: &str, id: &str) -> Vec<Vec<(String, String)>> {
    let start = html
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no table {id}"));
    let head = &html[start..];
    let head = &head[head.find("<thead>").expect("thead")..head.find("</thead>").expect("/thead")];
    // Each heading names its `results.csv` column in `data-col` (the text
    // is in the reader's language).
    let names: Vec<String> = head
        .split("<th data-col=\"")
        .skip(1)
        .map(|c| c[..c.find('"').expect("\"")].to_string())
        .collect();
    table(html, id)
        .into_iter()
        .map(|row| names.iter().cloned().zip(row).collect())
        .collect()
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "metasift-labweb-{label}-{}-{:?}",
            std::process::id(),
            std::time::SystemTime::now()
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `results.csv` of `metasift lab` on a fixture, every column named.
fn cli_records(file: &str, methods: &[&str], sweep: &str) -> Vec<Vec<(String, String)>> {
    csv_records(&cli_csv(file, methods, sweep))
}

/// `results.csv` of `metasift lab` on a fixture: (series, threshold, os1,
/// os2, precision, recall, f1) per row.
fn cli_rows(file: &str, methods: &[&str], sweep: &str) -> Vec<Vec<String>> {
    csv_rows(&cli_csv(file, methods, sweep))
}

fn cli_csv(file: &str, methods: &[&str], sweep: &str) -> String {
    let out = TempDir::new("cli");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_metasift"));
    cmd.arg("lab")
        .arg("--data")
        .arg(Path::new(FIXTURES).join(file))
        .args(["--sweep", sweep, "--out"])
        .arg(&out.0);
    for m in methods {
        cmd.args(["--method", m]);
    }
    let status = cmd.output().expect("run metasift lab");
    assert!(
        status.status.success(),
        "metasift lab failed: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    std::fs::read_to_string(out.0.join("results.csv")).expect("results.csv")
}

/// Every `results.csv` row as (column, value) pairs.
fn csv_records(csv: &str) -> Vec<Vec<(String, String)>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("csv row");
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn csv_rows(csv: &str) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let col = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let cols = [
        col("series"),
        col("threshold"),
        col("os1"),
        col("os2"),
        col("precision"),
        col("recall"),
        col("f1"),
    ];
    reader
        .records()
        .map(|r| {
            let r = r.expect("csv row");
            cols.iter().map(|&i| r[i].to_string()).collect()
        })
        .collect()
}

#[tokio::test]
async fn lab_page_lists_the_data_folder() {
    let (resp, body) = get("/lab").await;
    assert_eq!(resp.status(), StatusCode::OK);
    for name in ["zh_pairs.tsv", "en_pairs.tsv"] {
        assert!(
            body.contains(&format!("<option value=\"{name}\"")),
            "{name} not offered"
        );
    }
    // Not data: the folder's README is not offered.
    assert!(!body.contains("README.md"));
    assert!(body.contains("enctype=\"multipart/form-data\""));
    assert!(!body.contains("<svg"), "no chart before a run");
}

#[tokio::test]
async fn sweep_of_a_data_file_equals_metasift_lab() {
    let methods = ["feature-code", "simhash", "rabin", "none"];
    let query: String = methods.iter().map(|m| format!("&method={m}")).collect();
    let (resp, body) = get(&format!(
        "/lab?file=zh_pairs.tsv{query}&from=0.3&to=0.9&step=0.1"
    ))
    .await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    assert!(body.contains("<svg"), "the chart is inline");
    let cli = cli_rows("zh_pairs.tsv", &methods, "0.3:0.9:0.1");
    assert!(cli.len() > 10, "{cli:?}");
    // The F1 is not trivially zero everywhere: the data has duplicates.
    assert!(cli.iter().any(|r| r[6] != "0.000000"));
    // One table per method, with only the columns that apply to it, each
    // cell equal to the CLI's results.csv cell of the same name (seconds
    // differ from run to run).
    let cli_named = cli_records("zh_pairs.tsv", &methods, "0.3:0.9:0.1");
    let mut seen = 0;
    for m in methods {
        let web = named_table(&body, &format!("lab-rows-{m}"));
        let cli_m: Vec<_> = cli_named
            .iter()
            .filter(|r| r.iter().any(|(k, v)| k == "series" && v == m))
            .collect();
        assert_eq!(web.len(), cli_m.len(), "{m}");
        for (w, c) in web.iter().zip(&cli_m) {
            for (k, v) in w.iter().filter(|(k, _)| k != "seconds") {
                let want = c.iter().find(|(ck, _)| ck == k).map(|(_, cv)| cv);
                assert_eq!(Some(v), want, "{m} column {k}");
            }
        }
        let names: Vec<&str> = web[0].iter().map(|(k, _)| k.as_str()).collect();
        let expect: &[&str] = match m {
            "feature-code" => &[
                "threshold",
                "os1",
                "os2",
                "precision",
                "recall",
                "f1",
                "tp",
                "fp",
                "seconds",
            ],
            "simhash" => &[
                "threshold",
                "max_distance",
                "precision",
                "recall",
                "f1",
                "tp",
                "fp",
                "seconds",
            ],
            "rabin" => &[
                "block_threshold",
                "precision",
                "recall",
                "f1",
                "tp",
                "fp",
                "seconds",
            ],
            _ => &["precision", "recall", "f1", "tp", "fp", "seconds"],
        };
        assert_eq!(names, expect, "{m}");
        seen += web.len();
    }
    assert_eq!(seen, cli.len());
    let best = table(&body, "lab-best");
    assert_eq!(best.len(), methods.len());
    // The baselines are stated: PAWS-X rows of this file.
    assert!(body.contains("id=\"lab-baseline\""), "{body}");

    // The download link answers the same rows.
    let start = body.find("/lab/results.csv?id=").expect("csv link");
    let href = &body[start..start + body[start..].find('"').expect("end of href")];
    let (resp, csv) = get(href).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        resp.headers()[header::CONTENT_TYPE],
        "text/csv; charset=utf-8"
    );
    assert_eq!(csv_rows(&csv), cli);
}

#[tokio::test]
async fn uploaded_pairs_are_swept() {
    let text = std::fs::read(Path::new(FIXTURES).join("en_pairs.tsv")).unwrap();
    let (resp, body) = send(multipart(
        &[
            ("method", "feature-code"),
            ("from", "0.5"),
            ("to", "1"),
            ("step", "0.25"),
        ],
        "stsb.tsv",
        &text,
    ))
    .await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    assert!(body.contains("<svg"));
    let rows = table(&body, "lab-rows-feature-code");
    let thresholds: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(thresholds, ["0.5", "0.75", "1"]);
    assert!(!body.contains("id=\"lab-rows-simhash\""));
    // STS-B's middle band is dropped and said so.
    assert!(body.contains("rows dropped"), "{body}");
}

#[tokio::test]
async fn pasted_json_lines_pairs_are_swept() {
    let text = concat!(
        r#"{"a": {"url": "https://a.example/1", "title": "Rust", "snippet": "Rust is fast, safe, and fun. It has no GC."}, "b": {"url": "https://b.example/1", "title": "Rust lang", "snippet": "Rust is fast, safe, and fun. It has no GC!"}, "duplicate": true}"#,
        "\n",
        r#"{"a": {"url": "https://a.example/2", "title": "Tea", "snippet": "Green tea, black tea; oolong."}, "b": {"url": "https://b.example/2", "title": "Coffee", "snippet": "Espresso, latte: cappuccino."}, "duplicate": false}"#,
        "\n"
    );
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("text", text)
        .append_pair("method", "feature-code")
        .append_pair("from", "0.5")
        .append_pair("to", "0.5")
        .append_pair("step", "0.1")
        .finish();
    let (resp, page) = send(
        Request::post("/lab")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK, "{page}");
    let rows = table(&page, "lab-rows-feature-code");
    assert_eq!(rows.len(), 1);
    // One duplicate found, one distinct pair kept apart.
    assert_eq!(
        &rows[0][3..8],
        ["1.000000", "1.000000", "1.000000", "1", "0"]
    );
}

/// Posts `file` as an upload and returns the status and the page.
async fn upload(name: &str, file: &[u8]) -> (StatusCode, String) {
    let (resp, body) = send(multipart(&[("method", "feature-code")], name, file)).await;
    (resp.status(), body)
}

fn error_of(page: &str) -> &str {
    let start = page.find("id=\"lab-error\">").expect("an error notice") + 15;
    &page[start..start + page[start..].find("</p>").expect("end of notice")]
}

#[tokio::test]
async fn too_large_upload_is_refused() {
    let mut big = b"id\ttext_a\ttext_b\tlabel\tscore\n".to_vec();
    while big.len() < 3 * 1024 * 1024 {
        big.extend_from_slice(b"x\tsome text, here.\tother text, there.\t1\t\n");
    }
    let (status, page) = upload("big.tsv", &big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(error_of(&page).contains("larger than 2.0 MB"), "{page}");
    assert!(!page.contains("<svg"));
}

#[tokio::test]
async fn too_many_pairs_are_refused() {
    let mut text = b"id\ttext_a\ttext_b\tlabel\tscore\n".to_vec();
    for i in 0..20_001 {
        text.extend_from_slice(format!("{i}\ta.\tb.\t1\t\n").as_bytes());
    }
    let (status, page) = upload("many.tsv", &text).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(error_of(&page).contains("20001 pairs"), "{page}");
}

#[tokio::test]
async fn images_and_binary_files_are_refused() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01";
    let (status, page) = upload("chart.png", png).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(error_of(&page).contains("PNG image"), "{page}");

    let (status, page) = upload("data.bin", b"id\ttext_a\0\x01\x02").await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(error_of(&page).contains("binary"), "{page}");

    let (status, page) = upload(
        "latin1.tsv",
        b"id\ttext_a\ttext_b\tlabel\n1\tcaf\xe9\tx\t1\n",
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(error_of(&page).contains("not UTF-8"), "{page}");
}

#[tokio::test]
async fn wrong_kind_and_malformed_files_are_refused_naming_the_problem() {
    let (status, page) = upload("other.csv", b"name,age,city\nann,3,paris\n").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(&page).contains("text_a"), "{page}");

    let (status, page) = upload(
        "bad.tsv",
        b"id\ttext_a\ttext_b\tlabel\tscore\n1\tonly two\n2\ta\tb\tmaybe\t\n",
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let e = error_of(&page);
    assert!(
        e.contains("no usable labeled line") && e.contains("bad.tsv:2"),
        "{e}"
    );

    let (status, page) = upload("x.jsonl", b"{\"x\": 1}\n").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(&page).contains("group"), "{page}");
}

#[tokio::test]
async fn bad_sweeps_and_paths_are_refused() {
    let (resp, page) = get("/lab?file=zh_pairs.tsv&from=0&to=1&step=0").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(&page).contains("step"), "{page}");

    let (resp, page) = get("/lab?file=zh_pairs.tsv&from=0&to=1&step=0.01").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(&page).contains("at most 50"), "{page}");

    let (resp, page) = get("/lab?file=zh_pairs.tsv&method=bogus").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(&page).contains("bogus"), "{page}");

    for name in [
        "../lab.rs",
        "..%2F..%2FCargo.toml",
        "%2Fetc%2Fpasswd",
        "SOURCES.md",
    ] {
        let (resp, page) = get(&format!("/lab?file={name}")).await;
        assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{name}");
        assert!(error_of(&page).contains("not one of the data files"));
    }

    let (resp, _) = get("/lab/results.csv?id=nope").await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_best_setting_is_chosen_under_the_precision_floor() {
    // SimHash on PAWS-X: the loose distances merge almost every pair (the
    // max-F1 setting); the best setting under a floor must not be one of them.
    let sweep = "&from=0.1&to=0.9&step=0.1";
    let (resp, body) = get(&format!("/lab?file=zh_pairs.tsv&method=simhash{sweep}")).await;
    assert_eq!(resp.status(), StatusCode::OK, "{body}");
    assert!(
        body.contains("value=\"0.98\""),
        "the floor field shows [lab]'s default"
    );
    let rows = named_table(&body, "lab-rows-simhash");
    let best = named_table(&body, "lab-best");
    assert_eq!(best.len(), 1);
    let cell = |r: &Vec<(String, String)>, k: &str| {
        r.iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap()
    };
    let max_f1 = rows
        .iter()
        .max_by(|a, b| cell(a, "f1").partial_cmp(&cell(b, "f1")).unwrap())
        .unwrap();
    let best_p: f64 = cell(&best[0], "precision").parse().unwrap();
    let max_f1_p: f64 = cell(max_f1, "precision").parse().unwrap();
    assert!(best_p > max_f1_p, "best {best:?} vs max-F1 {max_f1:?}");
    // With a floor of 0.5 a looser setting is allowed: recall rises.
    let (_, loose) = get(&format!(
        "/lab?file=zh_pairs.tsv&method=simhash{sweep}&floor=0.5"
    ))
    .await;
    let loose_best = named_table(&loose, "lab-best");
    let r = |t: &Vec<Vec<(String, String)>>| -> f64 { cell(&t[0], "recall").parse().unwrap() };
    assert!(r(&loose_best) >= r(&best), "{loose_best:?} vs {best:?}");
    assert!(
        loose.contains("precision floor 0.5"),
        "the floor line is drawn"
    );
    // The true and false positives are shown.
    assert!(best[0].iter().any(|(k, _)| k == "tp") && best[0].iter().any(|(k, _)| k == "fp"));
    // A bad floor is refused before any work.
    let (resp, page) = get("/lab?file=zh_pairs.tsv&method=simhash&floor=1.5").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(&page).contains("precision floor"), "{page}");
}

/// `/lab` speaks the reader's language: the page, its refusals, the tables'
/// headings (each still naming its `results.csv` column in `data-col`) and
/// the chart's caption; `lang` is on `<html>`.
#[tokio::test]
async fn the_lab_speaks_chinese_and_english() {
    let zh = |uri: &str| {
        send(
            Request::get(uri)
                .header(header::ACCEPT_LANGUAGE, "zh-CN,zh;q=0.9,en;q=0.5")
                .body(Body::empty())
                .unwrap(),
        )
    };
    let (resp, page) = zh("/lab").await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(page.contains("<html lang=\"zh-Hans\""), "{page}");
    for text in [
        "实验室：在标注数据上比较去重方法",
        "运行扫描",
        "阈值范围（最多 50 个点）",
        "数据集",
    ] {
        assert!(page.contains(text), "{text}: {page}");
    }
    let (_, run) = zh("/lab?file=zh_pairs.tsv&method=simhash&from=0.5&to=1&step=0.25").await;
    assert!(
        run.contains("<th data-col=\"precision\">精确率</th>"),
        "{run}"
    );
    assert!(run.contains("精确率（实线）"), "{run}");
    assert!(run.contains("各方法的最佳设置"), "{run}");
    assert_eq!(named_table(&run, "lab-rows-simhash").len(), 3);
    let (resp, refused) = zh("/lab?file=nothing-here.tsv").await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(
        error_of(&refused).contains("不在此处提供的数据文件之中"),
        "{refused}"
    );
    let (resp, png) = send({
        let mut req = multipart(
            &[("method", "feature-code")],
            "x.tsv",
            b"\x89PNG\r\n\x1a\n....",
        );
        req.headers_mut()
            .insert(header::ACCEPT_LANGUAGE, "zh".parse().unwrap());
        req
    })
    .await;
    assert_eq!(resp.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(
        error_of(&png).contains("这是PNG 图片，不是标注文本"),
        "{png}"
    );
    // The same in English, as before.
    let (_, en) = get("/lab?file=nothing-here.tsv").await;
    assert!(en.contains("<html lang=\"en\""));
    assert!(error_of(&en).contains("is not one of the data files offered here"));
}
