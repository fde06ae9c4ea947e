//! `--realistic`: records shaped like real result lists, for profiling the
//! dedup stream on what it meets in use rather than on short uniform records.
//!
//! Where the texts come from (all in the team's data folder, see its README
//! for sources and licences):
//!
//! - `corpus/dureader_search_zh/search_results.jsonl`: Baidu result lists of
//!   300 questions. A page's text is its `snippet` followed by its
//!   `most_related_para` (when that says more), up to 400 characters: what
//!   Baidu, Sogou and 360 show are windows of 80–300 characters of it.
//! - `corpus/nlpcc2017_headlines_zh/headlines.tsv`: Chinese news headlines,
//!   ten per list by category; a page's text is its headline followed by the
//!   next headlines of its category (a digest page's text; the only Chinese
//!   news text the data folder holds).
//! - `corpus/ag_news_en/test.csv`: English news, ten items per list by class;
//!   engines show the description whole or cut, some with a date in front.
//! - `corpus/searchsnippets_en/SearchSnippets.txt`: real web-search snippets
//!   (lower-cased, punctuation removed by their publishers: the case where
//!   only word anchors cut an English text), three lines per page.
//! - `serp/`: every saved results page the golden table
//!   (`tests/data/parsers.toml`) lists, parsed by the shipped presets: real
//!   multi-engine lists (`javascript tutorial` on seven engines, `Hello` on
//!   six, `some words` on five), replayed under new query strings.
//!
//! Each generated list (not the SERP ones) is answered by five engines, each
//! showing about 70 % of the pages in its own order with its own window of
//! the page's text (Baidu from the start, 120–300 characters; Sogou and 360
//! from a clause inside; Bing and Google shorter, cut with `...`); a third of
//! the pages are also listed on a copy site under another link and often
//! another title (content farms, syndication), so most records have
//! near-copies across engines that only the snippet stage can find. About
//! 60 % of the records are Chinese.

use serde::Deserialize;

use super::Rng;

/// One page of a list: its title, its whole text, and its link's path.
struct Page {
    title: String,
    text: String,
    zh: bool,
}

/// One result list.
struct List {
    query: String,
    pages: Vec<Page>,
    zh: bool,
}

/// A real engine's answer (SERP pages): its hits as parsed.
struct Answer {
    engine: String,
    hits: Vec<(String, String, String)>,
}

/// The saved SERP lists: each query with its engines' answers.
type SerpLists = Vec<(String, Vec<Answer>)>;

/// The pools, by kind.
pub struct Pools {
    zh_qa: Vec<List>,
    zh_news: Vec<List>,
    en_news: Vec<List>,
    en_snippets: Vec<List>,
    serp: SerpLists,
}

#[derive(Deserialize)]
struct Question {
    question: String,
    results: Vec<DuHit>,
}

#[derive(Deserialize)]
struct DuHit {
    title: String,
    snippet: String,
    most_related_para: Option<String>,
}

