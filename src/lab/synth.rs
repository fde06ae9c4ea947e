//! Labeled multi-engine result lists built from real text, or from the
//! small sample of result lists this team wrote (`sample.jsonl`, built in:
//! the lab works without the team's data folder).
//!
//! The dedup method is judged on what a meta-search engine really meets: the
//! same page returned by several engines, each presenting it its own way. The
//! pages are real (a DuReader Baidu result list per question, or a handful of
//! AG news stories of one category); what the simulated engines do to them
//! follows what real engines do, and every choice is drawn from a seeded RNG
//! so a set is the same on every machine:
//!
//! * each engine returns a partially overlapping subset of the pages, in
//!   roughly the source order (neighbours swapped now and then);
//! * each engine cuts its own snippet window out of the page text — its own
//!   start (at a character for CJK text, at a word otherwise), its own length
//!   cap, `...` where it cut — and one Chinese engine prints full-width
//!   punctuation;
//! * titles get the engine's way of naming the site (`_百度知道`,
//!   ` - Reuters`, ` | Reuters`, none) and one engine truncates long titles;
//! * links: `http`/`https`, `www.` or not, mobile hosts, tracking parameters
//!   (`utm_*`, `spm`, `gclid`), fragments, and engine redirect wrappers
//!   (DuckDuckGo `/l/?uddg=`, Bing `ck/a?…&u=a1<base64>`, Google `/url?q=`,
//!   Yahoo `RU=`); and now and then a *mirror* URL that no normalization can
//!   map back (a syndicated copy of the same text), so only the snippet can
//!   tell — given only to pages whose text is long enough to show;
//! * hard negatives stay in as separate groups: different pages sharing
//!   boilerplate snippets (`百度经验:jingyan.baidu.com`, which DuReader has
//!   49 of), pages with equal titles but different text (82 in DuReader), one
//!   PAWS-X zh non-paraphrase pair (swapped entities, high overlap) per
//!   DuReader list when `pairs/pawsx_zh/dev.tsv` is found, and for AG news
//!   several different stories of one category per list.
//!
//! Ground truth: one source page is one group. Within one list, DuReader
//! results with the same title *and* snippet, or AG items with the same
//! (re-cased) title or description, are the same page; and pages whose texts
//! are near-verbatim copies (≥ 90 % of the character 5-grams of the shorter
//! one, both ≥ 40 letters long — the same answer pasted under two questions,
//! one story from two feeds; 29 such pairs in DuReader) are one group, since
//! the reader would see the same text twice. Templates that differ in a name
//! or a number stay separate groups.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};

use super::LabError;
use super::data::{Rec, RecordSet};

/// The corpus a set is built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Corpus {
    /// `corpus/dureader_search_zh/search_results.jsonl` (+ PAWS-X zh negatives).
    DuReader,
    /// `corpus/ag_news_en/test.csv`.
    AgNews,
    /// Six Chinese result lists this team wrote, in DuReader's shape
    /// (`src/lab/sample.jsonl`, built into the binary).
    Sample,
}

/// The built-in sample's text.
const SAMPLE: &str = include_str!("sample.jsonl");

impl Corpus {
    /// Every corpus.
    pub const ALL: [Corpus; 3] = [Corpus::DuReader, Corpus::AgNews, Corpus::Sample];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Corpus::DuReader => "dureader",
            Corpus::AgNews => "ag-news",
            Corpus::Sample => "sample",
        }
    }

    /// The corpus file under a data root laid out like the team's data
    /// folder (`metasift_data::root()`); `None` for the built-in sample.
    pub fn path(self, data_root: &Path) -> Option<PathBuf> {
        match self {
            Corpus::DuReader => {
                Some(data_root.join("corpus/dureader_search_zh/search_results.jsonl"))
            }
            Corpus::AgNews => Some(data_root.join("corpus/ag_news_en/test.csv")),
            Corpus::Sample => None,
        }
    }
}

impl std::str::FromStr for Corpus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Corpus::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| format!("unknown corpus {s:?} (expected dureader, ag-news or sample)"))
    }
}

impl std::fmt::Display for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Knobs of the generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthOptions {
    /// RNG seed; the same seed gives the same set.
    pub seed: u64,
    /// Build at most this many result lists (0 = all the corpus gives).
    pub sets: usize,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions { seed: 42, sets: 0 }
    }
}

