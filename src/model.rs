//! Plain records shared by the layers: what a user asked, what an engine
//! answered, and what metasift shows.

use serde::{Deserialize, Serialize};

use metasift_dedup::Stage;

mod extra;
pub use extra::{
    Address, Answer, Extra, Infobox, InfoboxAttribute, InfoboxUrl, Template, bare_doi,
    iframe_allowed, merge_infoboxes, video_length,
};

/// One search as the user asked it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Query {
    /// The query text, with any `!shortcut` already removed.
    pub text: String,
    /// 1-based page number.
    pub page: u32,
    /// Language code (`en`, `zh-CN`, …) when the user chose one.
    pub lang: Option<String>,
    /// Engine names to ask; empty = every enabled engine of the categories.
    pub engines: Vec<String>,
    /// Categories to ask; empty = `general`.
    pub categories: Vec<String>,
    /// `day` | `week` | `month` | `year`, passed to engines that support it.
    pub time_range: Option<String>,
    /// 0 | 1 | 2, passed to engines that support it.
    pub safesearch: Option<u8>,
    /// The search operators in `text` (`site:`, `-word`, `"phrase"`, …),
    /// read once by the query parser: sent to the engines that understand
    /// them, enforced on every result.
    #[serde(default, skip_serializing_if = "Operators::is_empty")]
    pub operators: Operators,
    /// Where an external bang (`!!w rust`) sends the searcher instead of
    /// searching: the site's search for the rest of the query, or its home
    /// page when nothing else was typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_bang: Option<String>,
}

/// The search operators of a query, as the query parser read them (values
/// as typed, hosts and file types in lower case). Several `site:` or
/// `filetype:` are alternatives (any of them); every other operator must
/// hold on its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Operators {
    /// `site:host`: the result's host is one of these or under one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<String>,
    /// `-site:host`: the result's host is none of these nor under one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_sites: Vec<String>,
    /// `-word` and `-"a phrase"`: absent from the title and snippet.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    /// `"a phrase"`: present, as one run, in the title or snippet.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phrases: Vec<String>,
    /// `intitle:word` and `intitle:"a phrase"`: present in the title.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub intitle: Vec<String>,
    /// `filetype:pdf` / `ext:pdf` (no dot): the extension of the result's
    /// URL path is one of these.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filetypes: Vec<String>,
}

impl Operators {
    /// No operator at all.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
            && self.not_sites.is_empty()
            && self.excluded.is_empty()
            && self.phrases.is_empty()
            && self.intitle.is_empty()
            && self.filetypes.is_empty()
    }

    /// How many operators there are.
    pub fn len(&self) -> usize {
        self.sites.len()
            + self.not_sites.len()
            + self.excluded.len()
            + self.phrases.len()
            + self.intitle.len()
            + self.filetypes.len()
    }
}

impl FailureKind {
    /// Whether the engine was left out because it cannot honour the time
    /// range or safe-search level asked (not asked, not a failure of its own).
    pub fn is_left_out(self) -> bool {
        matches!(self, FailureKind::NoSafeSearch | FailureKind::NoTimeRange)
    }
}

/// One result as one engine returned it, after parsing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineResult {
    /// The target URL (redirect wrappers already unwrapped).
    pub url: String,
    /// Plain-text title.
    pub title: String,
    /// Plain-text snippet (may be empty).
    pub snippet: String,
    /// The engine's name in `engines.toml`.
    pub engine: String,
    /// 1-based position on the engine's page.
    pub position: u32,
    /// The engine's first category.
    pub category: String,
    /// When the page was published, RFC 3339 in UTC, where the engine says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    /// An image of the result (absolute http(s) URL), where the engine gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<String>,
    /// The real target where `url` is the engine's own redirect (Baidu's
    /// `mu`): the dedup key is built from it, and the URL line shows it;
    /// the link clicked stays `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_url: Option<String>,
    /// The URL the engine's page shows for the result, for the URL line
    /// when there is no `key_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_url: Option<String>,
    /// SearXNG's result template and its fields (images, videos, papers,
    /// packages, places), where the engine gives them; `None` for a plain
    /// web result, which stays small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Box<Extra>>,
}