fn chars_prefix(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Loads every pool from `data` (laid out like the team's data folder) and the
/// saved SERP pages through the presets of `engines_toml`.
pub fn load(data: &str, engines_toml: &str) -> Result<Pools, Box<dyn std::error::Error>> {
    let mut zh_qa = Vec::new();
    let du = std::fs::read_to_string(format!(
        "{data}/corpus/dureader_search_zh/search_results.jsonl"
    ))?;
    for line in du.lines() {
        let Ok(q) = serde_json::from_str::<Question>(line) else {
            continue;
        };
        let pages = q
            .results
            .into_iter()
            .map(|h| {
                let mut text = h.snippet;
                if let Some(p) = h.most_related_para
                    && !text.contains(p.as_str())
                {
                    text.push(' ');
                    text.push_str(&p);
                }
                Page {
                    title: h.title,
                    text: chars_prefix(&text, 400).to_string(),
                    zh: true,
                }
            })
            .collect();
        zh_qa.push(List {
            query: q.question,
            pages,
            zh: true,
        });
    }

    let heads = std::fs::read_to_string(format!(
        "{data}/corpus/nlpcc2017_headlines_zh/headlines.tsv"
    ))?;
    let mut by_cat: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for line in heads.lines().skip(1) {
        if let Some((cat, h)) = line.split_once('\t') {
            by_cat.entry(cat).or_default().push(h);
        }
    }
    let mut zh_news = Vec::new();
    for (cat, hs) in &by_cat {
        for (i, chunk) in hs.chunks(10).enumerate() {
            let start = i * 10;
            let pages = chunk
                .iter()
                .enumerate()
                .map(|(j, h)| {
                    let k = start + j;
                    let mut text = h.to_string();
                    for next in hs.iter().skip(k + 1).take(4) {
                        text.push('。');
                        text.push_str(next);
                    }
                    Page {
                        title: h.to_string(),
                        text,
                        zh: true,
                    }
                })
                .collect();
            zh_news.push(List {
                query: format!("{cat}新闻 第{i}页"),
                pages,
                zh: true,
            });
        }
    }

    let ag = std::fs::read_to_string(format!("{data}/corpus/ag_news_en/test.csv"))?;
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(ag.as_bytes());
    let mut by_class: Vec<Vec<Page>> = (0..5).map(|_| Vec::new()).collect();
    for r in rows.records().flatten() {
        let class: usize = r[0].parse().unwrap_or(0).min(4);
        by_class[class].push(Page {
            title: r[1].to_string(),
            text: r[2].replace("\\", " "),
            zh: false,
        });
    }
    let mut en_news = Vec::new();
    for (class, pages) in by_class.into_iter().enumerate() {
        let mut it = pages.into_iter().peekable();
        let mut i = 0;
        while it.peek().is_some() {
            en_news.push(List {
                query: format!("world news class {class} page {i}"),
                pages: it.by_ref().take(10).collect(),
                zh: false,
            });
            i += 1;
        }
    }

    let ss = std::fs::read_to_string(format!(
        "{data}/corpus/searchsnippets_en/SearchSnippets.txt"
    ))?;
    let lines: Vec<&str> = ss
        .lines()
        .map(|l| l.trim_start_matches('\u{feff}').trim())
        .filter(|l| !l.is_empty())
        .collect();
    let mut en_snippets = Vec::new();
    for (i, chunk) in lines.chunks(30).enumerate() {
        let pages = chunk
            .chunks(3)
            .map(|c| {
                let text = c.join(" ");
                let title: Vec<&str> = text.split(' ').take(7).collect();
                Page {
                    title: title.join(" "),
                    text,
                    zh: false,
                }
            })
            .collect();
        en_snippets.push(List {
            query: format!("web snippets {i}"),
            pages,
            zh: false,
        });
    }

    let serp = load_serp(data, engines_toml)?;
    Ok(Pools {
        zh_qa,
        zh_news,
        en_news,
        en_snippets,
        serp,
    })
}

/// The saved results pages of the golden table, parsed, grouped by query.
fn load_serp(data: &str, engines_toml: &str) -> Result<SerpLists, Box<dyn std::error::Error>> {
    let root = std::path::Path::new(data).join("..").join("data");
    let config = metasift::config::Config::load(std::path::Path::new(engines_toml))?;
    let table: toml::Table = toml::from_str(&std::fs::read_to_string(root.join("parsers.toml"))?)?;
    #[derive(Deserialize)]
    struct Entry {
        file: String,
        query: String,
    }
    let index: Vec<Entry> =
        serde_json::from_str(&std::fs::read_to_string(format!("{data}/serp/index.json"))?)?;
    let mut out: SerpLists = Vec::new();
    for case in table["case"].as_array().ok_or("parsers.toml: no cases")? {
        if case["expect"].as_str() != Some("results") {
            continue;
        }
        let (Some(file), Some(name)) = (case["file"].as_str(), case["engine"].as_str()) else {
            continue;
        };
        let Some(entry) = index.iter().find(|e| e.file == file) else {
            continue;
        };
        let Some(ec) = config.engines.iter().find(|e| e.name == name) else {
            continue;
        };
        let engine = metasift::engines::build(ec)?;
        let body = std::fs::read(format!("{data}/serp/{file}"))?;
        let text = metasift::engines::decode_body(&body, None);
        let Ok(parsed) = engine.parse(&text) else {
            continue;
        };
        let answer = Answer {
            engine: name.to_string(),
            hits: parsed
                .hits
                .into_iter()
                .map(|h| (h.url, h.title, h.snippet))
                .collect(),
        };
        match out.iter_mut().find(|(q, _)| *q == entry.query) {
            Some((_, v)) => v.push(answer),
            None => out.push((entry.query.clone(), vec![answer])),
        }
    }
    Ok(out)
}

const ZH_ENGINES: [&str; 5] = ["baidu", "sogou", "so360", "bing", "google"];
const EN_ENGINES: [&str; 5] = ["google", "bing", "duckduckgo", "brave", "mojeek"];

/// Byte index of the `n`th character of `s` (its length past the end).
fn char_at(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

/// The window of `text` engine `e` shows.
fn window(rng: &mut Rng, e: &str, text: &str, zh: bool) -> String {
    let n = text.chars().count();
    let (start, len) = if zh {
        match e {
            "baidu" => (0, 120 + rng.below(180)),
            "sogou" | "so360" => {
                // From a clause inside the text.
                let from = rng.below(n / 2 + 1);
                let at = text
                    .char_indices()
                    .skip(from)
                    .find(|(_, c)| matches!(c, '，' | '。' | ',' | '！' | '？'))
                    .map_or(0, |(i, _)| text[..i].chars().count() + 1);
                (at, 80 + rng.below(120))
            }
            _ => (0, 90 + rng.below(70)),
        }
    } else {
        match e {
            "google" => (0, 140 + rng.below(40)),
            "bing" => (0, 180 + rng.below(100)),
            "mojeek" => {
                let from = rng.below(n / 3 + 1);
                let at = text
                    .char_indices()
                    .skip(from)
                    .find(|(_, c)| *c == ' ')
                    .map_or(0, |(i, _)| text[..i].chars().count() + 1);
                (at, 200)
            }
            _ => (0, n),
        }
    };
    let start = start.min(n);
    let end = (start + len).min(n);
    let mut s = String::new();
    if start > 0 {
        s.push_str("...");
    }
    let (a, b) = (char_at(text, start), char_at(text, end));
    let mut body = &text[a..b];
    if !zh && end < n {
        // English engines cut at a word.
        body = body.rsplit_once(' ').map_or(body, |(w, _)| w);
    }
    s.push_str(body);
    if end < n {
        s.push_str(if zh { "..." } else { " ..." });
    }
    if rng.chance(0.2) {
        let date = if zh {
            format!("2026年{}月{}日 ", 1 + rng.below(11), 1 + rng.below(28))
        } else {
            format!("Nov {}, 2026 — ", 1 + rng.below(28))
        };
        s.insert_str(0, &date);
    }
    s
}

/// A title as engine `e` shows it.
fn title(rng: &mut Rng, page: &Page) -> String {
    let mut t = page.title.clone();
    if page.zh {
        if rng.chance(0.15) && t.chars().count() > 28 {
            t = format!("{}...", chars_prefix(&t, 28));
        } else if rng.chance(0.2) {
            t.push_str(["_百度知道", "-百度经验", " - 知乎", "_新浪新闻"][rng.below(4)]);
        }
    } else if rng.chance(0.1) && t.len() > 55 {
        t = format!("{} ...", &t[..char_at(&t, 55)]);
    } else if rng.chance(0.2) {
        t.push_str([" - Reuters", " | AP News", " - BBC News"][rng.below(3)]);
    }
    t
}

/// One record to write.
pub struct Rec {
    pub url: String,
    pub title: String,
    pub snippet: String,
    pub engine: String,
    pub position: usize,
    pub query: String,
}

impl Pools {
    /// The records of the `q`th list of the stream, appended to `out`.
    pub fn list(&self, rng: &mut Rng, q: usize, out: &mut Vec<Rec>) {
        // Per ten lists: four DuReader, two Chinese news, two English news,
        // one of snippets, one saved SERP query.
        let (kind, k) = match q % 10 {
            0..=3 => (0, (q / 10) * 4 + q % 10),
            4 | 5 => (1, (q / 10) * 2 + q % 10 - 4),
            6 | 7 => (2, (q / 10) * 2 + q % 10 - 6),
            8 => (3, q / 10),
            _ => (4, q / 10),
        };
        if kind == 4 && !self.serp.is_empty() {
            let (query, answers) = &self.serp[k % self.serp.len()];
            let round = k / self.serp.len();
            let query = format!("{query} #{round}");
            for a in answers {
                for (pos, (url, title, snippet)) in a.hits.iter().enumerate() {
                    out.push(Rec {
                        url: url.clone(),
                        title: title.clone(),
                        snippet: snippet.clone(),
                        engine: a.engine.clone(),
                        position: pos + 1,
                        query: query.clone(),
                    });
                }
            }
            return;
        }
        let pool = match kind {
            0 => &self.zh_qa,
            1 => &self.zh_news,
            2 => &self.en_news,
            _ => &self.en_snippets,
        };
        if pool.is_empty() {
            return;
        }
        let list = &pool[k % pool.len()];
        let round = k / pool.len();
        let query = if round == 0 {
            list.query.clone()
        } else {
            format!("{} #{round}", list.query)
        };
        let engines = if list.zh { &ZH_ENGINES } else { &EN_ENGINES };
        let host = |i: usize| {
            if list.zh {
                [
                    "zhidao.baidu.com",
                    "jingyan.baidu.com",
                    "www.zhihu.com",
                    "news.sina.com.cn",
                ][i % 4]
            } else {
                [
                    "www.reuters.com",
                    "apnews.com",
                    "www.bbc.com",
                    "example.org",
                ][i % 4]
            }
        };
        let mut order: Vec<usize> = Vec::new();
        for e in engines {
            order.clear();
            order.extend((0..list.pages.len()).filter(|_| rng.chance(0.7)));
            for i in 1..order.len() {
                if rng.chance(0.3) {
                    order.swap(i - 1, i);
                }
            }
            for (pos, &i) in order.iter().enumerate() {
                let page = &list.pages[i];
                let path = format!("q{}/{}/{i}", k % pool.len(), kind);
                // A third of the pages are also on a copy site.
                let mut url = if i % 3 == 0 && rng.chance(0.5) {
                    format!("https://copy{}.example.cn/{path}.html", rng.below(4))
                } else {
                    format!("https://{}/{path}", host(i))
                };
                if rng.chance(0.15) {
                    url = url.replacen("https://", "http://", 1);
                }
                if rng.chance(0.1) {
                    url.push_str(&format!("?utm_source={e}"));
                }
                out.push(Rec {
                    url,
                    title: title(rng, page),
                    snippet: window(rng, e, &page.text, list.zh),
                    engine: e.to_string(),
                    position: pos + 1,
                    query: query.clone(),
                });
            }
        }
    }
}
