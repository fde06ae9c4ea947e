//! Categories as SearXNG names them (#27): `categories=` in every format and
//! in a `POST` form (and SearXNG's own `category_NAME=on` fields), `!science`
//! and `!images` in the query, the tabs on the results page and the
//! choice on the home page, `/config` and the preferences — and a category
//! no enabled engine serves is offered nowhere. One loopback engine per
//! category (`support/categories.rs`), through `web::router` without a socket.
//!
//! Run with `cargo test --test web_categories`.

#[path = "support/categories.rs"]
mod categories;
#[path = "support/mod.rs"]
mod support;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use categories::{Instance, url_of};
use support::router::{between, get_from, send};

/// The result URLs of a JSON answer, and each result's category.
/// The one result of a search that only engine `name` of `category`
/// answered, as [`urls_and_categories`] lists it.
fn only(name: &str, category: &str) -> Vec<(String, String)> {
    vec![(url_of(name).to_string(), category.to_string())]
}

fn urls_and_categories(body: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(body).expect("JSON");
    v["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["url"].as_str().unwrap().to_string(),
                r["category"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn categories_pick_the_engines_in_every_format() {
    let i = Instance::start().await;
    let app = i.app();
    for (category, engine) in [("science", "scholar"), ("images", "pics"), ("it", "code")] {
        let (resp, body) = get_from(
            &app,
            &format!("/search?q=rust&format=json&categories={category}"),
        )
        .await;
        assert_eq!(resp.status(), StatusCode::OK, "{body}");
        assert_eq!(
            urls_and_categories(&body),
            [(url_of(engine).to_string(), category.to_string())],
            "{category}"
        );
        for format in ["csv", "rss", "html"] {
            let (resp, body) = get_from(
                &app,
                &format!("/search?q=rust&format={format}&categories={category}"),
            )
            .await;
            assert_eq!(resp.status(), StatusCode::OK, "{format}: {body}");
            assert!(body.contains(url_of(engine)), "{format} {category}: {body}");
            assert!(!body.contains(url_of("web")), "{format} {category}: {body}");
        }
    }
    // Two categories: both engines, nothing of general.
    let (_, body) = get_from(&app, "/search?q=rust&format=json&categories=science,it").await;
    let mut got: Vec<String> = urls_and_categories(&body)
        .into_iter()
        .map(|r| r.0)
        .collect();
    got.sort();
    assert_eq!(got, [url_of("scholar"), url_of("code")]);
    // `category=`, as PyPI's `searxng_search` client sends it.
    let (_, body) = get_from(&app, "/search?q=rust&format=json&category=it").await;
    assert_eq!(urls_and_categories(&body)[0].0, url_of("code"));
    // None named: general.
    let (_, body) = get_from(&app, "/search?q=rust&format=json").await;
    assert_eq!(urls_and_categories(&body), only("web", "general"));
}

/// As SearXNG: names no enabled engine serves are left out (`map`'s only
/// engine is off; `nope` is nobody's), and with none left the search is a
/// general one — never a silent empty page.
#[tokio::test]
async fn unknown_and_unserved_categories_fall_back_to_general() {
    let i = Instance::start().await;
    let app = i.app();
    for asked in ["nope", "map", "map,nope", "SCIENCE"] {
        let (_, body) = get_from(
            &app,
            &format!("/search?q=rust&format=json&categories={asked}"),
        )
        .await;
        assert_eq!(
            urls_and_categories(&body),
            only("web", "general"),
            "{asked}"
        );
    }
    let (_, body) = get_from(&app, "/search?q=rust&format=json&categories=nope,science").await;
    assert_eq!(urls_and_categories(&body), only("scholar", "science"));
    assert_eq!(i.asked("atlas"), 0, "a disabled engine is never asked");
}

/// A `POST` form body carries `categories=` as the query string does, and
/// SearXNG's own form fields (`category_images=on`, `off` unticks) work too.
#[tokio::test]
async fn a_posted_form_and_searxng_category_fields_pick_categories() {
    let i = Instance::start().await;
    let post = |body: &'static str| {
        Request::post("/search")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap()
    };
    let (_, body) = send(i.app(), post("q=rust&format=json&categories=images")).await;
    assert_eq!(urls_and_categories(&body), only("pics", "images"));
    let (_, body) = send(i.app(), post("q=rust&format=json&category_science=on")).await;
    assert_eq!(urls_and_categories(&body), only("scholar", "science"));
    let (_, body) = send(
        i.app(),
        post("q=rust&format=json&category_science=on&category_it=1&category_science=off"),
    )
    .await;
    assert_eq!(urls_and_categories(&body), only("code", "it"));
    // `categories=` wins over the ticked fields.
    let (_, body) = send(
        i.app(),
        post("q=rust&format=json&categories=images&category_science=on"),
    )
    .await;
    assert_eq!(urls_and_categories(&body), only("pics", "images"));
}

/// `!science`, `!images` and an engine's `!shortcut` in the query pick what
/// they name, and win over `categories=`; the word is not searched for.
#[tokio::test]
async fn bangs_name_categories_and_engines() {
    let i = Instance::start().await;
    let app = i.app();
    for (q, engine, category) in [
        ("!science+rust", "scholar", "science"),
        ("rust+!images", "pics", "images"),
        ("!it+rust", "code", "it"),
        ("!sch+rust", "scholar", "science"),
        ("!scholar+rust", "scholar", "science"),
    ] {
        let (_, body) = get_from(
            &app,
            &format!("/search?q={q}&format=json&categories=general"),
        )
        .await;
        assert_eq!(
            urls_and_categories(&body),
            [(url_of(engine).to_string(), category.to_string())],
            "{q}"
        );
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["query"], "rust", "{q}: the bang is not searched for");
    }
}

/// The results page has a tab per served category in SearXNG's order
/// (general, images, …, it, science), the current one marked; no tab for
/// `map`. Each tab searches the same words in its own category: the words
/// that picked a category (`!science`) are left out of its link. In
/// Chinese, the tabs have Chinese names.
#[tokio::test]
async fn tabs_in_searxng_order_and_their_links_pick_their_category() {
    let i = Instance::start().await;
    let app = i.app();
    let (_, html) = get_from(&app, "/search?q=%21science+rust").await;
    let tabs = between(&html, "<nav class=\"tabs\"", "</nav>");
    let labels: Vec<&str> = tabs
        .split("class=\"tab")
        .skip(1)
        .map(|t| between(t, ">", "<"))
        .collect();
    assert_eq!(labels, ["General", "Images", "IT", "Science"], "{tabs}");
    assert!(
        tabs.contains("<span class=\"tab current\" aria-current=\"page\">Science</span>"),
        "{tabs}"
    );
    assert!(
        tabs.contains("<a class=\"tab\" href=\"/search?q=rust&#38;categories=images\">Images</a>"),
        "{tabs}"
    );
    assert!(!tabs.contains("Map"), "{tabs}");
    assert!(!html.contains("<script"));

    let (_, zh) = send(
        app.clone(),
        Request::get("/search?q=rust&categories=images")
            .header(header::ACCEPT_LANGUAGE, "zh-CN")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let tabs = between(&zh, "<nav class=\"tabs\"", "</nav>");
    for label in ["综合", "信息技术", "科学"] {
        assert!(tabs.contains(&format!(">{label}</a>")), "{label}: {tabs}");
    }
    assert!(
        tabs.contains("<span class=\"tab current\" aria-current=\"page\">图片</span>"),
        "{tabs}"
    );
    // An engine named: no category tab is current.
    let (_, html) = get_from(&app, "/search?q=rust&engines=code").await;
    let tabs = between(&html, "<nav class=\"tabs\"", "</nav>");
    assert!(!tabs.contains("current"), "{tabs}");
}

/// The home page offers the served categories under the box (radio
/// buttons: no script), general chosen, or the preferences' one category.
#[tokio::test]
async fn the_home_page_offers_the_served_categories() {
    let i = Instance::start().await;
    let (_, html) = get_from(&i.app(), "/").await;
    let choice = between(&html, "<fieldset class=\"category-choice\">", "</fieldset>");
    let values: Vec<&str> = choice
        .split("name=\"categories\" value=\"")
        .skip(1)
        .map(|t| t.split('"').next().unwrap())
        .collect();
    assert_eq!(values, ["general", "images", "it", "science"]);
    assert!(choice.contains("value=\"general\" checked"), "{choice}");
    let (_, html) = send(
        i.app(),
        Request::get("/")
            .header(header::COOKIE, "metasift_prefs=categories%3Dscience")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let choice = between(&html, "<fieldset class=\"category-choice\">", "</fieldset>");
    assert!(choice.contains("value=\"science\" checked"), "{choice}");
    assert!(!choice.contains("value=\"general\" checked"), "{choice}");
}

/// `/config` lists the served categories in the same order, and every
/// engine with its categories (the one switched off says so).
#[tokio::test]
async fn config_lists_the_served_categories_and_every_engine() {
    let i = Instance::start().await;
    let (_, body) = get_from(&i.app(), "/config").await;
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["categories"],
        serde_json::json!(["general", "images", "it", "science"])
    );
    let engines = v["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 5);
    let atlas = engines.iter().find(|e| e["name"] == "atlas").unwrap();
    assert_eq!(atlas["categories"], serde_json::json!(["map"]));
    assert_eq!(atlas["enabled"], false);
    let scholar = engines.iter().find(|e| e["name"] == "scholar").unwrap();
    assert_eq!(scholar["shortcut"], "sch");
}

/// The preferences offer the served categories only; the ones saved are
/// what a search without `categories=` asks.
#[tokio::test]
async fn preferences_choose_the_default_categories() {
    let i = Instance::start().await;
    let (_, html) = get_from(&i.app(), "/preferences").await;
    for c in ["general", "images", "it", "science"] {
        assert!(
            html.contains(&format!("name=\"category\" value=\"{c}\"")),
            "{c}"
        );
    }
    assert!(
        !html.contains("value=\"map\""),
        "no enabled engine serves map"
    );
    let (resp, _) = send(
        i.app(),
        Request::post("/preferences")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(
                "form=1&category=science&category=it&engine=web&engine=scholar&engine=pics&engine=code",
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(resp.status(), StatusCode::SEE_OTHER);
    let cookie = resp.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let search = |uri: &str| {
        Request::get(uri)
            .header(header::COOKIE, cookie.clone())
            .body(Body::empty())
            .unwrap()
    };
    let (_, body) = send(i.app(), search("/search?q=rust&format=json")).await;
    let mut got: Vec<String> = urls_and_categories(&body)
        .into_iter()
        .map(|r| r.0)
        .collect();
    got.sort();
    assert_eq!(got, [url_of("scholar"), url_of("code")]);
    // A search's own categories win over the preferences.
    let (_, body) = send(
        i.app(),
        search("/search?q=rust&format=json&categories=images"),
    )
    .await;
    assert_eq!(urls_and_categories(&body)[0].0, url_of("pics"));
    let (_, html) = send(i.app(), search("/preferences")).await;
    assert!(html.contains("value=\"science\" checked"), "{html}");
    assert!(!html.contains("value=\"general\" checked"), "{html}");
}

/// An instance with no enabled `general` engine (science and IT only): a
/// search that names nothing asks the first category served, which the
/// home page, the tabs and the preferences show as chosen.
#[tokio::test]
async fn without_a_general_engine_the_first_category_served_is_the_default() {
    let mut i = Instance::start().await;
    for e in &mut i.config.engines {
        e.enabled = matches!(e.name.as_str(), "scholar" | "code");
    }
    let app = i.app();
    let (_, body) = get_from(&app, "/search?q=rust&format=json").await;
    assert_eq!(urls_and_categories(&body), only("code", "it"));
    let (_, html) = get_from(&app, "/search?q=rust").await;
    let tabs = between(&html, "<nav class=\"tabs\"", "</nav>");
    assert!(tabs.contains("aria-current=\"page\">IT</span>"), "{tabs}");
    let (_, home) = get_from(&app, "/").await;
    assert!(home.contains("value=\"it\" checked"), "{home}");
    assert!(home.contains("Searches 1 engine"), "{home}");
    let (_, prefs) = get_from(&app, "/preferences").await;
    assert!(
        prefs.contains("name=\"category\" value=\"it\" checked"),
        "{prefs}"
    );
}
