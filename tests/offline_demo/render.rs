//! The offline demo's recordings, rendered from `examples/demo/pages.toml`
//! (our own text) in each engine's own markup: the element and class names
//! the presets of `engines.toml` read (the shapes `tests/presets_markup.rs`
//! checks), the redirect wrappers engines put around links (DuckDuckGo
//! `uddg=`, Yahoo `RU=`, Bing `ck/a?…&u=a1<base64>`, Baidu and Sogou
//! `link?url=`, 360 `link?m=`), and the highlighting of query words.

use std::collections::BTreeMap;

#[path = "../support/own_pages.rs"]
mod own_pages;

use base64::Engine as _;
use metasift::config::{Config, EngineConfig};
use metasift::search::recording::{
    FORMAT, RecordedQuery, RecordedRequest, RecordedResponse, Recording,
};
use serde::Deserialize;

/// `examples/demo/pages.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pages {
    pub query: Vec<DemoQuery>,
}

/// One demo query and what the engines answer to it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoQuery {
    pub text: String,
    pub engines: Vec<String>,
    pub result: Vec<DemoResult>,
    #[serde(default)]
    pub news: Vec<NewsItem>,
    /// The entity the query names, for the box presets
    /// (`wikipedia_summary`, `wikipedia_summary_zh`, `wikidata`,
    /// `duckduckgo_instant`), which answer it when named in `engines`.
    pub infobox: Option<DemoEntity>,
}

/// The entity of a query's box, in our words (`own_pages::Entity`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoEntity {
    pub title: String,
    pub description: String,
    pub extract: String,
    pub article: String,
    pub zh_title: Option<String>,
    pub zh_article: Option<String>,
    pub zh_description: Option<String>,
    pub zh_extract: Option<String>,
    pub website: Option<String>,
    pub image: Option<String>,
    pub wikidata: u64,
}

impl DemoEntity {
    fn entity(&self) -> own_pages::Entity {
        own_pages::Entity {
            title: self.title.clone(),
            description: self.description.clone(),
            extract: self.extract.clone(),
            article: self.article.clone(),
            zh: self.zh_title.clone().zip(self.zh_article.clone()),
            zh_text: self.zh_description.clone().zip(self.zh_extract.clone()),
            inception: None,
            website: self.website.clone(),
            image: self.image.clone(),
            qid: self.wikidata,
        }
    }
}

/// One page on the web, as the engines that find it show it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoResult {
    pub title: String,
    pub urls: Vec<String>,
    pub snippet: String,
    #[serde(default)]
    pub snippets: Vec<String>,
    #[serde(default)]
    pub only: Vec<String>,
    #[serde(default)]
    pub skip: Vec<String>,
}

/// One news story, carried by one or more outlets.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewsItem {
    pub title: String,
    pub outlets: Vec<String>,
    pub date: String,
}

/// What an engine shows of one result.
struct Shown<'a> {
    title: &'a str,
    url: &'a str,
    snippet: &'a str,
}

/// When the demo's answers were "recorded" (fixed, so the files are stable).
const RECORDED_AT: &str = "Sat, 28 Nov 2026 04:00:00 GMT";

/// 64-bit FNV-1a: stable tokens for opaque links and ids.
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A link as a browser sends it: non-ASCII percent-encoded.
fn href(url: &str) -> String {
    url::Url::parse(url)
        .unwrap_or_else(|e| panic!("pages.toml: {url:?} is not a URL: {e}"))
        .to_string()
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `text` escaped, each query word in it wrapped in `open` … `close`, as
/// engines bold what matched.
fn highlight(text: &str, query: &str, open: &str, close: &str) -> String {
    let text = esc(text);
    let words: Vec<String> = query
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty())
        .collect();
    let lower = text.to_lowercase();
    // Lower-casing keeps byte offsets for the ASCII and CJK text used here.
    if lower.len() != text.len() {
        return text;
    }
    let mut out = String::new();
    let mut at = 0;
    while at < text.len() {
        let hit = words
            .iter()
            .filter_map(|w| lower[at..].find(w.as_str()).map(|i| (at + i, w.len())))
            .min();
        match hit {
            Some((start, len)) if text.is_char_boundary(start + len) => {
                out.push_str(&text[at..start]);
                out.push_str(open);
                out.push_str(&text[start..start + len]);
                out.push_str(close);
                at = start + len;
            }
            _ => {
                out.push_str(&text[at..]);
                break;
            }
        }
    }
    out
}