/// One generated record, as written to JSON Lines (the `metasift dedup`
/// input record plus its ground-truth `group`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SynthRecord {
    /// Unique id: list, engine and position.
    pub id: String,
    /// The list's query; records of different queries are never duplicates.
    pub query: String,
    /// Ground truth: the source page.
    pub group: String,
    /// The simulated engine.
    pub engine: String,
    /// 1-based position on that engine's page.
    pub position: u32,
    /// The link as that engine gave it.
    pub url: String,
    /// The title as that engine showed it.
    pub title: String,
    /// The snippet as that engine cut it.
    pub snippet: String,
}

/// SplitMix64: tiny, seedable, and good enough to pick windows and variants.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// One real page of a list.
#[derive(Debug, Clone)]
struct Page {
    group: String,
    bare_title: String,
    site: String,
    host: String,
    path: String,
    text: String,
    /// Kept by each engine with this probability.
    coverage: f64,
}

/// How one simulated engine presents results.
#[derive(Debug, Clone, Copy)]
struct EngineStyle {
    name: &'static str,
    /// `"_"`, `" - "`, `" | "`, or `""` for no site name.
    site_sep: &'static str,
    /// Titles longer than this many chars are cut with `...` (0 = never).
    title_cap: usize,
    /// Snippet cap in chars (CJK) …
    cap_chars: usize,
    /// … or in words (other scripts).
    cap_words: usize,
    /// Prints `,?!:;` as full-width.
    full_width: bool,
    /// Chance a link is wrapped in the engine's redirect.
    wrap: f64,
}

const ZH_ENGINES: [EngineStyle; 4] = [
    EngineStyle {
        name: "baidu",
        site_sep: "_",
        title_cap: 30,
        cap_chars: 120,
        cap_words: 30,
        full_width: false,
        wrap: 0.0,
    },
    EngineStyle {
        name: "bing",
        site_sep: " - ",
        title_cap: 0,
        cap_chars: 150,
        cap_words: 35,
        full_width: true,
        wrap: 0.6,
    },
    EngineStyle {
        name: "google",
        site_sep: " - ",
        title_cap: 0,
        cap_chars: 140,
        cap_words: 32,
        full_width: false,
        wrap: 0.6,
    },
    EngineStyle {
        name: "duckduckgo",
        site_sep: "",
        title_cap: 0,
        cap_chars: 160,
        cap_words: 40,
        full_width: false,
        wrap: 1.0,
    },
];

const EN_ENGINES: [EngineStyle; 4] = [
    EngineStyle {
        name: "google",
        site_sep: " - ",
        title_cap: 60,
        cap_chars: 140,
        cap_words: 28,
        full_width: false,
        wrap: 0.6,
    },
    EngineStyle {
        name: "bing",
        site_sep: " | ",
        title_cap: 0,
        cap_chars: 150,
        cap_words: 32,
        full_width: false,
        wrap: 0.6,
    },
    EngineStyle {
        name: "duckduckgo",
        site_sep: "",
        title_cap: 0,
        cap_chars: 160,
        cap_words: 36,
        full_width: false,
        wrap: 1.0,
    },
    EngineStyle {
        name: "yahoo",
        site_sep: " - ",
        title_cap: 0,
        cap_chars: 150,
        cap_words: 30,
        full_width: false,
        wrap: 0.8,
    },
];