impl EngineResult {
    /// The URL the dedup key is built from: the real target when the
    /// engine gave one, else the link.
    pub fn key(&self) -> &str {
        self.key_url.as_deref().unwrap_or(&self.url)
    }
}

/// A record hidden as a duplicate of a shown result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Duplicate {
    /// The duplicate's own link.
    pub url: String,
    /// The duplicate's own title.
    pub title: String,
    /// The engine that returned it.
    pub engine: String,
    /// Its position on that engine's page.
    pub position: u32,
    /// The rule that merged it.
    pub stage: Stage,
    /// Snippet similarity, where one applies.
    pub similarity: Option<f64>,
    /// Feature codes shared with the kept result (hex), filled when explaining.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_codes: Vec<String>,
    /// The text of the duplicate's snippet around each shared code (the
    /// words of the code's window, anchor included), in snippet order,
    /// filled when explaining.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shared_text: Vec<String>,
    /// The duplicate's own snippet, filled when explaining.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub snippet: String,
}

/// One fused result: a kept record and everything merged into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedResult {
    /// The link to click (the kept record's, as its engine gave it).
    pub url: String,
    /// The most complete title among the group's members with the kept
    /// record's URL key (title, link and snippet are one page's).
    pub title: String,
    /// The most complete snippet among the same members.
    pub content: String,
    /// The engine of the kept record.
    pub engine: String,
    /// Every engine that returned a member of the group (kept one first).
    pub engines: Vec<String>,
    /// Position of the group's member on each of `engines`, same order.
    pub positions: Vec<u32>,
    /// The fusion method's score over every member ([`crate::fusion::methods`]).
    pub score: f64,
    /// Category of the kept record.
    pub category: String,
    /// Hidden duplicates, in the order they were met.
    pub duplicates: Vec<Duplicate>,
    /// Publication date (RFC 3339, UTC): the kept record's, else the first
    /// a member of the group gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    /// An image of the result: the kept record's, else the first a member gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<String>,
    /// The kept record's real target when its link is the engine's own
    /// redirect ([`EngineResult::key_url`]): its dedup key's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_url: Option<String>,
    /// What the readable URL line shows when not `url`: the kept record's
    /// `key_url`, else the URL its page showed ([`EngineResult::display_url`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_url: Option<String>,
    /// The template fields: the kept record's, each field it lacks filled
    /// from the first member of the group that has it under the same template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Box<Extra>>,
}

impl MergedResult {
    /// The URL the dedup key is built from (see [`EngineResult::key`]).
    pub fn key(&self) -> &str {
        self.key_url.as_deref().unwrap_or(&self.url)
    }

    /// The URL the readable URL line is made from.
    pub fn shown_url(&self) -> &str {
        self.display_url.as_deref().unwrap_or(&self.url)
    }
}

/// Why an engine gave nothing usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// No complete answer within its `timeout_ms` or the search deadline.
    Timeout,
    /// Connection, TLS or protocol error.
    Network,
    /// HTTP 429.
    TooManyRequests,
    /// Another 4xx status.
    Http4xx,
    /// A 5xx status.
    Http5xx,
    /// A CAPTCHA, bot check or "unavailable" page.
    Blocked,
    /// The body did not parse as the engine's kind.
    Parse,
    /// The body was larger than the cap.
    TooLarge,
    /// The engine is suspended after repeated failures.
    Suspended,
    /// Offline replay (`--replay`): the recording holds no answer of this
    /// engine to this query. Not the engine's fault; never counts for health.
    NotRecorded,
    /// Left out of a strict safe search (`safesearch=2`): the engine has no
    /// way to be asked to leave adult content out. Never counts for health.
    NoSafeSearch,
    /// Left out of a search with a time range: the engine can neither be
    /// asked for one nor gives dates to check. Never counts for health.
    NoTimeRange,
    /// Not asked: its outbound budget (`max_per_minute`) is spent for now.
    /// Not the engine's fault; never counts for health.
    Budget,
}