/// The wiki whose articles a Wikipedia JSON engine returns.
fn wiki_host(engine: &str) -> Option<&'static str> {
    match engine {
        "wikipedia" => Some("en.wikipedia.org"),
        "wikipedia_zh" => Some("zh.wikipedia.org"),
        _ => None,
    }
}

/// What `engine` lists for `q`, in its own order: the query's results it
/// shows, each with the URL and snippet cut that falls to it.
fn shown<'a>(q: &'a DemoQuery, engine: &str) -> Vec<Shown<'a>> {
    let slot = q.engines.iter().position(|e| e == engine).unwrap_or(0);
    let mut list: Vec<(usize, Shown<'a>)> = q
        .result
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            // An API preset lists only the results that name it: its links
            // have its own form.
            let api = own_pages::API_ENGINES.contains(&engine);
            (r.only.iter().any(|e| e == engine) || (r.only.is_empty() && !api))
                && !r.skip.iter().any(|e| e == engine)
        })
        .filter(|(_, r)| match wiki_host(engine) {
            // A wiki's own search returns its articles only.
            Some(host) => r.urls[0].contains(&format!("//{host}/")),
            // Sogou WeChat finds WeChat articles only.
            None if engine == "sogou_weixin" => r.urls[0].contains("//mp."),
            None => true,
        })
        .map(|(i, r)| {
            let n = slot + i;
            let snippet = if r.snippets.is_empty() || n % 2 == 0 {
                r.snippet.as_str()
            } else {
                r.snippets[(n / 2) % r.snippets.len()].as_str()
            };
            (
                i,
                Shown {
                    title: &r.title,
                    url: &r.urls[n % r.urls.len()],
                    snippet,
                },
            )
        })
        .collect();
    // Engines agree on the top result and differ below it: each swaps one
    // pair of neighbours of its own.
    if list.len() > 3 {
        let i = 1 + slot % (list.len() - 2);
        list.swap(i, i + 1);
    }
    list.into_iter().map(|(_, s)| s).collect()
}