/// Builds the labeled lists of `corpus` from the files under `data_root`
/// (a folder laid out like the team's data folder; unused for the sample).
pub fn generate(
    corpus: Corpus,
    data_root: &Path,
    opts: SynthOptions,
) -> Result<Vec<SynthRecord>, LabError> {
    let text = match corpus.path(data_root) {
        Some(path) => read(&path)?,
        None => SAMPLE.to_string(),
    };
    let mut rng = Rng::new(opts.seed ^ corpus as u64);
    let lists = match corpus {
        Corpus::DuReader => {
            let paws = data_root.join("pairs/pawsx_zh/dev.tsv");
            let negatives = if paws.exists() {
                pawsx_negatives(&read(&paws)?)
            } else {
                Vec::new()
            };
            dureader_lists(&text, &negatives, opts.sets, &mut rng)
        }
        Corpus::AgNews => ag_lists(&text, opts.sets, &mut rng),
        Corpus::Sample => dureader_lists(&text, &[], opts.sets, &mut rng),
    };
    let engines: &[EngineStyle] = match corpus {
        Corpus::DuReader | Corpus::Sample => &ZH_ENGINES,
        Corpus::AgNews => &EN_ENGINES,
    };
    let mut out = Vec::new();
    for (li, (query, pages)) in lists.iter().enumerate() {
        present(li, query, pages, engines, &mut rng, &mut out);
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String, LabError> {
    let mut text =
        crate::files::read_capped(path, crate::files::MAX_DATA_BYTES).map_err(|source| {
            LabError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
    // A byte order mark is not part of the first line.
    if text.starts_with('\u{FEFF}') {
        text.drain(..'\u{FEFF}'.len_utf8());
    }
    Ok(text)
}

/// Groups generated records into the lab's result lists (by query, in order).
pub fn to_sets(records: &[SynthRecord]) -> Vec<RecordSet> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut sets: Vec<RecordSet> = Vec::new();
    for r in records {
        let at = *index.entry(&r.query).or_insert_with(|| {
            sets.push(RecordSet {
                query: r.query.clone(),
                ..RecordSet::default()
            });
            sets.len() - 1
        });
        sets[at].records.push(Rec {
            url: r.url.clone(),
            title: r.title.clone(),
            snippet: r.snippet.clone(),
            engine: r.engine.clone(),
        });
        sets[at].groups.push(r.group.clone());
    }
    sets
}

/// Writes records as JSON Lines.
pub fn write_jsonl(records: &[SynthRecord], mut w: impl Write) -> std::io::Result<()> {
    for r in records {
        serde_json::to_writer(&mut w, r)?;
        w.write_all(b"\n")?;
    }
    w.flush()
}

// ---------------------------------------------------------------- sources

#[derive(Deserialize)]
struct DrQuestion {
    question_id: u64,
    question: String,
    results: Vec<DrResult>,
}

#[derive(Deserialize)]
struct DrResult {
    #[serde(default)]
    title: String,
    #[serde(default)]
    snippet: String,
}

/// What JavaScript's `encodeURIComponent` leaves alone, as engines do.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// Known Chinese site names and the host their pages live on.
const ZH_SITES: [(&str, &str, &str); 8] = [
    ("百度知道", "zhidao.baidu.com", "/question/{n}.html"),
    ("百度经验", "jingyan.baidu.com", "/article/{h}.html"),
    ("百度百科", "baike.baidu.com", "/item/{n}"),
    ("百度文库", "wenku.baidu.com", "/view/{h}.html"),
    ("百度贴吧", "tieba.baidu.com", "/p/{n}"),
    ("知乎", "www.zhihu.com", "/question/{n}"),
    ("新浪博客", "blog.sina.com.cn", "/s/blog_{h}.html"),
    ("搜狗百科", "baike.sogou.com", "/v{n}.htm"),
];

const ZH_OTHER_HOSTS: [(&str, &str, &str); 6] = [
    ("简书", "www.jianshu.com", "/p/{h}"),
    ("CSDN博客", "blog.csdn.net", "/u{n}/article/details/{n}"),
    ("360doc个人图书馆", "www.360doc.com", "/content/{n}.shtml"),
    ("搜狐", "www.sohu.com", "/a/{n}_{n}"),
    ("太平洋电脑网", "www.pconline.com.cn", "/{n}.html"),
    ("中关村在线", "detail.zol.com.cn", "/{n}.html"),
];

const MIRRORS: [&str; 5] = [
    "www.360doc.cn",
    "www.doc88.com",
    "www.docin.com",
    "www.zybang.com",
    "www.wenmi.com",
];

const EN_MIRRORS: [&str; 4] = [
    "www.newsnow.co.uk",
    "www.topix.com",
    "news.google.com",
    "www.msn.com",
];

fn fill_path(template: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if tail.starts_with("{n}") {
            out.push_str(&(100_000 + rng.below(90_000_000)).to_string());
        } else {
            out.push_str(&format!("{:012x}", rng.next_u64() >> 16));
        }
        rest = &tail[3..];
    }
    out.push_str(rest);
    out
}

/// Splits `bare_title_SITE` into the bare title and a known site.
fn split_zh_title(title: &str) -> (String, Option<usize>) {
    for (i, (site, _, _)) in ZH_SITES.iter().enumerate() {
        for sep in ["_", " - ", "-"] {
            if let Some(bare) = title.strip_suffix(&format!("{sep}{site}")) {
                return (bare.trim().to_string(), Some(i));
            }
        }
    }
    (title.trim().to_string(), None)
}

fn dureader_lists(
    text: &str,
    negatives: &[(String, String)],
    limit: usize,
    rng: &mut Rng,
) -> Vec<(String, Vec<Page>)> {
    let mut lists = Vec::new();
    let mut seen_queries: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        if limit > 0 && lists.len() >= limit {
            break;
        }
        let Ok(q) = serde_json::from_str::<DrQuestion>(line) else {
            continue;
        };
        let mut pages: Vec<Page> = Vec::new();
        let mut same: HashMap<(String, String), String> = HashMap::new();
        for (ri, r) in q.results.iter().enumerate() {
            let group = same
                .entry((r.title.clone(), r.snippet.clone()))
                .or_insert_with(|| format!("dr{}-{ri}", q.question_id))
                .clone();
            if pages.iter().any(|p| p.group == group) {
                continue;
            }
            let (bare, site) = split_zh_title(&r.title);
            let (site, host, path) = match site {
                Some(i) => ZH_SITES[i],
                None => ZH_OTHER_HOSTS[rng.below(ZH_OTHER_HOSTS.len())],
            };
            let group = group_of(&pages, &r.snippet, group);
            pages.push(Page {
                group,
                bare_title: bare,
                site: site.to_string(),
                host: host.to_string(),
                path: fill_path(path, rng),
                text: r.snippet.trim().to_string(),
                coverage: 0.7,
            });
        }
        if !negatives.is_empty() {
            let (a, b) = &negatives[lists.len() % negatives.len()];
            for (k, s) in [a, b].into_iter().enumerate() {
                let bare = s.trim_end_matches('。').to_string();
                pages.push(Page {
                    group: format!("paws{}-{k}", lists.len()),
                    bare_title: bare,
                    site: "维基百科".into(),
                    host: "zh.wikipedia.org".into(),
                    path: fill_path("/wiki/{h}", rng),
                    text: s.clone(),
                    coverage: 0.5,
                });
            }
        }
        let n = seen_queries.entry(q.question.clone()).or_insert(0);
        *n += 1;
        let query = if *n == 1 {
            q.question.clone()
        } else {
            format!("{} #{n}", q.question)
        };
        lists.push((query, pages));
    }
    lists
}

/// PAWS-X zh pairs labeled *not* paraphrases: swapped entities, high overlap.
fn pawsx_negatives(text: &str) -> Vec<(String, String)> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 4 && f[3].trim() == "0" && f[1] != f[2])
                .then(|| (f[1].trim().to_string(), f[2].trim().to_string()))
        })
        .collect()
}

