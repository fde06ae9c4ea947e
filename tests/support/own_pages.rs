//! Result pages this team writes, in the markup of the engines the shipped
//! presets read: the loopback engines of the web, fan-out, replay and
//! browser tests answer with these, so every such test runs in a clone
//! without the team's data folder.
//!
//! The markup copies the structure and class names of the engines' real
//! pages (the saved ones in the data folder, and `tests/presets_markup.rs`
//! for the 2024–2026 shapes): the wrappers engines put around links
//! (DuckDuckGo's `/l/?uddg=`, Bing's `ck/a?…&u=a1<base64>`, Yahoo's
//! `RU=…/RK=`), display URLs, favicons, labels and cards beside the results
//! that the presets must skip. The text is ours — short pages about search
//! engines, Rust and sleep, written for these tests — never copied from a
//! saved page.
//!
//! Standard library only: the tools crate includes this file too.

#![allow(dead_code)]

use std::fmt::Write as _;

#[path = "own_api.rs"]
mod own_api;
#[allow(unused_imports)]
pub use own_api::{
    API_ENGINES, Entity, INFOBOX_ENGINES, TWO_CALL_ENGINES, entity_answer, first_answer,
    wikidata_search,
};

/// One result as a person sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The target page.
    pub url: String,
    /// Its title.
    pub title: String,
    /// What the engine says about it.
    pub snippet: String,
}

/// A [`Hit`].
pub fn hit(url: &str, title: &str, snippet: &str) -> Hit {
    Hit {
        url: url.into(),
        title: title.into(),
        snippet: snippet.into(),
    }
}

/// A page body and the content type an engine sends it with.
#[derive(Debug, Clone)]
pub struct Page {
    /// The body.
    pub body: String,
    /// The `Content-Type`.
    pub content_type: &'static str,
}

/// The scraped presets [`results`], [`no_results`] and [`blocked`] write
/// pages for.
pub const SCRAPED_ENGINES: [&str; 17] = [
    "duckduckgo",
    "bing",
    "brave",
    "mojeek",
    "startpage",
    "yahoo",
    "ecosia",
    "aol",
    "ask",
    "baidu",
    "sogou_weixin",
    "sogou",
    "qwant",
    "swisscows",
    "wikipedia",
    "brave_api",
    "google_news",
];

/// Every preset [`results`], [`no_results`] and [`blocked`] write pages
/// for: the scraped ones, then the API presets ([`API_ENGINES`], answers in
/// `own_api.rs`).
pub const ENGINES: [&str; SCRAPED_ENGINES.len() + API_ENGINES.len()] = {
    let mut all = [""; SCRAPED_ENGINES.len() + API_ENGINES.len()];
    let mut i = 0;
    while i < SCRAPED_ENGINES.len() {
        all[i] = SCRAPED_ENGINES[i];
        i += 1;
    }
    while i < all.len() {
        all[i] = API_ENGINES[i - SCRAPED_ENGINES.len()];
        i += 1;
    }
    all
};

const HTML: &str = "text/html; charset=utf-8";