impl FailureKind {
    /// Short name used in JSON, `/stats` and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Network => "network",
            FailureKind::TooManyRequests => "too_many_requests",
            FailureKind::Http4xx => "http_4xx",
            FailureKind::Http5xx => "http_5xx",
            FailureKind::Blocked => "blocked",
            FailureKind::Parse => "parse",
            FailureKind::TooLarge => "too_large",
            FailureKind::Suspended => "suspended",
            FailureKind::NotRecorded => "not_recorded",
            FailureKind::NoSafeSearch => "no_safesearch",
            FailureKind::NoTimeRange => "no_time_range",
            FailureKind::Budget => "budget",
        }
    }
}

/// How one engine fared in one search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineReport {
    /// Engine name.
    pub engine: String,
    /// Milliseconds from request to parsed answer (or to failure).
    pub elapsed_ms: u64,
    /// Number of results parsed (0 on failure).
    pub results: usize,
    /// `None` when it answered; the kind of failure otherwise.
    pub failure: Option<FailureKind>,
    /// A human-readable reason ("HTTP 503", "timeout after 2500 ms", …).
    pub reason: Option<String>,
}

/// Everything one search produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SearchResponse {
    /// The query as asked.
    pub query: Query,
    /// Fused results of the requested page.
    pub results: Vec<MergedResult>,
    /// Fused results known: those of the pages before this one and the
    /// whole fused list this page is a slice of (see `search`'s paging).
    /// More may come when the engines are asked for their next page.
    #[serde(default)]
    pub total_results: usize,
    /// Pages of fused results known (`total_results` in pages of
    /// `[server] results_per_page`, each engine page's fused list starting
    /// a new page); a page past it asks the engines for their next page.
    #[serde(default)]
    pub pages: u32,
    /// One report per engine asked.
    pub engines: Vec<EngineReport>,
    /// Suggestions offered by engines.
    pub suggestions: Vec<String>,
    /// Total milliseconds spent.
    pub elapsed_ms: u64,
    /// Served from the cache.
    pub cached: bool,
    /// When the engine answers behind the page were fetched, in
    /// milliseconds since the Unix epoch (0: unknown); how old an answer
    /// is ([`SearchResponse::age_s`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fetched_at_ms: u64,
    /// The largest number of results an engine said it has for the query
    /// (its own estimate, as SearXNG reports), when any engine said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<u64>,
    /// Boxes about the entity the query names (Wikipedia, Wikidata), those
    /// with the same `id` merged ([`merge_infoboxes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub infoboxes: Vec<Infobox>,
    /// Direct answers engines gave, without repeats.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<Answer>,
    /// Engine results left out because they break one of the query's
    /// operators (`site:`, `-word`, `"phrase"`, …), counted over the
    /// answers this page's fused list was made from.
    #[serde(default)]
    pub broke_operators: usize,
    /// Results the hostname rules' `remove` left out of the fused list
    /// this page is a slice of (distinct links).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hostnames_removed: usize,
    /// Results left out for lying outside the time range asked, or having
    /// no date, from engines that cannot be asked for a time range and whose
    /// dates are checked instead.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub time_range_dropped: usize,
}

fn is_zero<N: Default + PartialEq>(n: &N) -> bool {
    *n == N::default()
}

impl SearchResponse {
    /// Whole seconds since the engine answers behind the page were
    /// fetched, at `now` (0 when unknown, or for a clock set back).
    pub fn age_s(&self, now: std::time::SystemTime) -> u64 {
        if self.fetched_at_ms == 0 {
            return 0;
        }
        let now_ms = now
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        now_ms.saturating_sub(self.fetched_at_ms) / 1000
    }