/// The news site behind an AG description's `Source - ` lead, if any.
fn ag_site(description: &str) -> Option<(&'static str, &'static str)> {
    const LEADS: [(&str, &str, &str); 6] = [
        ("Reuters", "Reuters", "www.reuters.com"),
        ("AP", "AP News", "apnews.com"),
        ("AFP", "AFP", "www.afp.com"),
        ("SPACE.com", "Space.com", "www.space.com"),
        (
            "washingtonpost.com",
            "Washington Post",
            "www.washingtonpost.com",
        ),
        ("Canadian Press", "CP", "www.thecanadianpress.com"),
    ];
    let lead = description.split(" - ").next()?.trim();
    LEADS
        .iter()
        .find(|(l, _, _)| lead == *l)
        .map(|(_, site, host)| (*site, *host))
}

const EN_OTHER_SITES: [(&str, &str); 5] = [
    ("Yahoo News", "news.yahoo.com"),
    ("BBC News", "www.bbc.co.uk"),
    ("CNN", "edition.cnn.com"),
    ("The Guardian", "www.theguardian.com"),
    ("USA Today", "www.usatoday.com"),
];

fn slug(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .map(str::to_lowercase)
        .collect();
    words.join("-")
}

/// Character 5-grams of the letters and digits of a text.
fn grams(text: &str) -> std::collections::HashSet<u64> {
    let chars: Vec<char> = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    chars
        .windows(5)
        .map(|w| {
            let s: String = w.iter().collect();
            xxhash_rust::xxh3::xxh3_64(s.as_bytes())
        })
        .collect()
}