/// Text as HTML text or a double-quoted attribute value.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// Text as a JSON string, quotes included.
pub fn json_str(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Percent-encoding of everything but unreserved characters (a link inside
/// another link's query, as the engines' wrappers carry it).
pub fn pct(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// URL-safe base64 without padding (Bing's `u=a1…`).
fn base64url(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// A stable hex tag from text (the tracking parameters of the wrappers).
fn tag(text: &str, len: usize) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::new();
    while out.len() < len {
        for b in text.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        let _ = write!(out, "{h:016x}");
    }
    out.truncate(len);
    out
}

/// `host` and `› a › b` of a link, as engines show it.
fn display(url: &str) -> (String, String) {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let crumbs: Vec<&str> = path
        .split(['/', '?', '#'])
        .filter(|s| !s.is_empty())
        .take(3)
        .collect();
    let crumbs = if crumbs.is_empty() {
        String::new()
    } else {
        format!(" › {}", crumbs.join(" › "))
    };
    (host.to_string(), crumbs)
}

/// The site's name: its host without `www.`.
fn site(url: &str) -> String {
    let (host, _) = display(url);
    host.strip_prefix("www.").unwrap_or(&host).to_string()
}

/// A whole page; `head_extra` that names a charset replaces the default
/// `<meta charset>`.
fn html_page(title: &str, head_extra: &str, body: &str) -> Page {
    let charset = if head_extra.contains("charset") {
        ""
    } else {
        "<meta charset=\"utf-8\">\n"
    };
    Page {
        body: format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n{charset}\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{}</title>\n{head_extra}\
             <style>.hidden{{display:none}} a{{color:#1a0dab}}</style>\n\
             <script>window.__page = {{\"v\": 3}};</script>\n</head>\n<body>\n{body}\n</body>\n</html>\n",
            esc(title)
        ),
        content_type: HTML,
    }
}

/// The page `engine` answers `query` with, listing `hits` in its markup.
/// Panics for an engine not in [`ENGINES`]. Of a two-call preset, the
/// answer its results are read from ([`first_answer`] is the first).
pub fn results(engine: &str, query: &str, hits: &[Hit]) -> Page {
    if let Some(page) = own_api::results(engine, query, hits) {
        return page;
    }
    let q = esc(query);
    match engine {
        "duckduckgo" => {
            let mut b = format!(
                "<div id=\"header\"><form id=\"search_form\" name=\"x\" action=\"/html/\" method=\"post\">\
                 <input class=\"search__input\" type=\"text\" name=\"q\" value=\"{q}\"></form></div>\n\
                 <div id=\"links\" class=\"results\">\n"
            );
            for h in hits {
                let link = format!(
                    "//duckduckgo.com/l/?uddg={}&amp;rut={}",
                    pct(&h.url),
                    tag(&h.url, 64)
                );
                let (host, crumbs) = display(&h.url);
                let _ = writeln!(
                    b,
                    "<div class=\"result results_links results_links_deep web-result \">\n\
                     <div class=\"links_main links_deep result__body\"> <!-- This is the visible part -->\n\
                     <h2 class=\"result__title\">\n<a rel=\"nofollow\" class=\"result__a\" href=\"{link}\">{}</a>\n</h2>\n\
                     <div class=\"result__extras\"><div class=\"result__extras__url\">\
                     <span class=\"result__icon\"><a rel=\"nofollow\" href=\"{link}\"><img class=\"result__icon__img\" width=\"16\" height=\"16\" alt=\"\" src=\"//external-content.duckduckgo.com/ip3/{host}.ico\"></a></span>\
                     <a class=\"result__url\" href=\"{link}\">{host}{}</a></div></div>\n\
                     <a class=\"result__snippet\" href=\"{link}\">{}</a>\n\
                     <div class=\"clear\"></div>\n</div>\n</div>",
                    esc(&h.title),
                    esc(&crumbs.replace(" › ", "/")),
                    esc(&h.snippet)
                );
            }
            b.push_str(
                "<div class=\"nav-link\"><form action=\"/html/\" method=\"post\">\
                 <input type=\"submit\" class=\"btn btn--alt\" value=\"Next\"></form></div>\n</div>",
            );
            html_page(&format!("{query} at DuckDuckGo"), "", &b)
        }
        "bing" => {
            let mut b = format!(
                "<header id=\"b_header\"><form action=\"/search\" id=\"sb_form\"><input id=\"sb_form_q\" name=\"q\" value=\"{q}\"></form></header>\n\
                 <main aria-label=\"Search Results\"><ol id=\"b_results\" class=\"\">\n\
                 <li class=\"b_ans b_top\"><div class=\"b_rs\"><h2>People also ask</h2><p>Related questions</p></div></li>\n"
            );
            for (i, h) in hits.iter().enumerate() {
                let link = format!(
                    "https://www.bing.com/ck/a?!&amp;&amp;p={}&amp;ptn=3&amp;ver=2&amp;hsh=4&amp;u=a1{}&amp;ntb=1",
                    tag(&h.url, 48),
                    base64url(h.url.as_bytes())
                );
                let (host, crumbs) = display(&h.url);
                let _ = writeln!(
                    b,
                    "<li class=\"b_algo\" data-id=\"\" iid=\"SERP.{}\"><div class=\"b_tpcn\"><a class=\"tilk\" aria-label=\"{}\" href=\"{link}\">\
                     <div class=\"tpic\"><div class=\"wr_fav\"><div class=\"cico siteicon\"></div></div></div>\
                     <div class=\"tptxt\"><div class=\"tptt\">{}</div><div class=\"tpmeta\"><div class=\"b_attribution\" tabindex=\"-1\"><cite>https://{host}{}</cite></div></div></div></a></div>\
                     <h2 class=\"\"><a target=\"_blank\" href=\"{link}\" h=\"ID=SERP,{}.1\">{}</a></h2>\
                     <div class=\"b_caption\" role=\"contentinfo\"><p class=\"b_lineclamp2 b_algoSlug\"><span class=\"algoSlug_icon\" data-priority=\"2\">WEB</span>{}</p></div></li>",
                    5100 + i,
                    esc(&site(&h.url)),
                    esc(&site(&h.url)),
                    esc(&crumbs),
                    5100 + i,
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str(
                "<li class=\"b_pag\"><nav role=\"navigation\"><ul class=\"sb_pagF\"><li><a class=\"sb_pagS\">1</a></li><li><a href=\"/search?q=x&amp;first=11\">2</a></li></ul></nav></li>\n</ol></main>",
            );
            html_page(&format!("{query} - Search"), "", &b)
        }
        "brave" => {
            let mut b =
                String::from("<main id=\"main\"><div id=\"results\" class=\"svelte-1y0fy0q\">\n");
            for (i, h) in hits.iter().enumerate() {
                let (host, crumbs) = display(&h.url);
                let _ = writeln!(
                    b,
                    "<div class=\"snippet svelte-jmfu5f\" data-pos=\"{}\" data-type=\"web\" data-keynav=\"true\"><div class=\"result-wrapper svelte-1rq4ngz\"><div class=\"result-content svelte-1rq4ngz\">\
                     <a href=\"{}\" target=\"_self\" class=\"svelte-14r20fy l1\"><div class=\"site-name-wrapper svelte-on1hvy\"><div class=\"favicon-wrapper svelte-on1hvy\"><img class=\"favicon svelte-w2a9kc size-s\" alt=\"\" src=\"https://imgs.search.brave.com/{}/rs:fit:32:32:1:0/g:ce/\" loading=\"lazy\"></div>\
                     <div class=\"site-name-content svelte-on1hvy\"><div class=\"desktop-small-semibold t-secondary text-ellipsis\">{}</div><div class=\"url-wrapper svelte-on1hvy\"><cite class=\"snippet-url desktop-small-regular t-tertiary svelte-on1hvy\">{host} <span class=\"text-ellipsis\">{}</span></cite></div></div></div>\
                     <div class=\"title search-snippet-title line-clamp-1 svelte-14r20fy\" title=\"{}\">{}</div></a>\
                     <div class=\"generic-snippet svelte-1cwdgg3\"><div class=\"content desktop-default-regular t-primary line-clamp-dynamic svelte-1cwdgg3\">{}</div></div></div></div></div>",
                    i + 1,
                    esc(&h.url),
                    tag(&host, 43),
                    esc(&site(&h.url)),
                    esc(crumbs.trim_start()),
                    esc(&h.title),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str(
                "<div class=\"snippet\" data-type=\"video\"><div class=\"title\">Videos</div></div>\n</div></main>",
            );
            html_page(&format!("{query} - Brave Search"), "", &b)
        }
        "mojeek" => {
            let mut b = String::from(
                "<div class=\"results\"><div class=\"top-info\">Results</div><ul class=\"results-standard\">\n",
            );
            for (i, h) in hits.iter().enumerate() {
                let u = esc(&h.url);
                let _ = writeln!(
                    b,
                    "<!--rs--><li class=\"r{}\"><a title=\"{u}\" href=\"{u}\" class=\"ob\"><p class=\"i\"><span class=\"url\">{u}</span></p></a>\
                     <h2><a class=\"title\" title=\"{u}\" href=\"{u}\">{}</a></h2><p class=\"s\">{}</p>\
                     <p class=\"more\"><a href=\"/search?q=site%3A{}\">See more results from {} »</a></p></li><!--re-->",
                    i + 1,
                    esc(&h.title),
                    esc(&h.snippet),
                    pct(&site(&h.url)),
                    esc(&site(&h.url))
                );
            }
            b.push_str("</ul></div>");
            html_page(&format!("{query} - Mojeek Search"), "", &b)
        }
        "startpage" => {
            let mut b = String::from("<div class=\"w-gl w-gl--default css-1f6ht5o\">\n");
            for h in hits {
                let u = esc(&h.url);
                let (host, crumbs) = display(&h.url);
                let _ = writeln!(
                    b,
                    "<div class=\"result css-o7i03b\"><div class=\"upper css-4wnopv\"><div class=\"favicon-container css-rwvbo4\"><div tabindex=\"-1\" class=\"favicon css-t84qzr\"><img alt=\"\" src=\"/sp/favicon?domain={host}\"></div></div>\
                     <a class=\"wgl-display-url css-u4i8ei\" href=\"{u}\"><span class=\"link-text\">{host}{}</span></a></div>\
                     <a class=\"result-title result-link css-1bggj8v\" href=\"{u}\" target=\"_blank\" rel=\"noopener nofollow noreferrer\"><div class=\"wgl-title-link-container css-1gz2b5f\"><h2 class=\"wgl-title css-i3irj7\">{}</h2></div></a>\
                     <p class=\"description css-1507v2l\">{}</p></div>",
                    esc(&crumbs),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str(
                "</div>\n<div class=\"anonymous-view-link css-1dy6jzj\"><p class=\"description css-1vl1hfi\">Visit pages anonymously.</p></div>",
            );
            html_page(&format!("Startpage Search Results: {query}"), "", &b)
        }
        "yahoo" | "aol" => {
            let redirect_host = if engine == "yahoo" {
                "r.search.yahoo.com"
            } else {
                "search.aol.com/click"
            };
            let mut b = String::from(
                "<div id=\"results\"><div id=\"cols\"><div id=\"left\"><div id=\"main\"><div id=\"web\" class=\"web\"><ol class=\"reg searchCenterMiddle\">\n",
            );
            for (i, h) in hits.iter().enumerate() {
                let link = format!(
                    "https://{redirect_host}/_ylt={};_ylu={}/RV=2/RE=1780000000/RO=10/RU={}/RK=2/RS={}-",
                    tag(&h.url, 24),
                    tag(&h.title, 20),
                    pct(&h.url),
                    tag(&h.snippet, 27)
                );
                let (host, crumbs) = display(&h.url);
                let _ = writeln!(
                    b,
                    "<li class=\"{}\"><div class=\"dd algo algo-sr relsrch richAlgo\" data-a70=\"{}\"><div class=\"compTitle options-toggle\">\
                     <a class=\"d-ib va-top mt-38 mb-4 mxw-100p\" data-matarget=\"algo\" target=\"_blank\" referrerpolicy=\"origin\" href=\"{link}\">\
                     <div class=\"d-ib p-abs t-0 l-0 fz-13 lh-16 fc-dustygray wr-bw ls-n fw-m\"><span class=\"d-ib va-mid\"><span class=\"fc-141414 d-b\">{}</span>https://{host}{}</span></div>\
                     <h3 style=\"display: block\" class=\"title fc-2015C2-imp pt-6 ivmt-6 mxw-100p\"><span class=\"d-b fz-20 lh-24 tc ls-024 fw-500\">{}</span></h3></a></div>\
                     <div class=\"compText aAbs\"><p class=\"fc-dustygray fz-14 lh-22 ls-02 mah-44 ov-h d-box fbox-ov fbox-lc2\">{}</p></div></div></li>",
                    if i == 0 { "first" } else { "" },
                    tag(&h.url, 14),
                    esc(&site(&h.url)),
                    esc(&crumbs),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str("</ol></div></div></div></div></div>");
            let name = if engine == "yahoo" { "Yahoo" } else { "AOL" };
            html_page(&format!("{query} - {name} Search Results"), "", &b)
        }
        "ecosia" => {
            let mut b =
                String::from("<main class=\"mainline\"><section class=\"mainline__results\">\n");
            for h in hits {
                let u = esc(&h.url);
                let (host, crumbs) = display(&h.url);
                let _ = writeln!(
                    b,
                    "<article data-test-id=\"organic-result\" class=\"result web-result mainline__result\" data-v-5a7c8f1a=\"\">\
                     <div class=\"result__header\"><div class=\"result-info__link-container\"><a data-test-id=\"result-link\" tabindex=\"-1\" href=\"{u}\" class=\"result-info__link result-info__link--ellipsis\">\
                     <div data-test-id=\"result-source\"><span class=\"result-info__domain\">https://{host}</span><span class=\"result-info__breadcrumbs\">{} › </span></div></a></div>\
                     <div class=\"result__title\"><a data-test-id=\"result-link\" href=\"{u}\" class=\"result__link\" rel=\"noopener\"><h2 data-test-id=\"result-title\" class=\"result-title__heading\">{}</h2></a></div></div>\
                     <div class=\"result__body\"><p data-test-id=\"web-result-description\" class=\"web-result__description\">{}</p></div>\
                     <div class=\"organic-result-feedback__content\"><span class=\"organic-result-feedback__content__provider\">This search result is provided by a partner</span></div></article>",
                    esc(&crumbs),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str("</section></main>");
            html_page(&format!("{query} - Ecosia"), "", &b)
        }
        "ask" => {
            let mut b = String::from("<div class=\"PartialSearchResults-body\">\n");
            for h in hits {
                let u = esc(&h.url);
                let _ = writeln!(
                    b,
                    "<div class=\"PartialSearchResults-item\" data-zen=\"true\"><div class=\"PartialSearchResults-item-title\">\
                     <a class=\"PartialSearchResults-item-title-link result-link\" href=\"{u}\" target=\"_blank\">{}</a></div>\
                     <p class=\"PartialSearchResults-item-url\">{}</p><p class=\"PartialSearchResults-item-abstract\">{}</p></div>",
                    esc(&h.title),
                    esc(&site(&h.url)),
                    esc(&h.snippet)
                );
            }
            b.push_str("</div>");
            html_page(&format!("{query} - Ask.com"), "", &b)
        }
        "baidu" => {
            let mut b = String::from(
                "<div id=\"content_left\">\n<div class=\"result-op c-container new-pmd\" srcid=\"28204\" tpl=\"fy_fanyi_pc\" mu=\"https://fanyi.baidu.com/\"><h3 class=\"t\"><a href=\"https://fanyi.baidu.com/\">百度翻译</a></h3><div class=\"op_dict_content\">翻译结果</div></div>\n",
            );
            for (i, h) in hits.iter().enumerate() {
                let _ = writeln!(
                    b,
                    "<div class=\"result c-container xpath-log new-pmd\" srcid=\"1599\" id=\"{}\" tpl=\"www_index\" mu=\"{}\">\
                     <h3 class=\"t _sc-title\"><a class=\"sc-link _link\" href=\"http://www.baidu.com/link?url={}\" target=\"_blank\">{}</a></h3>\
                     <div class=\"_content\"><span class=\"summary-text_560AW \n\">{}</span></div></div>",
                    i + 1,
                    esc(&h.url),
                    tag(&h.url, 40),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str("</div>");
            html_page(&format!("{query}_百度搜索"), "", &b)
        }
        "sogou" => {
            // A "did you mean" box first, which is no result; then results
            // in Sogou's 2026 shape: the title link (here the target itself)
            // and the target again in the hidden `r-sech` block's data-url.
            let mut b = String::from(
                "<div class=\"results\">\n<div class=\"vrwrap hint-mid\"><div class=\"hintBox\">您要找的是不是：<a href=\"/web?query=metasift\">metasift</a></div></div>\n",
            );
            for (i, h) in hits.iter().enumerate() {
                let _ = writeln!(
                    b,
                    "<div class=\"vrwrap\" id=\"sogou_vr_30000000_wrap_{i}\"><h3 class=\"vr-title\"><a name=\"dttl\" target=\"_blank\" href=\"{}\" id=\"sogou_vr_30000000_{i}\"><!--awbg{i}-->{}</a></h3>\
                     <div class=\"fz-mid space-txt base-ellipsis clamp2\" id=\"cacheresult_summary_{i}\">{}</div>\
                     <div class=\"r-sech ext_query\" style=\"display:none\" data-url=\"{}\"><span>推荐您搜索</span></div></div>",
                    esc(&h.url),
                    esc(&h.title),
                    esc(&h.snippet),
                    esc(&h.url)
                );
            }
            b.push_str("</div>");
            html_page(&format!("{query} - 搜狗搜索"), "", &b)
        }
        "sogou_weixin" => {
            let mut b = String::from("<div class=\"news-box\"><ul class=\"news-list\">\n");
            for (i, h) in hits.iter().enumerate() {
                let _ = writeln!(
                    b,
                    "<li id=\"sogou_vr_11002601_box_{i}\" d=\"{}\"><div class=\"img-box\"><a data-z=\"art\" target=\"_blank\" href=\"{}\"><img src=\"//img01.sogoucdn.com/net/a/04/link?appid=100520033\" onerror=\"errorImage(this)\"></a></div>\
                     <div class=\"txt-box\"><h3><a target=\"_blank\" href=\"{}\" id=\"sogou_vr_11002601_title_{i}\" uigs=\"article_title_{i}\">{}</a></h3>\
                     <p class=\"txt-info\" id=\"sogou_vr_11002601_summary_{i}\">{}</p>\
                     <div class=\"s-p\" t=\"1780000000\"><a class=\"account\" target=\"_blank\" href=\"#\">公众号</a><span class=\"s2\"><script>document.write(timeConvert('1780000000'))</script></span></div></div></li>",
                    tag(&h.url, 24),
                    esc(&h.url),
                    esc(&h.url),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str("</ul></div>");
            html_page(
                &format!("{query}的相关微信公众号文章 - 搜狗微信搜索"),
                "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\n",
                &b,
            )
        }
        "qwant" => {
            let mut b = String::from("<section class=\"results\">\n");
            for h in hits {
                let _ = writeln!(
                    b,
                    "<article><h2><a href=\"{}\" rel=\"noopener\">{}</a></h2><span class=\"url\">{}</span><p>{}</p></article>",
                    esc(&h.url),
                    esc(&h.title),
                    esc(&site(&h.url)),
                    esc(&h.snippet)
                );
            }
            b.push_str("</section>");
            html_page(&format!("{query} - Qwant Lite"), "", &b)
        }
        "swisscows" => {
            let mut b = String::from("<section class=\"web-results\">\n");
            for h in hits {
                let _ = writeln!(
                    b,
                    "<article class=\"item-web\"><a class=\"site\" href=\"{}\"><span>{}</span></a><h2 class=\"title\">{}</h2><p class=\"description\">{}</p></article>",
                    esc(&h.url),
                    esc(&site(&h.url)),
                    esc(&h.title),
                    esc(&h.snippet)
                );
            }
            b.push_str("</section>");
            html_page(&format!("{query} in Swisscows"), "", &b)
        }
        "wikipedia" | "wikipedia_zh" => {
            let items: Vec<String> = hits
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let title = h
                        .url
                        .rsplit('/')
                        .next()
                        .unwrap_or(&h.title)
                        .replace('_', " ");
                    format!(
                        "{{\"ns\":0,\"title\":{},\"pageid\":{},\"size\":{},\"wordcount\":{},\"snippet\":{},\"timestamp\":\"2026-03-0{}T10:00:00Z\"}}",
                        json_str(&title),
                        1000 + i,
                        4000 + 100 * i,
                        600 + 10 * i,
                        json_str(&highlight_words(&h.snippet, query)),
                        1 + i % 9
                    )
                })
                .collect();
            Page {
                body: format!(
                    "{{\"batchcomplete\":\"\",\"continue\":{{\"sroffset\":{},\"continue\":\"-||\"}},\"query\":{{\"searchinfo\":{{\"totalhits\":{}}},\"search\":[{}]}}}}",
                    hits.len(),
                    hits.len() * 37 + 11,
                    items.join(",")
                ),
                content_type: "application/json; charset=utf-8",
            }
        }
        "brave_api" => {
            let items: Vec<String> = hits
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let (host, _) = display(&h.url);
                    format!(
                        "{{\"title\":{},\"url\":{},\"is_source_local\":false,\"description\":{},\"page_age\":\"202{}-0{}-1{}T08:30:00\",\
                         \"profile\":{{\"name\":{},\"url\":{},\"long_name\":{}}},\"language\":\"en\",\"family_friendly\":true,\"type\":\"search_result\",\
                         \"thumbnail\":{{\"src\":\"https://imgs.search.brave.com/{}/rs:fit:200:200:1:0/g:ce/\",\"original\":{}}}}}",
                        json_str(&h.title),
                        json_str(&h.url),
                        json_str(&h.snippet),
                        4 + i % 3,
                        1 + i % 9,
                        i % 10,
                        json_str(&site(&h.url)),
                        json_str(&h.url),
                        json_str(&host),
                        tag(&h.url, 43),
                        json_str(&h.url)
                    )
                })
                .collect();
            Page {
                body: format!(
                    "{{\"query\":{{\"original\":{},\"more_results_available\":true}},\"type\":\"search\",\"web\":{{\"type\":\"search\",\"results\":[{}],\"family_friendly\":true}}}}",
                    json_str(query),
                    items.join(",")
                ),
                content_type: "application/json; charset=utf-8",
            }
        }
        "google_news" => {
            let mut b = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\"><channel>\
                 <generator>NFE/5.0</generator><title>{q} - Google News</title><link>https://news.google.com/search?q={}</link><language>en-US</language>\
                 <lastBuildDate>Sun, 31 May 2026 06:00:00 GMT</lastBuildDate><description>Google News</description>",
                pct(query)
            );
            for (i, h) in hits.iter().enumerate() {
                let source = site(&h.url);
                let _ = write!(
                    b,
                    "<item><title>{} - {}</title><link>{}</link><guid isPermaLink=\"false\">{}</guid><pubDate>{}</pubDate>\
                     <description>{}</description><source url=\"https://{}\">{}</source></item>",
                    esc(&h.title),
                    esc(&source),
                    esc(&h.url),
                    tag(&h.url, 32),
                    news_date(i),
                    esc(&format!(
                        "<a href=\"{}\" target=\"_blank\">{}</a>&nbsp;&nbsp;<font color=\"#6f6f6f\">{}</font>",
                        h.url, h.title, source
                    )),
                    esc(&source),
                    esc(&source)
                );
            }
            b.push_str("</channel></rss>");
            Page {
                body: b,
                content_type: "application/rss+xml; charset=utf-8",
            }
        }
        other => panic!("no page written for engine {other:?}"),
    }
}

/// The news items' dates, newest first: the first is
/// `Sat, 30 May 2026 07:00:00 GMT`.
pub fn news_date(i: usize) -> String {
    const DAYS: [&str; 7] = ["Sat", "Fri", "Thu", "Wed", "Tue", "Mon", "Sun"];
    format!(
        "{}, {} May 2026 {:02}:00:00 GMT",
        DAYS[i % 7],
        30 - (i % 7),
        7 + (i % 5)
    )
}

/// `text` with the query's words in `<span class="searchmatch">`, as
/// Wikipedia's search API marks them.
fn highlight_words(text: &str, query: &str) -> String {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    text.split(' ')
        .map(|w| {
            let bare = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if !bare.is_empty() && words.contains(&bare) {
                w.replacen(
                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                    &format!(
                        "<span class=\"searchmatch\">{}</span>",
                        w.trim_matches(|c: char| !c.is_alphanumeric())
                    ),
                    1,
                )
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The page `engine` shows when nothing matches `query` (in the wording or
/// element its preset's `no_results` looks for), or `None` where the
/// preset names no such sign. Of a two-call preset, the first answer, which
/// names nothing to ask next.
pub fn no_results(engine: &str, query: &str) -> Option<Page> {
    if API_ENGINES.contains(&engine) {
        return own_api::no_results(engine, query);
    }
    let q = esc(query);
    let page = match engine {
        "duckduckgo" => html_page(
            &format!("{query} at DuckDuckGo"),
            "",
            "<div id=\"links\" class=\"results\"><div class=\"no-results\">No results.</div></div>",
        ),
        "bing" => html_page(
            &format!("{query} - Search"),
            "",
            &format!(
                "<ol id=\"b_results\"><li class=\"b_no\"><h1>There are no results for <strong>{q}</strong></h1>\
                 <ul><li>Check your spelling or try different keywords</li></ul></li></ol>"
            ),
        ),
        "brave" => html_page(
            &format!("{query} - Brave Search"),
            "",
            "<main id=\"main\"><div id=\"empty-state\" class=\"svelte-1g6z1ub\"><h2>Not many great matches came back for your search</h2></div></main>",
        ),
        "mojeek" => html_page(
            &format!("{query} - Mojeek Search"),
            "",
            &format!("<div class=\"results\"><p>No pages found matching: <b>{q}</b></p></div>"),
        ),
        "startpage" => html_page(
            &format!("Startpage Search Results: {query}"),
            "",
            &format!(
                "<div class=\"w-gl\"><p class=\"css-1n3f9z7\">Your search - <b>{q}</b> - did not match any documents.</p></div>"
            ),
        ),
        "yahoo" | "aol" => html_page(
            &format!("{query} - Search Results"),
            "",
            &format!(
                "<div id=\"web\"><ol class=\"reg searchCenterMiddle\"><li><div class=\"compText\"><p>We did not find results for: <b>{q}</b>. Check spelling or type a new query.</p></div></li></ol></div>"
            ),
        ),
        "ecosia" => html_page(
            &format!("{query} - Ecosia"),
            "",
            "<main class=\"mainline\"><div class=\"no-results\"><h2>No results found</h2><p>Try other search terms.</p></div></main>",
        ),
        "ask" => html_page(
            &format!("{query} - Ask.com"),
            "",
            &format!(
                "<div class=\"PartialSearchResults-body\"><p>No results for \"{q}\"</p></div>"
            ),
        ),
        "baidu" => html_page(
            &format!("{query}_百度搜索"),
            "",
            &format!(
                "<div id=\"content_left\"><div class=\"nors\"><p>很抱歉，没有找到与“<em>{q}</em>”相关的网页。</p></div></div>"
            ),
        ),
        "sogou" => html_page(
            &format!("{query} - 搜狗搜索"),
            "",
            &format!(
                "<div class=\"results\"><div id=\"noresult_part1_container\"><p>抱歉，没有找到与“<em>{q}</em>”相关的网页。</p></div></div>"
            ),
        ),
        "sogou_weixin" => html_page(
            &format!("{query} – 搜狗微信搜索"),
            "",
            &format!(
                "<div class=\"no-sosuo\"><p>暂无与“<em>{q}</em>”相关的微信公众号文章</p></div>"
            ),
        ),
        "qwant" => html_page(
            &format!("{query} - Qwant Lite"),
            "",
            "<section class=\"results\"><p>No results</p></section>",
        ),
        "wikipedia" | "wikipedia_zh" | "brave_api" | "google_news" => results(engine, query, &[]),
        // Swisscows' preset names no "no results" sign.
        "swisscows" => return None,
        other => panic!("no page written for engine {other:?}"),
    };
    Some(page)
}

/// The bot check `engine` shows instead of results (what its preset's
/// `blocked` looks for), or `None` where the preset names none.
pub fn blocked(engine: &str) -> Option<Page> {
    let page = match engine {
        "duckduckgo" => html_page(
            "DuckDuckGo",
            "",
            "<div class=\"anomaly-modal__mask\"><div id=\"anomaly-modal\" class=\"anomaly-modal__modal\"><div class=\"anomaly-modal__title\">Unfortunately, bots use DuckDuckGo too.</div>\
             <div class=\"anomaly-modal__description\">Please complete the following challenge to confirm this search was made by a human.</div></div></div>",
        ),
        "bing" => html_page(
            "Bing",
            "",
            "<div id=\"b_content\"><div id=\"b_captcha\"><h2>One last step</h2><p>Please solve the challenge below to continue</p></div></div>",
        ),
        "brave" => html_page(
            "Brave Search",
            "",
            "<div id=\"captcha-container\"><p>We need to make sure you are not a robot.</p></div>",
        ),
        "mojeek" => html_page(
            "Mojeek",
            "",
            "<p>Sorry, your network appears to be sending automated queries.</p>",
        ),
        "startpage" => html_page(
            "Startpage",
            "",
            "<form action=\"/sp/captcha\" method=\"post\"><p>Please confirm you are human.</p></form>",
        ),
        "baidu" => html_page(
            "百度安全验证",
            "",
            "<div class=\"timeout-title\">网络不给力，请稍后重试</div><a href=\"https://wappass.baidu.com/static/captcha/tuxing.html\">返回首页</a>",
        ),
        "sogou" => html_page(
            "搜狗搜索",
            "",
            "<div class=\"content-box\"><p class=\"p2\">用户您好，我们的系统检测到您网络中存在异常访问请求。</p><form id=\"seccodeForm\" action=\"/antispider/thank.php\"><img id=\"seccodeImage\" src=\"util/seccode.php\"></form></div>",
        ),
        "sogou_weixin" => html_page(
            "搜狗搜索",
            "",
            "<div class=\"content-box\"><p class=\"p2\">用户您好，您的访问过于频繁，为确认本次访问为正常用户行为，需要您协助验证。</p><img id=\"seccodeImage\" src=\"/antispider/util/seccode.php\"></div>",
        ),
        "qwant" => html_page(
            "Qwant",
            "",
            "<h1>Service unavailable</h1><p>Qwant Lite is not yet available in your country.</p>",
        ),
        _ => return None,
    };
    Some(page)
}

// ---- what the tests ask ----------------------------------------------------

/// The query of [`caffeine`].
pub const CAFFEINE: &str = "does caffeine affect sleep";

/// DuckDuckGo's and Bing's answers to [`CAFFEINE`]: ten results each, nine
/// of them the same pages (some under other snippets, one with a trailing
/// slash on one engine), the order not quite the same.
pub fn caffeine(engine: &str) -> Vec<Hit> {
    let shared = [
        (
            "https://sleep.example.org/caffeine-and-sleep",
            "Caffeine and Sleep: What Happens at Night",
            "A cup of coffee late in the day can push back the moment you fall asleep. Here is why, and how long the effect lasts.",
            "Coffee in the afternoon can delay sleep by an hour or more; the body needs five to six hours to clear half of it.",
        ),
        (
            "https://health.example.com/articles/caffeine-half-life",
            "How long does caffeine stay in your body?",
            "Caffeine has a half-life of about five hours: half of an afternoon coffee is still there at bedtime.",
            "Caffeine has a half-life of about five hours: half of an afternoon coffee is still there at bedtime.",
        ),
        (
            "https://www.clinic.example/healthy-living/caffeine-cut-off",
            "When to stop drinking coffee before bed",
            "Doctors advise a cut-off time: no coffee, tea or cola in the eight hours before you go to bed.",
            "Set a cut-off: no coffee, tea or cola in the eight hours before bed, say sleep doctors.",
        ),
        (
            "https://research.example.edu/news/caffeine-deep-sleep",
            "More awake, less rested: caffeine and deep sleep",
            "People who drank coffee in the evening slept as long as the others, but spent less of the night in deep sleep.",
            "Evening coffee did not shorten the night, but it cut the time spent in deep sleep, a study of 40 adults found.",
        ),
        (
            "https://en.wikipedia.example/wiki/Caffeine",
            "Caffeine - Wikipedia",
            "Caffeine is a stimulant of the central nervous system; it is found in coffee, tea, cocoa and many soft drinks.",
            "Caffeine is a central nervous system stimulant found in coffee, tea, cocoa and many soft drinks.",
        ),
        (
            "https://sleepdiary.example.net/blog/coffee-and-insomnia",
            "Coffee and insomnia: a sleep diary",
            "Two weeks without afternoon coffee: what changed in how fast I fell asleep, and what did not.",
            "Two weeks without afternoon coffee: what changed in how fast I fell asleep, and what did not.",
        ),
        (
            "https://www.nutrition.example/caffeine-in-drinks",
            "How much caffeine is in your drink?",
            "Espresso, filter coffee, black tea, green tea, energy drinks: the caffeine in a cup of each, side by side.",
            "A table of the caffeine in a cup of espresso, filter coffee, black tea, green tea and energy drinks.",
        ),
        (
            "https://kids.health.example.org/caffeine-teens",
            "Caffeine and teens' sleep",
            "Teenagers need more sleep than adults, and energy drinks late at night take a large share of it.",
            "Teenagers need more sleep than adults; late energy drinks take a large share of it.",
        ),
        (
            "https://www.sleepcoach.example/tips/morning-coffee",
            "Is a morning coffee fine for sleep?",
            "For most people one or two cups before noon does not change the night; the trouble starts after lunch.",
            "One or two cups before noon rarely change the night for most people; trouble starts after lunch.",
        ),
    ];
    let (only, ddg) = match engine {
        "duckduckgo" => (
            hit(
                "https://forum.example.com/t/decaf-at-night",
                "Decaf at night? - Forum",
                "Decaf still holds a little caffeine, a few milligrams a cup; most people sleep fine after it.",
            ),
            true,
        ),
        "bing" => (
            hit(
                "https://www.pharmacy.example/caffeine-medicines",
                "Medicines that contain caffeine",
                "Some pain relievers and cold remedies contain caffeine too: check the label before an evening dose.",
            ),
            false,
        ),
        other => panic!("no caffeine page for {other}"),
    };
    let mut hits: Vec<Hit> = shared
        .iter()
        .map(|(u, t, s_ddg, s_bing)| hit(u, t, if ddg { s_ddg } else { s_bing }))
        .collect();
    if ddg {
        // DuckDuckGo lists the diary with a trailing slash.
        hits[5].url = "https://sleepdiary.example.net/blog/coffee-and-insomnia/".into();
        hits.swap(2, 3);
        hits.insert(6, only);
    } else {
        hits.swap(6, 7);
        hits.push(only);
    }
    hits
}

/// The query of [`rust_tutorial`].
pub const RUST_TUTORIAL: &str = "rust tutorial";

/// The engines of [`rust_tutorial`], in the order the tests start them.
pub const RUST_ENGINES: [&str; 6] = ["bing", "brave", "mojeek", "startpage", "yahoo", "ecosia"];

/// Six engines' answers to [`RUST_TUTORIAL`]: a shared core of tutorial
/// sites seen under other titles, snippets and link spellings per engine
/// (`/Book/` and `/book/`, `http://`, `www.`), one site that describes every
/// one of its pages with the same sentence, and pages of each engine's own.
pub fn rust_tutorial(engine: &str) -> Vec<Hit> {
    let book_snippet = [
        "The Rust Programming Language, the official book: from installing Rust to ownership, traits and fearless concurrency, with exercises.",
        "The official book of the Rust language. Start here: install Rust, then learn ownership, borrowing, traits and concurrency step by step.",
    ];
    let learn = "Learn Rust with small, runnable examples: variables, functions, ownership, structs, enums, error handling and more.";
    // One site's description of itself, under each of its pages.
    let site_desc = "Rustcraft: free tutorials, quizzes and references for Rust programmers, from the first steps to async code.";
    let e = |i: usize| i % 2;
    let idx = RUST_ENGINES
        .iter()
        .position(|n| *n == engine)
        .unwrap_or_else(|| panic!("no rust tutorial page for {engine}"));
    let mut hits = vec![
        hit(
            if idx % 3 == 0 {
                "https://doc.rust-lang.example/Book/"
            } else {
                "https://doc.rust-lang.example/book/"
            },
            "The Rust Programming Language",
            book_snippet[e(idx)],
        ),
        hit(
            if idx == 2 {
                "http://rustbyexample.example/"
            } else {
                "https://rustbyexample.example/"
            },
            if idx < 3 {
                "Rust by Example"
            } else {
                "Introduction - Rust By Example"
            },
            learn,
        ),
        hit(
            "https://www.rustcraft.example/rust/",
            "Rust Tutorial - Rustcraft",
            site_desc,
        ),
        hit(
            "https://tour.rust.example/en/chapter_1.html",
            "Tour of Rust - Let's go on an adventure!",
            if idx < 3 {
                "Welcome to the Tour of Rust, a step by step guide through the features of the Rust programming language."
            } else {
                "A step-by-step, interactive guide through the features of the Rust programming language: welcome to the Tour!"
            },
        ),
        hit(
            "https://www.rustcraft.example/rust/rust_intro.html",
            "Rust Introduction",
            site_desc,
        ),
        hit(
            "https://exercism.example/tracks/rust",
            "Rust on Exercism",
            "Get fluent in Rust by solving 98 exercises, and get mentoring from other programmers, for free.",
        ),
        hit(
            "https://www.rustcraft.example/rust/rust_syntax.html",
            "Rust Syntax",
            site_desc,
        ),
        hit(
            "https://rustlings.example/",
            "Rustlings: small exercises to get you used to Rust",
            "Small exercises that get you used to reading and writing Rust code, run from your terminal, with hints when you are stuck.",
        ),
    ];
    // More pages of the shared sites: each engine lists the ones its index
    // holds (by position), under the site's own titles.
    let more: [(&str, &str, &str); 6] = [
        (
            "https://www.rustcraft.example/rust/rust_variables.html",
            "Rust Variables",
            "Variables are immutable unless you write mut; shadowing lets a name be bound again with let.",
        ),
        (
            "https://doc.rust-lang.example/std/vec/struct.Vec.html",
            "Vec in std::vec - Rust",
            "A contiguous growable array type, written as Vec<T>, short for vector.",
        ),
        (
            "https://doc.rust-lang.example/cargo/guide/",
            "Cargo Guide - The Cargo Book",
            "This guide will give you all that you need to know about how to use Cargo to develop Rust packages.",
        ),
        (
            "https://users.rust.example/t/best-way-to-learn-rust/4321",
            "Best way to learn Rust? - Rust Users Forum",
            "I read the book twice and still fight the borrow checker. What helped you most when you started?",
        ),
        (
            "https://www.rustcraft.example/rust/rust_functions.html",
            "Rust Functions",
            "A function is declared with fn; its parameters need types, and the last expression is its value.",
        ),
        (
            "https://play.rust.example/",
            "Rust Playground",
            "A browser interface to the Rust compiler to experiment with the language.",
        ),
    ];
    for (k, (u, t, s)) in more.iter().enumerate() {
        if (k + idx) % 3 != 0 {
            hits.push(hit(u, t, s));
        }
    }
    // Partial copies on other sites: a page that keeps the first clause of
    // another's snippet and goes on its own way.
    match idx {
        1 | 4 => hits.push(hit(
            "https://mirror.example.com/learn-rust-fast",
            "Learn Rust fast",
            "Learn Rust with small, runnable examples: closures, iterators, traits, generics and more.",
        )),
        3 | 5 => hits.push(hit(
            "https://notes.example.net/rust-book-summary",
            "Summary of the Rust book",
            "The Rust Programming Language, the official book: a summary of every chapter, with notes and links.",
        )),
        _ => {}
    }
    // Each engine leaves one shared page out.
    hits.remove(7 - idx % 2);
    // Pages only this engine found.
    let own: [[(&str, &str, &str); 4]; 6] = [
        [
            (
                "https://blog.example.com/posts/why-i-learned-rust",
                "Why I learned Rust in 2026",
                "A web developer's notes on the first month with Rust: the borrow checker, cargo, and what finally clicked.",
            ),
            (
                "https://news.example.org/rust-in-the-kernel",
                "Rust in the kernel, two years on",
                "Drivers written in Rust are shipping; maintainers weigh the gains against a second toolchain.",
            ),
            (
                "https://jobs.example.net/rust-developer",
                "Rust developer jobs",
                "Open positions for Rust engineers: embedded, backend and tooling roles, remote or on site.",
            ),
            (
                "https://slides.example.com/intro-to-rust",
                "Intro to Rust (slides)",
                "Forty slides for a lunch talk: why memory safety matters, and what ownership looks like in code.",
            ),
        ],
        [
            (
                "https://video.example/watch?v=rust-crash-course",
                "Rust Crash Course (video)",
                "Three hours, from hello world to a small web server, filmed live with questions from the chat.",
            ),
            (
                "https://podcast.example.fm/episodes/rust-at-work",
                "Rust at work - a podcast episode",
                "Two engineers explain how their team moved a payment service to Rust and what broke on the way.",
            ),
            (
                "https://cheats.example.io/rust",
                "Rust cheat sheet",
                "One page of syntax: ownership, lifetimes, traits, iterators, closures and the common macros.",
            ),
            (
                "https://gamedev.example.org/rust-game-engine",
                "Writing a tiny game engine in Rust",
                "A series that builds a 2D engine with a window, an event loop, sprites and sound.",
            ),
        ],
        [
            (
                "https://zh.rustbook.example/ch01-00-getting-started.html",
                "入门指南 - Rust 程序设计语言 简体中文版",
                "让我们开始 Rust 之旅！在本章中，我们将讨论：在 Linux、macOS 和 Windows 上安装 Rust。",
            ),
            (
                "https://wiki.example.org/Rust_(language)",
                "Rust (programming language) - Example Wiki",
                "Rust is a general-purpose language focused on performance, type safety and concurrency.",
            ),
            (
                "https://mirror.example.de/rust/anleitung",
                "Rust-Anleitung für Einsteiger",
                "Schritt für Schritt: Installation, erstes Projekt mit Cargo und die wichtigsten Datentypen.",
            ),
            (
                "https://embedded.example.com/rust-on-microcontrollers",
                "Rust on microcontrollers",
                "Blink an LED with no operating system: no_std, a hardware abstraction layer and a debugger.",
            ),
        ],
        [
            (
                "https://www.academy.example/courses/rust",
                "Rust Course for Beginners | Academy",
                "Twelve lessons with quizzes and a certificate at the end. Learn Rust at your own pace.",
            ),
            (
                "https://books.example.com/programming-rust",
                "Programming Rust, 3rd edition",
                "A thorough book for systems programmers who want to write fast, safe code.",
            ),
            (
                "https://exercises.example.dev/rust/easy",
                "Easy Rust exercises with answers",
                "Fifty short problems on strings, vectors and hash maps, each with a worked answer.",
            ),
            (
                "https://meetup.example.com/rust-berlin",
                "Rust Berlin meetup",
                "Monthly talks and a hack night for everyone who writes, or wants to write, Rust.",
            ),
        ],
        [
            (
                "https://qa.example.com/questions/rust-or-go",
                "Should I learn Rust or Go first?",
                "Both are fine first systems languages; Go is smaller, Rust asks more up front and gives more control.",
            ),
            (
                "https://compare.example.net/rust-vs-cpp",
                "Rust vs C++: a side-by-side look",
                "Build times, safety, libraries and hiring: where each language is the easier choice today.",
            ),
            (
                "https://devtools.example.io/rust-ide-setup",
                "Setting up an editor for Rust",
                "Install rust-analyzer, turn on format on save, and run clippy from the editor.",
            ),
            (
                "https://async.example.org/tokio-tutorial",
                "An async Rust tutorial",
                "Futures, tasks and the runtime: build a small chat server and learn where await may pause.",
            ),
        ],
        [
            (
                "https://tutorial.example.id/rust-untuk-pemula",
                "Tutorial Rust Untuk Pemula",
                "Belajar Rust dari dasar: instalasi, variabel, fungsi, dan ownership, dengan contoh kode yang mudah dipahami.",
            ),
            (
                "https://green.example.org/rust-energy",
                "Is Rust an energy-efficient language?",
                "Measurements of the energy programs use put compiled languages ahead; what that means in practice.",
            ),
            (
                "https://kids.example.edu/coding/rust",
                "Rust for young coders",
                "Short lessons with pictures: make the computer count, draw and ask questions.",
            ),
            (
                "https://wasm.example.com/rust-webassembly",
                "Rust and WebAssembly",
                "Compile Rust to WebAssembly and call it from a web page, with a small image filter as the example.",
            ),
        ],
    ];
    for (i, (u, t, s)) in own[idx].iter().enumerate() {
        hits.insert((3 + idx % 3 + 3 * i).min(hits.len()), hit(u, t, s));
    }
    // And orders the rest its way.
    hits.rotate_left(idx % 2);
    hits
}

/// The query of [`news`], and the three answers (Google News' feed, Brave's
/// API, Wikipedia's API) of the JSON-keys test: the first news item is dated
/// `Sat, 30 May 2026 07:00:00 GMT`, the first Brave result `2024-01-10`
/// with a picture, Wikipedia reports `totalhits`.
pub const NEWS: &str = "search engines";

/// Results for [`NEWS`] on `engine` (`google_news`, `brave_api` or
/// `wikipedia`).
pub fn news(engine: &str) -> Vec<Hit> {
    match engine {
        "google_news" => vec![
            hit(
                "https://news.example.com/2026/05/30/new-search-engine-launches",
                "A new search engine opens to the public",
                "",
            ),
            hit(
                "https://tech.example.org/meta-search-returns",
                "Why meta-search is coming back",
                "",
            ),
            hit(
                "https://daily.example.net/privacy-search",
                "Private search engines grow their share",
                "",
            ),
        ],
        "brave_api" => vec![
            hit(
                "https://blog.example.org/choosing-a-private-search-engine",
                "Choosing a private search engine",
                "Five questions to ask before you switch: logs, ads, where the index comes from, and who runs it.",
            ),
            hit(
                "https://guide.example.com/how-search-engines-work",
                "How search engines work",
                "Crawling, indexing and ranking: the three steps behind every results page.",
            ),
        ],
        "wikipedia" => vec![
            hit(
                "https://en.wikipedia.org/wiki/Search_engine",
                "Search engine",
                "A search engine is a software system that provides hyperlinks to web pages relevant to a query.",
            ),
            hit(
                "https://en.wikipedia.org/wiki/Metasearch_engine",
                "Metasearch engine",
                "A metasearch engine is a search tool that uses other search engines' data to produce its own results.",
            ),
        ],
        other => panic!("no news page for {other}"),
    }
}

/// Sogou WeChat's answer to `高考`: ten articles of our own.
pub fn gaokao() -> Vec<Hit> {
    let topics = [
        (
            "高考志愿怎么填？五个常见问题",
            "填报志愿前先想清楚兴趣和专业，再看学校和城市，最后留出保底的选择。",
        ),
        (
            "高考前一晚该做什么",
            "早点睡，把准考证和文具放在门口，别再做新题，复习一遍错题本就够了。",
        ),
        (
            "高考作文的三种开头",
            "开门见山、引用名言、讲一个小故事：三种开头各有长处，关键是紧扣题目。",
        ),
        (
            "数学最后一题要不要放弃",
            "先把会做的小问做完，剩下的时间再试最后一问，步骤分也是分。",
        ),
        (
            "高考英语听力的准备方法",
            "每天听十五分钟，先听懂大意，再抓关键词，考前一周练习整套题。",
        ),
        (
            "复读还是上大学？听听他们怎么说",
            "三位同学讲述自己的选择：复读一年的收获，以及直接上大学后的想法。",
        ),
        (
            "高考后的暑假可以做什么",
            "学开车、去旅行、读几本闲书，也可以提前了解大学要学的专业课。",
        ),
        (
            "家长在高考期间能做什么",
            "少问成绩，多准备饭菜，保持家里安静，让孩子按平时的节奏作息。",
        ),
        (
            "高考体检需要注意什么",
            "体检前一天清淡饮食，早上空腹，带好身份证和照片，按时到达。",
        ),
        (
            "一张表看懂高考录取流程",
            "从出分、填报志愿、投档到录取通知书寄出，每一步的时间点都在这里。",
        ),
    ];
    topics
        .iter()
        .enumerate()
        .map(|(i, (t, s))| {
            hit(
                &format!("https://mp.weixin.qq.example/s?src=3&timestamp=1780000000&ver=1&signature=gaokao{i}"),
                t,
                s,
            )
        })
        .collect()
}

/// A few results for any query on `engine`, for tests that only need an
/// engine that answers: of an API preset, links in the form its answers
/// give and no snippet where it reads none; none of a box preset.
pub fn generic(engine: &str, query: &str) -> Vec<Hit> {
    if API_ENGINES.contains(&engine) {
        return own_api::generic(engine, query);
    }
    let slug: String = query
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect();
    (1..=5)
        .map(|i| {
            hit(
                &format!("https://{engine}-{i}.example.org/{slug}/{i}"),
                &format!("{query}: page {i} of {engine}"),
                &format!("What {engine} says about {query}, result {i}, in a sentence of its own."),
            )
        })
        .collect()
}

/// The query of [`hello`].
pub const HELLO: &str = "Hello";

/// Five engines' answers to [`HELLO`]: Bing and DuckDuckGo share eight
/// pages (one of them under a copy's link on DuckDuckGo), Yahoo and AOL nine
/// (one under a mirror's link on AOL); Ask has five of them.
pub fn hello(engine: &str) -> Vec<Hit> {
    let pages: [(&str, &str, &str); 12] = [
        (
            "https://en.wikipedia.example/wiki/Hello",
            "Hello - Wikipedia",
            "Hello is a greeting in English, first recorded in writing in the nineteenth century.",
        ),
        (
            "https://music.example.com/artist/hello-band",
            "Hello (band) - discography",
            "A glam rock band of the seventies: albums, singles and the line-up over the years.",
        ),
        (
            "https://dictionary.example.org/hello",
            "HELLO | meaning in the dictionary",
            "Used when meeting or greeting someone, or to start a telephone call.",
        ),
        (
            "https://songs.example.net/lyrics/hello",
            "Hello - lyrics and story of the song",
            "How the ballad was written, what the words mean, and the covers that followed.",
        ),
        (
            "https://www.hello.example/",
            "Hello - a note-taking app",
            "Write, sort and share notes on every device, with an offline mode and no ads.",
        ),
        (
            "https://kids.example.edu/languages/hello",
            "How to say hello in 20 languages",
            "Bonjour, hola, ni hao, hallo: a friendly list with the sounds spelled out for children.",
        ),
        (
            "https://history.example.org/telephone-hello",
            "Why we say hello on the phone",
            "The greeting won over the earlier ahoy when the first telephone exchanges opened.",
        ),
        (
            "https://code.example.dev/hello-world",
            "Hello, World! in 40 languages",
            "The first program everyone writes, side by side in C, Python, Rust, Go and many more.",
        ),
        (
            "https://shop.example.com/hello-mug",
            "Hello mug - ceramic, 300 ml",
            "A white mug with a hand-lettered greeting; dishwasher safe.",
        ),
        (
            "https://films.example.org/hello-again",
            "Hello Again (film)",
            "A comedy about a woman who wakes up a year after her own funeral.",
        ),
        (
            "https://magazine.example.com/say-hello",
            "Say hello: the small talk guide",
            "Openers that work at parties, at work and on the first day of school.",
        ),
        (
            "https://travel.example.net/hello-island",
            "Hello Island travel guide",
            "Beaches, ferries and where to eat on a small island with a cheerful name.",
        ),
    ];
    let pick: &[usize] = match engine {
        "bing" => &[0, 2, 1, 3, 4, 5, 6, 7, 8],
        "duckduckgo" => &[0, 1, 2, 3, 5, 4, 6, 7, 9],
        "yahoo" | "aol" => &[0, 2, 3, 1, 4, 6, 5, 7, 10],
        "ask" => &[0, 2, 3, 6, 11],
        other => panic!("no hello page for {other}"),
    };
    pick.iter()
        .map(|&i| {
            let (u, t, s) = pages[i];
            // A syndicated copy: the same text under another site's link,
            // which only the title and snippet can tell.
            let u = match (engine, i) {
                ("duckduckgo", 3) => "https://lyrics.example.org/hello-the-song",
                ("aol", 6) => "https://mirror.example.net/history/telephone-hello",
                _ => u,
            };
            hit(u, t, s)
        })
        .collect()
}