    /// The one number of results every format shows (the page's count,
    /// JSON's `number_of_results`, RSS's `opensearch:totalResults`): the
    /// fused results known, never fewer than this page holds. An engine's
    /// own estimate is another figure, shown under its own name
    /// (docs/decisions.md, "One number of results").
    pub fn number_of_results(&self) -> usize {
        self.total_results.max(self.results.len())
    }
}

/// Whether `c` is removed from text an engine sent: C0 and C1 controls
/// and DEL (a NUL, BEL or ESC reaches a terminal, a CSV cell or an HTML
/// page raw otherwise), and the bidirectional formatting characters
/// (U+200E/F, U+061C, U+202A–202E, U+2066–2069), which reorder what people
/// read (U+202E before `exe.txt` spoofs a file name). Tab, line feed and carriage
/// return become spaces instead ([`clean_text`]).
pub fn is_hidden_char(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{200e}' | '\u{200f}' | '\u{61c}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` without the characters [`is_hidden_char`] names (tabs and line
/// breaks become spaces); unchanged, without a copy, when it has none.
pub fn clean_text(text: String) -> String {
    if !text.chars().any(is_hidden_char) {
        return text;
    }
    text.chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' | '\u{b}' | '\u{c}' => Some(' '),
            c if is_hidden_char(c) => None,
            c => Some(c),
        })
        .collect()
}

impl EngineResult {
    /// The one place an engine's text is made safe for every output (HTML,
    /// CSV, JSON, RSS, text) and bounded for the dedup: hidden characters
    /// removed from every field ([`clean_text`]), the title and snippet
    /// clipped where the dedup stops reading them
    /// ([`metasift_dedup::clip_title`], [`metasift_dedup::clip_snippet`]).
    pub fn sanitized(mut self) -> EngineResult {
        let clip = |s: String, f: fn(&str) -> &str| {
            let keep = f(&s).len();
            let mut s = s;
            s.truncate(keep);
            clean_text(s)
        };
        self.title = clip(self.title, metasift_dedup::clip_title);
        self.snippet = clip(self.snippet, metasift_dedup::clip_snippet);
        self.url = clean_text(self.url);
        self.engine = clean_text(self.engine);
        self.category = clean_text(self.category);
        self.published = self.published.map(clean_text);
        self.thumbnail = self.thumbnail.map(clean_text);
        self.key_url = self.key_url.map(clean_text);
        self.display_url = self.display_url.map(clean_text);
        self.extra = self
            .extra
            .map(|e| Box::new(e.sanitized()))
            .filter(|e| !e.is_empty());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_leave_every_field() {
        let dirty = "a\u{0}b\u{7}c\u{1b}[31m\u{202e}exe.txt\u{2066}\u{200f}\u{61c}\u{85}\td\ne";
        assert_eq!(clean_text(dirty.into()), "abc[31mexe.txt d e");
        let r = EngineResult {
            url: "https://a.example/\u{202e}x".into(),
            title: format!("T\u{1}{}", "x".repeat(5000)),
            snippet: format!("s\u{202e}{}", "word ".repeat(2000)),
            engine: "e".into(),
            position: 1,
            category: "general".into(),
            published: None,
            thumbnail: Some("https://t.example/\u{7}".into()),
            key_url: Some("https://k.example/\u{202e}".into()),
            display_url: None,
            extra: None,
        }
        .sanitized();
        for field in [&r.url, &r.title, &r.snippet, r.thumbnail.as_ref().unwrap()] {
            assert!(!field.chars().any(is_hidden_char), "{field:?}");
        }
        assert!(r.title.len() <= metasift_dedup::MAX_TITLE_BYTES);
        assert!(r.snippet.len() <= metasift_dedup::MAX_SNIPPET_BYTES);
        assert!(r.snippet.starts_with("sword word"));
        let plain = String::from("plain text, 中文");
        let ptr = plain.as_ptr();
        let same = clean_text(plain);
        assert_eq!(same.as_ptr(), ptr, "no copy when clean");
    }
}