/// Whether two page texts are near-verbatim copies: both at least 40
/// letters/digits long and ≥ 90 % of the smaller one's 5-grams in the other.
/// Such pages (the same answer pasted under two questions, one story from
/// two feeds) show the reader the same text twice, so they are one group;
/// templates that differ in a name or a number (< 90 %) stay hard negatives.
fn near_copy(a: &str, b: &str) -> bool {
    let (ga, gb) = (grams(a), grams(b));
    if ga.len() < 36 || gb.len() < 36 {
        return false;
    }
    let shared = ga.intersection(&gb).count();
    shared as f64 >= 0.9 * ga.len().min(gb.len()) as f64
}

/// The group of a new page: an earlier near-copy's, or its own.
fn group_of(pages: &[Page], text: &str, own: String) -> String {
    pages
        .iter()
        .find(|p| near_copy(&p.text, text))
        .map_or(own, |p| p.group.clone())
}

/// Lower-case letters and digits only: what survives re-casing and
/// re-punctuating a headline.
fn fold_key(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A description without its `Source - ` / `CITY (Source) - ` lead.
fn strip_lead(desc: &str) -> &str {
    match desc.split_once(" - ") {
        Some((lead, rest)) if lead.split_whitespace().count() <= 4 => rest,
        _ => desc,
    }
}

fn ag_lists(text: &str, limit: usize, rng: &mut Rng) -> Vec<(String, Vec<Page>)> {
    const PER_LIST: usize = 8;
    const CLASSES: [&str; 4] = ["World", "Sports", "Business", "Sci/Tech"];
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut pending: [Vec<(usize, String, String)>; 4] = Default::default();
    let mut lists = Vec::new();
    for (row, rec) in reader.records().enumerate() {
        if limit > 0 && lists.len() >= limit {
            break;
        }
        let Ok(rec) = rec else { continue };
        let (Some(class), Some(title), Some(desc)) = (rec.get(0), rec.get(1), rec.get(2)) else {
            continue;
        };
        let Some(ci) = class
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|c| (1..=4).contains(c))
        else {
            continue;
        };
        // `\` stands for a line break in this corpus.
        let desc = desc.replace('\\', " ");
        let title = title.replace('\\', " ");
        pending[ci - 1].push((row, title.trim().to_string(), desc.trim().to_string()));
        if pending[ci - 1].len() < PER_LIST {
            continue;
        }
        let items = std::mem::take(&mut pending[ci - 1]);
        let mut pages: Vec<Page> = Vec::new();
        for (row, title, desc) in items {
            // The same story twice in the corpus (re-cased headline, or the
            // description with another feed's `Source - ` lead): one page.
            // Headlines in the corpus often carry the source in brackets.
            let bare = title
                .rsplit_once(" (")
                .filter(|(_, tail)| tail.ends_with(')') && tail.len() < 24)
                .map_or(title.clone(), |(head, _)| head.to_string());
            let (tk, dk) = (fold_key(&bare), fold_key(strip_lead(&desc)));
            if pages
                .iter()
                .any(|p| fold_key(&p.bare_title) == tk || fold_key(strip_lead(&p.text)) == dk)
            {
                continue;
            }
            let (site, host) = match ag_site(&desc) {
                Some(s) => s,
                None => EN_OTHER_SITES[rng.below(EN_OTHER_SITES.len())],
            };
            pages.push(Page {
                group: group_of(&pages, &desc, format!("ag{row}")),
                path: format!("/article/{}-{}", slug(&bare), 10_000 + rng.below(90_000)),
                bare_title: bare,
                site: site.to_string(),
                host: host.to_string(),
                text: desc,
                coverage: 0.7,
            });
        }
        lists.push((
            format!("ag {} #{}", CLASSES[ci - 1], lists.len() + 1),
            pages,
        ));
    }
    lists
}

