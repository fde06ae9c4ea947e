//! The searcher's side of the web front end, through `web::router` with
//! `tower::ServiceExt::oneshot` (no socket): the reader's language,
//! preferences (a form, a cookie, a link), category tabs and selectors
//! without script, `/stats`, error pages.
//!
//! Run with `cargo test --test web_ui_language`.

#[path = "support/mod.rs"]
mod support;
#[path = "support/web_ui_app.rs"]
mod web_ui_app;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use support::router::{between, header_of, send};
use web_ui_app::app;

/// The interface follows `Accept-Language` unless the preferences cookie
/// says otherwise; `lang` is on `<html>`.
#[tokio::test]
async fn the_page_speaks_the_browsers_language_unless_told_otherwise() {
    let get = |accept: &'static str, cookie: Option<&'static str>| {
        let mut req = Request::get("/").header(header::ACCEPT_LANGUAGE, accept);
        if let Some(c) = cookie {
            req = req.header(header::COOKIE, c);
        }
        send(app(), req.body(Body::empty()).unwrap())
    };
    let (_, zh) = get("zh-CN,zh;q=0.9,en;q=0.8", None).await;
    assert!(
        zh.contains("<html lang=\"zh-Hans\" class=\"theme-auto\">"),
        "{zh}"
    );
    assert!(zh.contains("搜索网页") && zh.contains("偏好设置"), "{zh}");
    let (_, en) = get("en-GB,en;q=0.9", None).await;
    assert!(en.contains("<html lang=\"en\"") && en.contains("Search the web"));
    let (_, chosen) = get("zh-CN", Some("metasift_prefs=locale%3Den%26theme%3Ddark")).await;
    assert!(
        chosen.contains("<html lang=\"en\" class=\"theme-dark\">"),
        "{chosen}"
    );
}