/// The title a wiki's search API gives: the article name of its link.
fn wiki_title(url: &str) -> String {
    let path = url.rsplit_once("/wiki/").map_or(url, |(_, p)| p);
    let decoded: String = url::form_urlencoded::parse(format!("t={path}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    decoded.replace('_', " ")
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head>\n<body>\n{body}\n</body></html>\n",
        esc(title)
    )
}

fn wikipedia(q: &str, hits: &[Shown<'_>]) -> String {
    let search: Vec<serde_json::Value> = hits
        .iter()
        .map(|h| {
            serde_json::json!({
                "ns": 0,
                "title": wiki_title(&href(h.url)),
                "pageid": fnv(&[h.url]) % 10_000_000,
                "size": 20_000 + fnv(&[h.url, "size"]) % 80_000,
                "wordcount": 2_000 + fnv(&[h.url, "words"]) % 9_000,
                "snippet": highlight(h.snippet, q, "<span class=\"searchmatch\">", "</span>"),
                "timestamp": "2026-11-20T10:00:00Z",
            })
        })
        .collect();
    let doc = serde_json::json!({
        "batchcomplete": "",
        "continue": {"sroffset": 10, "continue": "-||"},
        "query": {
            "searchinfo": {"totalhits": 40 * hits.len() + 3},
            "search": search,
        },
    });
    serde_json::to_string_pretty(&doc).unwrap() + "\n"
}

fn duckduckgo(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from(
        "<div id=\"links\" class=\"results\">\n<div class=\"result result--ad\"><div class=\"result__body\"><h2 class=\"result__title\"><a class=\"result__a\" href=\"https://duckduckgo.com/y.js?ad_domain=ads.example.com\">An advertisement</a></h2><a class=\"result__snippet\">Ads are skipped by the preset.</a></div></div>\n",
    );
    for h in hits {
        let target = href(h.url);
        let link = format!(
            "//duckduckgo.com/l/?uddg={}&amp;rut={:016x}",
            enc(&target),
            fnv(&[h.url, "ddg"])
        );
        let host = url::Url::parse(&target).unwrap();
        body.push_str(&format!(
            "<div class=\"result results_links results_links_deep web-result \"><div class=\"links_main links_deep result__body\">\n<h2 class=\"result__title\"><a rel=\"nofollow\" class=\"result__a\" href=\"{link}\">{}</a></h2>\n<div class=\"result__extras\"><div class=\"result__extras__url\"><a class=\"result__url\" href=\"{link}\">{}</a></div></div>\n<a class=\"result__snippet\" href=\"{link}\">{}</a>\n<div class=\"clear\"></div></div></div>\n",
            esc(h.title),
            esc(&format!("{}{}", host.host_str().unwrap_or(""), host.path())),
            highlight(h.snippet, q, "<b>", "</b>"),
        ));
    }
    body.push_str("</div>");
    page(&format!("{q} at DuckDuckGo"), &body)
}

fn bing(q: &str, hits: &[Shown<'_>]) -> String {
    page(
        &format!("{q} - Search"),
        &bing_results(hits, q, "www.bing.com", "WEB", "Search Results"),
    )
}

/// Bing's China edition (cn.bing.com): Bing's markup, its labels in Chinese.
fn bing_cn(q: &str, hits: &[Shown<'_>]) -> String {
    page(
        &format!("{q} - 搜索"),
        &bing_results(hits, q, "cn.bing.com", "网页", "搜索结果"),
    )
}

/// Bing's `ol#b_results` of `li.b_algo`, links behind `host`'s `ck/a`
/// redirect, `label` the slug icon the preset excludes from the snippet.
fn bing_results(hits: &[Shown<'_>], q: &str, host: &str, label: &str, aria: &str) -> String {
    let mut body = format!("<main aria-label=\"{aria}\"><ol id=\"b_results\" class=\"\">\n");
    for (i, h) in hits.iter().enumerate() {
        let target = href(h.url);
        let link = format!(
            "https://{host}/ck/a?!&amp;&amp;p={:016x}&amp;ptn=3&amp;ver=2&amp;hsh=4&amp;u=a1{}&amp;ntb=1",
            fnv(&[h.url, "bing"]),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(target.as_bytes())
        );
        let u = url::Url::parse(&target).unwrap();
        body.push_str(&format!(
            "<li class=\"b_algo\" data-id=\"\" data-bm=\"{}\"><div class=\"b_tpcn\"><a class=\"tilk\" href=\"{link}\"><div class=\"tptxt\"><div class=\"tptt\">{}</div><div class=\"b_attribution\"><cite>{}</cite></div></div></a></div><h2><a href=\"{link}\" h=\"ID=SERP,{}.1\">{}</a></h2><div class=\"b_caption\" role=\"contentinfo\"><p class=\"b_lineclamp2 b_algoSlug\"><span class=\"algoSlug_icon\" data-priority=\"2\">{label}</span>{}</p></div></li>\n",
            6 + i,
            esc(u.host_str().unwrap_or("")),
            esc(&target),
            5000 + i,
            esc(h.title),
            highlight(h.snippet, q, "<strong>", "</strong>"),
        ));
    }
    body.push_str("</ol></main>");
    body
}

fn brave(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from("<div id=\"results\" class=\"results\">\n");
    for (i, h) in hits.iter().enumerate() {
        let target = href(h.url);
        let u = url::Url::parse(&target).unwrap();
        body.push_str(&format!(
            "<div class=\"snippet svelte-jmfu5f\" data-pos=\"{}\" data-type=\"web\"><div class=\"result-wrapper\"><div class=\"result-content\"><a href=\"{}\" target=\"_self\" class=\"svelte-14r20fy l1\"><div class=\"site-wrapper\"><div class=\"site-name-wrapper\"><div class=\"site-name-content\"><div class=\"site-name\">{}</div><cite class=\"snippet-url\"><span class=\"netloc\">{}</span><span class=\"url-path\">{}</span></cite></div></div></div><div class=\"title search-snippet-title line-clamp-1 svelte-14r20fy\" title=\"{}\">{}</div></a><div class=\"generic-snippet svelte-1cwdgg3\"><div class=\"content desktop-default-regular t-primary line-clamp-dynamic\">{}</div></div></div></div></div>\n",
            i + 1,
            esc(&target),
            esc(u.host_str().unwrap_or("")),
            esc(u.host_str().unwrap_or("")),
            esc(&u.path().replace('/', " › ")),
            esc(h.title),
            esc(h.title),
            highlight(h.snippet, q, "<strong>", "</strong>"),
        ));
    }
    body.push_str("</div>");
    page(&format!("{q} - Brave Search"), &body)
}

fn mojeek(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from("<div class=\"results\"><ul class=\"results-standard\">\n");
    for h in hits {
        let target = href(h.url);
        body.push_str(&format!(
            "<li class=\"r1\"><a class=\"ob\" href=\"{0}\"><p class=\"i\"><span class=\"url\">{0}</span></p></a><h2><a class=\"title\" href=\"{0}\">{1}</a></h2><p class=\"s\">{2}</p></li>\n",
            esc(&target),
            esc(h.title),
            highlight(h.snippet, q, "<strong>", "</strong>"),
        ));
    }
    body.push_str("</ul></div>");
    page(&format!("{q} - Mojeek Search"), &body)
}

fn startpage(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from("<div class=\"w-gl\">\n");
    for h in hits {
        let target = href(h.url);
        let u = url::Url::parse(&target).unwrap();
        body.push_str(&format!(
            "<div class=\"result css-o7i03b\"><div class=\"upper\"><a class=\"wgl-display-url\" href=\"{0}\"><span class=\"link-text\">{1}</span><span class=\"path-text\">{2}</span></a></div><a class=\"result-title result-link css-1bggj8v\" href=\"{0}\" target=\"_blank\" rel=\"noopener nofollow noreferrer\"><h2 class=\"wgl-title css-i3irj7\">{3}</h2></a><p class=\"description css-1507v2l\">{4}</p></div>\n",
            esc(&target),
            esc(u.host_str().unwrap_or("")),
            esc(u.path()),
            esc(h.title),
            highlight(h.snippet, q, "<b>", "</b>"),
        ));
    }
    body.push_str("</div>");
    page(&format!("Startpage Search Results for {q}"), &body)
}

fn yahoo(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from("<div id=\"web\"><ol class=\"reg searchCenterMiddle\">\n");
    for (i, h) in hits.iter().enumerate() {
        let target = href(h.url);
        let u = url::Url::parse(&target).unwrap();
        let link = format!(
            "https://r.search.yahoo.com/_ylt=Awr{:x}/RV=2/RE=1764300000/RO=10/RU={}/RK=2/RS={:x}-",
            fnv(&[h.url, "ylt"]) >> 40,
            enc(&target),
            fnv(&[h.url, "yrs"])
        );
        let path: String = u
            .path_segments()
            .map(|s| {
                s.filter(|s| !s.is_empty())
                    .map(|s| format!(" › {s}"))
                    .collect()
            })
            .unwrap_or_default();
        body.push_str(&format!(
            "<li class=\"{}\"><div class=\"dd algo algo-sr relsrch Sr\"><div class=\"compTitle options-toggle\"><h3 class=\"title\"><a class=\"d-ib ls-05 fz-20 lh-26 td-hu tc va-bot mxw-100p\" href=\"{}\" aria-label=\"{}\"><span class=\" d-ib p-abs t-0 l-0 fz-14 lh-20 fc-obsidian wr-bw ls-n pb-4\">{}<span class=\" fc-pewter\">{}</span></span>{}</a></h3></div><div class=\"compText aAbs\"><p class=\"fz-14 lh-22\"><span class=\" fc-falcon\">{}</span></p></div></div></li>\n",
            if i == 0 { "first" } else { "" },
            esc(&link),
            esc(h.title),
            esc(u.host_str().unwrap_or("")),
            esc(&path),
            esc(h.title),
            highlight(h.snippet, q, "<b>", "</b>"),
        ));
    }
    body.push_str("</ol></div>");
    page(&format!("{q} - Yahoo Search Results"), &body)
}

fn ecosia(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from("<section class=\"mainline\">\n");
    for h in hits {
        let target = href(h.url);
        body.push_str(&format!(
            "<div class=\"mainline__result-wrapper\"><article class=\"result web-result mainline__result\" data-test-id=\"organic-result\"><div class=\"result__header\"><a class=\"result__link\" href=\"{0}\" data-test-id=\"result-link\" rel=\"noopener\"><div class=\"result-title\" data-test-id=\"result-title\"><h2 class=\"result-title__heading\">{1}</h2></div></a></div><div class=\"result__body\"><p class=\"web-result__description\" data-test-id=\"web-result-description\">{2}</p></div></article></div>\n",
            esc(&target),
            esc(h.title),
            highlight(h.snippet, q, "<b>", "</b>"),
        ));
    }
    body.push_str("</section>");
    page(&format!("{q} - Ecosia - Web"), &body)
}

fn baidu(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from(
        "<div id=\"content_left\" tabindex=\"0\">\n<div class=\"result-op c-container xpath-log new-pmd\" srcid=\"52006\" tpl=\"wenda_generate\"><h3 class=\"t\">AI 智能回答</h3><div class=\"marklang-paragraph\">百度自己的卡片，预设不读。</div></div>\n",
    );
    for (i, h) in hits.iter().enumerate() {
        let target = href(h.url);
        let link = format!(
            "http://www.baidu.com/link?url={:016x}{:016x}",
            fnv(&[h.url, "bd"]),
            fnv(&[h.url, "bd2"])
        );
        // Baidu names the real target in `mu` on most results, not all:
        // the third keeps only its opaque link.
        let mu = if i == 2 {
            String::new()
        } else {
            format!(" mu=\"{}\"", esc(&target))
        };
        body.push_str(&format!(
            "<div class=\"result c-container xpath-log new-pmd\" srcid=\"1599\" id=\"{}\" tpl=\"www_index\"{mu}><div class=\"c-container\"><h3 class=\"c-title t t tts-title\"><a class=\"sc-link _link\" href=\"{}\" target=\"_blank\">{}</a></h3><div class=\"_content\"><span class=\"summary-text_560AW \n\">{}</span></div></div></div>\n",
            i + 1,
            esc(&link),
            esc(h.title),
            highlight(h.snippet, q, "<em>", "</em>"),
        ));
    }
    body.push_str("</div>");
    page(&format!("{q}_百度搜索"), &body)
}

/// Sogou's web search: `div.vrwrap` blocks, the title link Sogou's own
/// `/link?url=` redirect, the real target in `.r-sech[data-url]`.
fn sogou(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = String::from("<div class=\"results\" id=\"main\">\n");
    for (i, h) in hits.iter().enumerate() {
        let target = href(h.url);
        let u = url::Url::parse(&target).unwrap();
        body.push_str(&format!(
            "<div class=\"vrwrap\" id=\"sogou_vr_30000000_{i}\"><div class=\"r-sech click-better-sugg\" data-url=\"{}\"></div><h3 class=\"vr-title\"><a id=\"sogou_vr_30000000_title_{i}\" target=\"_blank\" href=\"/link?url=hedJjaC291{:016x}\">{}</a></h3><div class=\"fz-mid space-txt\">{}</div><div class=\"citeurl\"><span>{}</span></div></div>\n",
            esc(&target),
            fnv(&[h.url, "sg"]),
            highlight(h.title, q, "<em><!--red_beg-->", "<!--red_end--></em>"),
            highlight(h.snippet, q, "<em><!--red_beg-->", "<!--red_end--></em>"),
            esc(u.host_str().unwrap_or("")),
        ));
    }
    body.push_str("</div>");
    page(&format!("{q} - 搜狗搜索"), &body)
}

/// 360 Search (so.com): `li.res-list` items, the title link 360's own
/// `link?m=` redirect with the real target in `data-mdurl`, the snippet in
/// `p.res-desc` or, on rich results, `span.res-list-summary`, the host in
/// `p.g-linkinfo cite`; a translation box (no `h3.res-title`) on top.
fn so360(q: &str, hits: &[Shown<'_>]) -> String {
    let mut body = format!(
        "<ul class=\"result\" id=\"m-result\">\n<li class=\"res-list\" data-lazyload=\"1\"><div id=\"mohe-newdict_trans\"><h3 class=\"g-title\"><a href=\"https://fanyi.so.com/?src=onebox#{}\">{} - 360翻译</a></h3><p class=\"g-linkinfo\"><cite>fanyi.so.com</cite></p></div></li>\n",
        enc(q),
        esc(q)
    );
    for (i, h) in hits.iter().enumerate() {
        let target = href(h.url);
        let u = url::Url::parse(&target).unwrap();
        let token = fnv(&[h.url, "so"]);
        let title = format!(
            "<h3 class=\"res-title \"><a href=\"https://www.so.com/link?m={token:016x}\" data-mdurl=\"{}\" rel=\"noopener\" target=\"_blank\">{}</a></h3>",
            esc(&target),
            highlight(h.title, q, "<em>", "</em>"),
        );
        let cite = format!(
            "<p class=\"g-linkinfo\"><cite><a href=\"https://www.so.com/link?m={:016x}\" class=\"g-linkinfo-a\">{}</a></cite><span class=\"g-linkinfo-feedback\">反馈</span></p>",
            token.rotate_left(17),
            esc(u.host_str().unwrap_or("")),
        );
        let snippet = highlight(h.snippet, q, "<em>", "</em>");
        // Every other result is a rich one, its summary in a span.
        if i % 2 == 1 {
            body.push_str(&format!(
                "<li class=\"res-list\">{title}<div class=\"res-rich so-rich-image clearfix\"><div class=\"res-comm-con\"><p></p><span class=\"res-list-summary\">{snippet}</span>{cite}</div></div></li>\n"
            ));
        } else {
            body.push_str(&format!(
                "<li class=\"res-list\">{title}<p class=\"res-desc\">{snippet}</p>{cite}</li>\n"
            ));
        }
    }
    body.push_str("</ul>");
    page(&format!("{q} - 360搜索"), &body)
}

fn sogou_weixin(q: &str, hits: &[Shown<'_>]) -> String {
    let accounts = ["示例技术周刊", "开源示例", "搜索示例笔记"];
    let mut body = String::from("<div class=\"news-box\"><ul class=\"news-list\">\n");
    for (i, h) in hits.iter().enumerate() {
        let link = format!(
            "/link?url=dn9a_-gY295K0Rci_xozVXfdMkSQTLW6{:016x}&amp;type=2&amp;query={}&amp;token={:016x}",
            fnv(&[h.url, "wx"]),
            enc(q),
            fnv(&[h.url, "wxt"])
        );
        body.push_str(&format!(
            "<li id=\"sogou_vr_11002601_box_{i}\" d=\"ab735a258a90e8e1-{i}\"><div class=\"txt-box\"><h3><a target=\"_blank\" href=\"{link}\" id=\"sogou_vr_11002601_title_{i}\" uigs=\"article_title_{i}\">{}</a></h3><p class=\"txt-info\" id=\"sogou_vr_11002601_summary_{i}\">{}</p><div class=\"s-p\" t=\"{}\"><span class=\"all-time-y2\">{}</span><span class=\"s2\"></span></div></div></li>\n",
            highlight(h.title, q, "<em><!--red_beg-->", "<!--red_end--></em>"),
            highlight(h.snippet, q, "<em><!--red_beg-->", "<!--red_end--></em>"),
            1_764_000_000 + 3_600 * i,
            accounts[i % accounts.len()],
        ));
    }
    body.push_str("</ul></div>");
    page(&format!("{q}的相关微信公众号文章 – 搜狗微信搜索"), &body)
}

fn google_news(q: &str, news: &[NewsItem]) -> String {
    let mut items = String::new();
    for n in news {
        for outlet in &n.outlets {
            let id = format!(
                "CBMi{:016x}{:016x}",
                fnv(&[&n.title, outlet]),
                fnv(&[outlet, &n.title])
            );
            let link = format!("https://news.google.com/rss/articles/{id}?oc=5");
            let site = outlet_site(outlet);
            let description = format!(
                "<a href=\"{link}\" target=\"_blank\">{}</a>&nbsp;&nbsp;<font color=\"#6f6f6f\">{}</font>",
                esc(&n.title),
                esc(outlet)
            );
            items.push_str(&format!(
                "<item><title>{}</title><link>{link}</link><guid isPermaLink=\"false\">{id}</guid><pubDate>{}</pubDate><description>{}</description><source url=\"{site}\">{}</source></item>",
                esc(&format!("{} - {outlet}", n.title)),
                n.date,
                esc(&description),
                esc(outlet),
            ));
        }
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><rss version=\"2.0\" xmlns:media=\"http://search.yahoo.com/mrss/\"><channel><generator>NFE/5.0</generator><title>\"{0}\" - Google News</title><link>https://news.google.com/search?q={1}&amp;hl=en-US&amp;gl=US&amp;ceid=US:en</link><language>en-US</language><webMaster>news-webmaster@google.com</webMaster><copyright>Copyright © 2026 Google. All rights reserved.</copyright><lastBuildDate>{2}</lastBuildDate><description>Google News</description>{items}</channel></rss>\n",
        esc(q),
        enc(q),
        RECORDED_AT
    )
}

fn wikipedia_suggest(titles: &[String]) -> String {
    let list: Vec<serde_json::Value> = titles
        .iter()
        .map(|t| serde_json::json!({"ns": 0, "title": t, "pageid": fnv(&[t]) % 10_000_000}))
        .collect();
    let doc = serde_json::json!({"batchcomplete": "", "query": {"prefixsearch": list}});
    serde_json::to_string_pretty(&doc).unwrap() + "\n"
}

/// The answers of an API preset to `q` — of a two-call preset, the first
/// and the follow-up's — as (body, content type) pairs; `None` for a preset
/// that is not an API preset, or does not answer `q`.
fn api_answers(engine: &str, q: &DemoQuery) -> Option<Vec<(String, &'static str)>> {
    if !own_pages::API_ENGINES.contains(&engine) || !q.engines.iter().any(|e| e == engine) {
        return None;
    }
    let page = |p: own_pages::Page| (p.body, p.content_type);
    if own_pages::INFOBOX_ENGINES.contains(&engine) {
        let e = q
            .infobox
            .as_ref()
            .unwrap_or_else(|| {
                panic!(
                    "pages.toml: {engine} answers {:?}, which names no infobox",
                    q.text
                )
            })
            .entity();
        let box_answer = page(own_pages::entity_answer(engine, &e));
        return Some(if engine == "wikidata" {
            vec![page(own_pages::wikidata_search(&q.text, &e)), box_answer]
        } else {
            vec![box_answer]
        });
    }
    let mut hits: Vec<own_pages::Hit> = shown(q, engine)
        .iter()
        .map(|s| own_pages::hit(s.url, s.title, s.snippet))
        .collect();
    // The news presets also carry the query's news, one story an outlet.
    if matches!(engine, "brave_news" | "hackernews") {
        for n in &q.news {
            let outlet = n.outlets[0].as_str();
            let slug: String = n
                .title
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_lowercase()
                    } else {
                        '-'
                    }
                })
                .collect();
            hits.push(own_pages::hit(
                &format!("{}/2026/{}", outlet_site(outlet), slug.trim_matches('-')),
                &n.title,
                &format!("{} reports: {}.", outlet, n.title.trim_end_matches('.')),
            ));
        }
    }
    assert!(
        !hits.is_empty(),
        "pages.toml: {engine} lists nothing for {:?}",
        q.text
    );
    let second = page(own_pages::results(engine, &q.text, &hits));
    Some(match own_pages::first_answer(engine, &q.text, &hits) {
        Some(first) => vec![page(first), second],
        None => vec![second],
    })
}

/// An outlet's made-up site, as Google News' feed names it.
fn outlet_site(outlet: &str) -> String {
    let site = format!(
        "https://{}.example.com",
        outlet
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_lowercase()
    );
    if site == "https://.example.com" {
        format!("https://news{:x}.example.cn", fnv(&[outlet]) >> 48)
    } else {
        site
    }
}

/// The body and content type `engine` answers `q` with, when it answers it.
fn answer(engine: &str, q: &DemoQuery) -> Option<(String, &'static str)> {
    if engine == "google_news" {
        return (!q.news.is_empty()).then(|| {
            (
                google_news(&q.text, &q.news),
                "application/rss+xml; charset=utf-8",
            )
        });
    }
    if !q.engines.iter().any(|e| e == engine) {
        return None;
    }
    let hits = shown(q, engine);
    assert!(
        !hits.is_empty(),
        "pages.toml: {engine} lists nothing for {:?}",
        q.text
    );
    Some(markup(engine, &q.text, &hits))
}

/// `hits` as `engine` shows them for `t`: the body and its content type.
fn markup(engine: &str, t: &str, hits: &[Shown<'_>]) -> (String, &'static str) {
    const HTML: &str = "text/html; charset=utf-8";
    const JSON: &str = "application/json; charset=utf-8";
    match engine {
        "wikipedia" | "wikipedia_zh" => (wikipedia(t, hits), JSON),
        "duckduckgo" => (duckduckgo(t, hits), HTML),
        "bing" => (bing(t, hits), HTML),
        "bing_cn" => (bing_cn(t, hits), HTML),
        "brave" => (brave(t, hits), HTML),
        "mojeek" => (mojeek(t, hits), HTML),
        "startpage" => (startpage(t, hits), HTML),
        "yahoo" => (yahoo(t, hits), HTML),
        "ecosia" => (ecosia(t, hits), HTML),
        "baidu" => (baidu(t, hits), HTML),
        "sogou" => (sogou(t, hits), HTML),
        "so360" => (so360(t, hits), HTML),
        "sogou_weixin" => (sogou_weixin(t, hits), HTML),
        other => panic!("pages.toml: no markup written for engine {other:?}"),
    }
}

/// `engine`'s answer to `text` listing `hits` — (title, url, snippet), best
/// first — in its own markup, as a recording: how tests/judged_set.rs
/// renders the judged set's lists the way the demo's are rendered.
#[allow(dead_code)]
pub fn list_recording(ec: &EngineConfig, text: &str, hits: &[(&str, &str, &str)]) -> Recording {
    let shown: Vec<Shown<'_>> = hits
        .iter()
        .map(|&(title, url, snippet)| Shown {
            title,
            url,
            snippet,
        })
        .collect();
    let (body, content_type) = markup(&ec.name, text, &shown);
    let mut r = recording(ec, text, body, content_type);
    r.source = Some("metasift's judged set (tests/data/judged/pages.toml)".into());
    r
}

/// The prefixes a search box asks `/autocomplete` about while each demo
/// query is typed, each with the demo queries and Wikipedia article titles
/// of the demo that it begins.
fn suggestions(pages: &Pages) -> BTreeMap<String, Vec<String>> {
    let mut candidates: Vec<String> = pages.query.iter().map(|q| q.text.clone()).collect();
    for q in &pages.query {
        for r in &q.result {
            if r.urls[0].starts_with("https://en.wikipedia.org/wiki/") {
                let t = wiki_title(&href(&r.urls[0]));
                if !candidates.contains(&t) {
                    candidates.push(t);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for q in &pages.query {
        let chars: Vec<char> = q.text.chars().collect();
        for n in 1..=chars.len() {
            let prefix: String = chars[..n].iter().collect();
            if prefix.ends_with(' ') {
                continue;
            }
            let lower = prefix.to_lowercase();
            let list: Vec<String> = candidates
                .iter()
                .filter(|c| c.to_lowercase().starts_with(&lower))
                .take(10)
                .cloned()
                .collect();
            out.insert(prefix, list);
        }
    }
    out
}

fn recording(ec: &EngineConfig, text: &str, body: String, content_type: &str) -> Recording {
    let engine = metasift::engines::build(ec).unwrap();
    let query = metasift::model::Query {
        text: text.to_string(),
        page: 1,
        ..Default::default()
    };
    let spec = engine.build_request(&query);
    answer_recording(&ec.name, spec, &query, body, content_type)
}

/// A two-call preset's follow-up (`<engine>.follow`), asked as the engine
/// asks it after `first`.
fn follow_recording(
    ec: &EngineConfig,
    text: &str,
    first: &str,
    body: String,
    content_type: &str,
) -> Recording {
    let engine = metasift::engines::build(ec).unwrap();
    let query = metasift::model::Query {
        text: text.to_string(),
        page: 1,
        ..Default::default()
    };
    let spec = engine
        .follow_up(first, &query)
        .unwrap_or_else(|e| panic!("{}: the demo's first answer to {text:?}: {e}", ec.name))
        .unwrap_or_else(|| {
            panic!(
                "{}: the demo's first answer to {text:?} asks nothing next",
                ec.name
            )
        });
    answer_recording(
        &format!("{}.follow", ec.name),
        spec,
        &query,
        body,
        content_type,
    )
}

fn answer_recording(
    name: &str,
    spec: metasift::engines::RequestSpec,
    query: &metasift::model::Query,
    body: String,
    content_type: &str,
) -> Recording {
    let text = query.text.as_str();
    let ec_name = name.trim_end_matches(".follow");
    Recording {
        format: FORMAT.into(),
        engine: name.to_string(),
        query: RecordedQuery::from(query),
        request: RecordedRequest {
            method: "GET".into(),
            url: spec.url,
            headers: spec.headers,
        },
        response: RecordedResponse::new(
            200,
            vec![("content-type".into(), content_type.into())],
            // A stable, engine-like time per answer.
            120 + fnv(&[ec_name, text]) % 700,
            body.as_bytes(),
        ),
        recorded_at: RECORDED_AT.into(),
        source: Some("metasift's own demo page (examples/demo/pages.toml)".into()),
    }
}

/// Every recording of the demo: each engine's answer to each query it
/// answers, and the autocomplete engine's to each prefix of them.
pub fn recordings(pages: &Pages, config: &Config) -> Vec<Recording> {
    let mut out = Vec::new();
    for ec in &config.engines {
        for q in &pages.query {
            if let Some(answers) = api_answers(&ec.name, q) {
                let mut answers = answers.into_iter();
                let (body, ct) = answers.next().unwrap();
                let first = body.clone();
                out.push(recording(ec, &q.text, body, ct));
                for (body, ct) in answers {
                    out.push(follow_recording(ec, &q.text, &first, body, ct));
                }
            } else if let Some((body, ct)) = answer(&ec.name, q) {
                out.push(recording(ec, &q.text, body, ct));
            }
        }
    }
    if let Some(name) = &config.server.autocomplete {
        let ec = config
            .engines
            .iter()
            .find(|e| &e.name == name)
            .expect("the autocomplete engine is configured");
        for (prefix, list) in suggestions(pages) {
            out.push(recording(
                ec,
                &prefix,
                wikipedia_suggest(&list),
                "application/json; charset=utf-8",
            ));
        }
    }
    out
}