// ------------------------------------------------------------ presentation

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// The engine's snippet window of `text`.
fn cut_snippet(text: &str, style: &EngineStyle, rng: &mut Rng) -> String {
    let cjk = text.chars().filter(|c| is_cjk(*c)).count() * 3 > text.chars().count();
    let snippet = if cjk {
        let chars: Vec<char> = text.chars().collect();
        let cap = style.cap_chars - rng.below(style.cap_chars / 8 + 1);
        if chars.len() <= 40 || chars.len() <= cap && rng.chance(0.6) {
            text.to_string()
        } else {
            let start = if rng.chance(0.5) {
                0
            } else {
                1 + rng.below((chars.len() / 6).clamp(1, 20))
            };
            let end = (start + cap).min(chars.len());
            let mut s = String::new();
            if start > 0 {
                s.push_str("...");
            }
            s.extend(&chars[start..end]);
            if end < chars.len() {
                s.push_str("...");
            }
            s
        }
    } else {
        let words: Vec<&str> = text.split_whitespace().collect();
        let cap = style.cap_words - rng.below(style.cap_words / 8 + 1);
        if words.len() <= 12 || words.len() <= cap && rng.chance(0.6) {
            words.join(" ")
        } else {
            let start = if rng.chance(0.5) {
                0
            } else {
                1 + rng.below((words.len() / 6).clamp(1, 6))
            };
            let end = (start + cap).min(words.len());
            let mut s = String::new();
            if start > 0 {
                s.push_str("... ");
            }
            s.push_str(&words[start..end].join(" "));
            if end < words.len() {
                s.push_str(" ...");
            }
            s
        }
    };
    if style.full_width {
        snippet
            .chars()
            .map(|c| match c {
                ',' => '，',
                '?' => '？',
                '!' => '！',
                ':' => '：',
                ';' => '；',
                c => c,
            })
            .collect()
    } else {
        snippet
    }
}

fn present_title(page: &Page, style: &EngineStyle) -> String {
    let mut t = if style.site_sep.is_empty() || page.site.is_empty() {
        page.bare_title.clone()
    } else {
        format!("{}{}{}", page.bare_title, style.site_sep, page.site)
    };
    if style.title_cap > 0 && t.chars().count() > style.title_cap {
        t = t.chars().take(style.title_cap - 2).collect::<String>() + "...";
    }
    t
}

/// The link one engine gives for a page.
fn present_url(page: &Page, style: &EngineStyle, mirrors: &[&str], rng: &mut Rng) -> String {
    // A syndicated copy at an unrelated address: only the text can tell.
    let (mut host, path) = if page.text.chars().count() >= 60 && rng.chance(0.15) {
        (
            mirrors[rng.below(mirrors.len())].to_string(),
            format!("/{:x}.html", rng.next_u64() >> 24),
        )
    } else {
        (page.host.clone(), page.path.clone())
    };
    if let Some(bare) = host.strip_prefix("www.") {
        if rng.chance(0.25) {
            host = bare.to_string();
        } else if rng.chance(0.1) {
            host = format!("m.{bare}");
        }
    }
    let scheme = if rng.chance(0.3) { "http" } else { "https" };
    let mut url = format!("{scheme}://{host}{path}");
    if rng.chance(0.3) {
        let tracking = [
            format!("utm_source={}&utm_medium=search", style.name),
            format!("spm={}.{}", rng.below(10_000), rng.below(100)),
            format!("gclid={:x}", rng.next_u64()),
            "utm_campaign=feed&fbclid=IwAR0x".to_string(),
        ];
        url.push('?');
        url.push_str(&tracking[rng.below(tracking.len())]);
    }
    if rng.chance(0.1) {
        url.push_str("#content");
    }
    if !rng.chance(style.wrap) {
        return url;
    }
    let enc = utf8_percent_encode(&url, COMPONENT).to_string();
    match style.name {
        "duckduckgo" => format!(
            "https://duckduckgo.com/l/?uddg={enc}&rut={:016x}",
            rng.next_u64()
        ),
        "bing" => format!(
            "https://www.bing.com/ck/a?!&&p={:016x}&ptn=3&ver=2&u=a1{}&ntb=1",
            rng.next_u64(),
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(url.as_bytes())
        ),
        "google" => format!(
            "https://www.google.com/url?q={enc}&sa=U&ved=2ahUKEw{:x}&usg=AOvVaw",
            rng.next_u64()
        ),
        "yahoo" => format!(
            "https://r.search.yahoo.com/_ylt=A0geK{:x}/RV=2/RE=1700000000/RO=10/RU={enc}/RK=2/RS={:x}-",
            rng.next_u64() >> 32,
            rng.next_u64()
        ),
        _ => url,
    }
}