/// The preferences form stores a cookie (303 back to the form, which shows
/// the stored values), the share link stores the same, and searches take
/// the stored settings as defaults.
#[tokio::test]
async fn preferences_are_a_plain_form_a_cookie_and_a_link() {
    let (resp, html) = send(
        app(),
        Request::get("/preferences").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(html.contains("<form class=\"prefs-form\" action=\"/preferences\" method=\"post\">"));
    assert!(!html.contains("<script"));
    let (resp, _) = send(
        app(),
        Request::post("/preferences")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(
                "form=1&locale=zh-Hans&theme=light&category=general&category=it\
                 &language=en&safesearch=2&results=5&method=simhash&os1=0.4&os2=0.8",
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    let cookie = header_of(&resp, header::SET_COOKIE);
    assert!(
        cookie.starts_with("metasift_prefs=") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    // The engine left unticked ("nowhere") is switched off.
    let pair = cookie.split(';').next().unwrap().to_string();
    let (_, form) = send(
        app(),
        Request::get("/preferences")
            .header(header::COOKIE, pair.clone())
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(
        form.contains("<html lang=\"zh-Hans\" class=\"theme-light\">"),
        "{form}"
    );
    assert!(form.contains("value=\"it\" checked"), "{form}");
    assert!(
        form.contains("name=\"engine\" value=\"nowhere\">"),
        "unticked: {form}"
    );
    assert!(form.contains("<option value=\"simhash\" selected>"));
    let share = form
        .split("<p class=\"share\">")
        .nth(1)
        .and_then(|s| s.split("href=\"").nth(1))
        .and_then(|s| s.split('"').next())
        .unwrap()
        .replace("&#38;", "&")
        .replace("&amp;", "&");
    assert!(share.starts_with("/preferences?save=1&"), "{share}");
    // Opening the share link stores the same settings.
    let (resp, _) = send(app(), Request::get(&share).body(Body::empty()).unwrap()).await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        header_of(&resp, header::SET_COOKIE)
            .split(';')
            .next()
            .unwrap(),
        pair
    );
    // A search with the cookie: the stored defaults are in its links.
    let (_, page) = send(
        app(),
        Request::get("/search?q=rust&format=json")
            .header(header::COOKIE, pair)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let v: serde_json::Value = serde_json::from_str(&page).unwrap();
    assert!(
        v["comparison"].is_object(),
        "simhash differs from [dedup]: {v}"
    );
}

/// Category tabs list the categories the enabled engines serve; the
/// current one is marked; language, time and safe-search selectors keep the
/// request's values.
#[tokio::test]
async fn category_tabs_and_selectors_need_no_script() {
    let (_, html) = send(
        app(),
        Request::get("/search?q=rust&categories=it&time_range=week&safesearch=1")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let tabs = between(&html, "<nav class=\"tabs\"", "</nav>");
    assert!(tabs.contains(">General</a>"), "{tabs}");
    assert!(
        tabs.contains("<span class=\"tab current\" aria-current=\"page\">IT</span>"),
        "{tabs}"
    );
    assert!(!tabs.contains("News"), "news-off is disabled: {tabs}");
    assert!(html.contains("<option value=\"week\" selected>"));
    assert!(html.contains("<option value=\"1\" selected>"));
    assert!(!html.contains("<script"));
}

/// `/stats` speaks the reader's language too, and its table headers stay
/// on one line each (`white-space: nowrap` in the stylesheet).
#[tokio::test]
async fn stats_is_readable_in_both_languages() {
    let (_, zh) = send(
        app(),
        Request::get("/stats")
            .header(header::ACCEPT_LANGUAGE, "zh-CN")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(zh.contains("<html lang=\"zh-Hans\""), "{zh}");
    assert!(
        zh.contains("<h1>引擎状态</h1>") && zh.contains("最近一次失败"),
        "{zh}"
    );
    let (_, en) = send(app(), Request::get("/stats").body(Body::empty()).unwrap()).await;
    assert!(en.contains("<th scope=\"col\">Last failure</th>"), "{en}");
    let (_, css) = send(
        app(),
        Request::get("/static/style.css")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(css.contains(".stats-table thead th { white-space: nowrap;"));
}

/// Error pages speak the reader's language (the preferences cookie, else
/// `Accept-Language`): the title, the status and the sentence; JSON keeps
/// English, what API clients have always read.
#[tokio::test]
async fn error_pages_speak_the_readers_language() {
    let zh = |uri: &str| {
        send(
            app(),
            Request::get(uri)
                .header(header::ACCEPT_LANGUAGE, "zh-CN,zh;q=0.9")
                .body(Body::empty())
                .unwrap(),
        )
    };
    let (resp, page) = zh("/no/such/page").await;
    assert_eq!(resp.status(), StatusCode::NOT_FOUND);
    assert!(page.contains("<html lang=\"zh-Hans\""), "{page}");
    assert!(page.contains("<title>未找到 — metasift</title>"), "{page}");
    assert!(page.contains("<h1>404 未找到</h1>"), "{page}");
    assert!(page.contains("这个地址没有页面"), "{page}");
    let (resp, page) = zh("/search?q=rust&page=99").await;
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    assert!(page.contains("<h1>400 请求有误</h1>"), "{page}");
    assert!(
        page.contains("页码 &#34;99&#34; 超出范围：请用 1 到 50 之间的整数")
            || page.contains("页码 &quot;99&quot; 超出范围：请用 1 到 50 之间的整数"),
        "{page}"
    );
    let (_, json) = zh("/search?q=rust&page=99&format=json").await;
    assert!(json.contains("page \\\"99\\\" is out of range"), "{json}");
    // The cookie's language wins over the browser's.
    let (_, page) = send(
        app(),
        Request::get("/no/such/page")
            .header(header::ACCEPT_LANGUAGE, "zh-CN")
            .header(header::COOKIE, "metasift_prefs=locale%3Den")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(page.contains("<h1>404 Not Found</h1>") && page.contains("There is no page"));
}