fn present(
    li: usize,
    query: &str,
    pages: &[Page],
    engines: &[EngineStyle],
    rng: &mut Rng,
    out: &mut Vec<SynthRecord>,
) {
    let mirrors: &[&str] = if engines[0].name == "baidu" {
        &MIRRORS
    } else {
        &EN_MIRRORS
    };
    // Each engine's page of results.
    let mut lists: Vec<Vec<SynthRecord>> = Vec::new();
    for style in engines {
        let mut chosen: Vec<&Page> = pages.iter().filter(|p| rng.chance(p.coverage)).collect();
        for i in 1..chosen.len() {
            if rng.chance(0.3) {
                chosen.swap(i - 1, i);
            }
        }
        let list = chosen
            .into_iter()
            .enumerate()
            .map(|(i, page)| SynthRecord {
                id: format!("{li}-{}-{}", style.name, i + 1),
                query: query.to_string(),
                group: page.group.clone(),
                engine: style.name.to_string(),
                position: i as u32 + 1,
                url: present_url(page, style, mirrors, rng),
                title: present_title(page, style),
                snippet: cut_snippet(&page.text, style, rng),
            })
            .collect();
        lists.push(list);
    }
    // Fused-rank order: every engine's first result, then every second, …
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for pos in 0..longest {
        for list in &lists {
            if let Some(r) = list.get(pos) {
                out.push(r.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_spread() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut r = Rng::new(1);
        let hits = (0..10_000).filter(|_| r.chance(0.3)).count();
        assert!((2_700..3_300).contains(&hits), "{hits}");
        assert!((0..1000).all(|_| r.below(5) < 5));
        assert_eq!(r.below(0), 0);
    }

    #[test]
    fn zh_titles_lose_their_known_site() {
        let (bare, site) = split_zh_title("怎么可以在微信里面打开APP下载链接地址_百度经验");
        assert_eq!(bare, "怎么可以在微信里面打开APP下载链接地址");
        assert_eq!(ZH_SITES[site.unwrap()].0, "百度经验");
        assert_eq!(split_zh_title("无后缀").1, None);
    }

    #[test]
    fn snippets_are_windows_of_the_text() {
        let text = "第一句话在这里,第二句话也在这里。第三句话更长一些,还有第四句话!第五句话说完了?第六句话,第七句话,第八句话,第九句话,第十句话,第十一句话,第十二句话。".repeat(3);
        let mut rng = Rng::new(3);
        for style in &ZH_ENGINES {
            for _ in 0..20 {
                let s = cut_snippet(&text, style, &mut rng);
                let core = s.trim_start_matches("...").trim_end_matches("...");
                let core: String = if style.full_width {
                    core.replace('，', ",")
                        .replace('！', "!")
                        .replace('？', "?")
                } else {
                    core.to_string()
                };
                assert!(text.contains(&core), "{s}");
                assert!(core.chars().count() <= style.cap_chars);
            }
        }
    }

    #[test]
    fn wrapped_links_carry_the_target() {
        let page = Page {
            group: "g".into(),
            bare_title: "t".into(),
            site: "s".into(),
            host: "www.example.com".into(),
            path: "/a/b".into(),
            text: "short".into(),
            coverage: 1.0,
        };
        let mut rng = Rng::new(9);
        for style in &EN_ENGINES {
            for _ in 0..10 {
                let u = present_url(&page, style, &EN_MIRRORS, &mut rng);
                assert!(u.starts_with("http"), "{u}");
                let plain = u.contains("example.com/a/b");
                let encoded = u.contains("example.com%2Fa%2Fb");
                let bing = u.contains("u=a1");
                assert!(plain || encoded || bing, "{u}");
            }
        }
    }
}
