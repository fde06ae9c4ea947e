//! The parameters of `/search`, read leniently the way SearXNG reads them.
//!
//! Clients send them in the query string, in a form body (`POST`), or both
//! (some SearXNG clients `POST` with everything in the query string), so both
//! are decoded with `application/x-www-form-urlencoded` rules and the first
//! value of a name wins. Decoding never fails: invalid percent-escapes and
//! invalid UTF-8 become U+FFFD. Unknown names are ignored, as SearXNG does.
//! What *is* checked (page range, thresholds, format, query length) is refused
//! with a 400 that says what is accepted.

use std::borrow::Cow;

use url::form_urlencoded;

use metasift_dedup::{Method, SettingsPatch};

use super::error::AppError;
use super::ui::{Format, Msg};

/// Longest query accepted, in characters. Engines refuse far shorter ones;
/// the cap keeps a hostile 100 kB query from being sent on to every engine.
pub(super) const MAX_QUERY_CHARS: usize = 1000;

/// Highest page number accepted. Member engines stop paging long before.
pub(super) const MAX_PAGE: u32 = 50;

/// Everything `/search` understood from one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchParams {
    /// The raw query, `!shortcut`s included.
    pub q: String,
    /// 1-based page (`page` or SearXNG's `pageno`).
    pub page: u32,
    /// Output format.
    pub format: Format,
    /// Engine names (`engines=a,b`).
    pub engines: Vec<String>,
    /// Categories (`categories=general,news`).
    pub categories: Vec<String>,
    /// Cap on the number of results returned.
    pub limit: Option<usize>,
    /// Dedup method override.
    pub method: Option<Method>,
    /// `os1` override.
    pub os1: Option<f64>,
    /// `os2` override.
    pub os2: Option<f64>,
    /// Fusion method override (`fusion=`).
    pub fusion: Option<crate::config::FusionMethod>,
    /// Show the feature codes behind every merge.
    pub explain: bool,
    /// Language code; `all` / `auto` mean none.
    pub language: Option<String>,
    /// `day` | `week` | `month` | `year`.
    pub time_range: Option<String>,
    /// 0 | 1 | 2.
    pub safesearch: Option<u8>,
    /// Results per page: the searcher's preference (none: the server's);
    /// not a URL parameter — page links keep it through the cookie.
    pub per_page: Option<usize>,
    /// No thumbnails on the results page (the searcher's preference).
    pub no_thumbnails: bool,
    /// No site icons on the results page (the searcher's preference).
    pub no_favicons: bool,
}

/// One `/search` request, read once: its parameters with the preferences'
/// defaults under them (the page's links and forms keep them), the search
/// they make, and the language and theme its page is shown in.
#[derive(Debug, Clone)]
pub struct SearchAsked {
    /// The parameters.
    pub params: SearchParams,
    /// The search, built once ([`crate::search::Searcher::request`]).
    pub request: crate::search::SearchRequest,
    /// The reader's language and theme.
    pub ui: super::ui::Ui,
}

/// The most `category_NAME` fields read from one request.
const MAX_TICKED: usize = 32;

/// Every parameter name `/search` reads.
const NAMES: [&str; 17] = [
    "q",
    "format",
    "page",
    "pageno",
    "limit",
    "method",
    "os1",
    "os2",
    "fusion",
    "language",
    "lang",
    "time_range",
    "safesearch",
    "explain",
    "engines",
    "categories",
    "category",
];

impl SearchParams {
    /// Fills what the request left unset from the user's preferences.
    pub(crate) fn apply_defaults(&mut self, prefs: &super::prefs::Prefs) {
        if self.categories.is_empty() && self.engines.is_empty() {
            self.categories = prefs.categories.clone();
        }
        self.language = self.language.take().or_else(|| prefs.language.clone());
        self.safesearch = self.safesearch.or(prefs.safesearch);
        let dedup = self.dedup_patch().or(prefs.dedup_patch());
        (self.method, self.os1, self.os2) = (dedup.method, dedup.os1, dedup.os2);
        self.fusion = self.fusion.or(prefs.fusion);
        self.per_page = prefs.results;
        self.no_thumbnails = prefs.thumbnails == Some(false);
        self.no_favicons = prefs.favicons == Some(false);
    }

    /// What this request asks the searcher for; `disabled`: the engines
    /// the preferences leave out unless named.
    pub fn asked(&self, disabled: &[String]) -> crate::search::Asked {
        crate::search::Asked {
            q: self.q.clone(),
            page: self.page,
            engines: self.engines.clone(),
            categories: self.categories.clone(),
            disabled: disabled.to_vec(),
            language: self.language.clone(),
            time_range: self.time_range.clone(),
            safesearch: self.safesearch,
            dedup: self.dedup_patch(),
            fusion: self.fusion,
            explain: self.explain,
            per_page: self.per_page,
            hosts: None,
        }
    }

    /// Reads a query string and an optional form body. A name's first
    /// value counts (the query string's before the body's); names
    /// `/search` does not read are skipped. SearXNG's own form ticks
    /// categories as `category_NAME=on` (`off` unticks): read when there
    /// is no `categories=`.
    pub fn from_request(query: Option<&str>, body: &[u8]) -> Result<SearchParams, AppError> {
        let mut found: [Option<Cow<'_, str>>; NAMES.len()] = std::array::from_fn(|_| None);
        let mut ticked: Vec<String> = Vec::new();
        let pairs = form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .chain(form_urlencoded::parse(body));
        for (k, v) in pairs {
            if let Some(c) = k.strip_prefix("category_").filter(|c| !c.is_empty()) {
                ticked.retain(|t| t != c);
                if v != "off" && ticked.len() < MAX_TICKED {
                    ticked.push(c.to_string());
                }
            } else if let Some(i) = NAMES.iter().position(|n| *n == k)
                && found[i].is_none()
            {
                found[i] = Some(v);
            }
        }
        let mut params = SearchParams::from_values(|k| {
            let i = NAMES.iter().position(|n| *n == k)?;
            found[i].as_deref()
        })?;
        if params.categories.is_empty() {
            params.categories = ticked;
        }
        Ok(params)
    }

    /// `value(name)`: the request's value of a name of [`NAMES`].
    fn from_values<'a>(value: impl Fn(&str) -> Option<&'a str>) -> Result<SearchParams, AppError> {
        // An empty value counts as absent, as in an HTML form left blank.
        let get = |k: &str| {
            debug_assert!(NAMES.contains(&k), "{k} is not in NAMES");
            value(k).filter(|v| !v.trim().is_empty())
        };
        // The format is read first so every later error is rendered in it.
        let format = match get("format") {
            None => Format::Html,
            Some(f) => Format::parse(f).ok_or_else(|| {
                AppError::bad_request(
                    Msg::new("error-format-unknown").arg("value", format!("{:?}", clip(f))),
                    Format::Html,
                )
            })?,
        };
        let bad = |message: Msg| AppError::bad_request(message, format);

        let q = get("q").unwrap_or("").to_string();
        let chars = q.chars().count();
        if chars > MAX_QUERY_CHARS {
            return Err(bad(Msg::new("error-query-too-long")
                .arg("n", chars)
                .arg("max", MAX_QUERY_CHARS)));
        }

        let page = match get("page").or(get("pageno")).map(str::trim) {
            None | Some("") => 1,
            Some(p) => match p.parse::<i64>() {
                Ok(n) if (1..=i64::from(MAX_PAGE)).contains(&n) => n as u32,
                _ => {
                    return Err(bad(Msg::new("error-page-range")
                        .arg("value", format!("{:?}", clip(p)))
                        .arg("max", MAX_PAGE)));
                }
            },
        };

        let limit = match get("limit").map(str::trim) {
            None | Some("") => None,
            Some(l) => match l.parse::<usize>() {
                Ok(n) if n >= 1 => Some(n),
                _ => {
                    return Err(bad(
                        Msg::new("error-limit").arg("value", format!("{:?}", clip(l)))
                    ));
                }
            },
        };

        let method = match get("method").map(str::trim) {
            None | Some("") => None,
            Some(m) => Some(m.parse::<Method>().map_err(|_| {
                bad(Msg::new("error-method").arg("value", format!("{:?}", clip(m))))
            })?),
        };
        let os1 = threshold(get("os1"), "os1").map_err(bad)?;
        let os2 = threshold(get("os2"), "os2").map_err(bad)?;
        let fusion = match get("fusion").map(str::trim) {
            None | Some("") => None,
            Some(f) => Some(f.parse::<crate::config::FusionMethod>().map_err(|_| {
                bad(Msg::new("error-fusion").arg("value", format!("{:?}", clip(f))))
            })?),
        };

        let language = get("language")
            .or(get("lang"))
            .map(str::trim)
            .filter(|l| !l.is_empty() && *l != "all" && *l != "auto")
            .map(str::to_string);
        let time_range = get("time_range")
            .map(str::trim)
            .filter(|t| matches!(*t, "day" | "week" | "month" | "year"))
            .map(str::to_string);
        let safesearch = get("safesearch")
            .and_then(|s| s.trim().parse::<u8>().ok())
            .filter(|s| *s <= 2);
        let explain = get("explain")
            .map(|e| matches!(e.trim(), "1" | "true" | "on" | "yes"))
            .unwrap_or(false);

        Ok(SearchParams {
            q,
            page,
            format,
            engines: list(get("engines")),
            // `category=` as PyPI's `searxng_search` client sends it.
            categories: list(get("categories").or(get("category"))),
            limit,
            method,
            os1,
            os2,
            fusion,
            explain,
            language,
            time_range,
            safesearch,
            per_page: None,
            no_thumbnails: false,
            no_favicons: false,
        })
    }

    /// The dedup values this request lays over `[dedup]`.
    pub fn dedup_patch(&self) -> SettingsPatch {
        SettingsPatch {
            method: self.method,
            os1: self.os1,
            os2: self.os2,
            ..SettingsPatch::default()
        }
    }

    /// The query-string pairs that reproduce this search on another page
    /// (pagination, format links), in a stable order.
    pub fn link_pairs(&self, page: u32, format: Format) -> Vec<(&'static str, String)> {
        let mut v = vec![("q", self.q.clone())];
        if page != 1 {
            v.push(("page", page.to_string()));
        }
        if format != Format::Html {
            v.push(("format", format.as_str().to_string()));
        }
        if !self.engines.is_empty() {
            v.push(("engines", self.engines.join(",")));
        }
        if !self.categories.is_empty() {
            v.push(("categories", self.categories.join(",")));
        }
        if let Some(l) = self.limit {
            v.push(("limit", l.to_string()));
        }
        if let Some(m) = self.method {
            v.push(("method", m.as_str().to_string()));
        }
        if let Some(x) = self.os1 {
            v.push(("os1", x.to_string()));
        }
        if let Some(x) = self.os2 {
            v.push(("os2", x.to_string()));
        }
        if let Some(f) = self.fusion {
            v.push(("fusion", f.as_str().to_string()));
        }
        if self.explain {
            v.push(("explain", "1".to_string()));
        }
        if let Some(l) = &self.language {
            v.push(("language", l.clone()));
        }
        if let Some(t) = &self.time_range {
            v.push(("time_range", t.clone()));
        }
        if let Some(s) = self.safesearch {
            v.push(("safesearch", s.to_string()));
        }
        v
    }

    /// `/search?…` for this search on `page` in `format`.
    pub fn link(&self, page: u32, format: Format) -> String {
        let mut ser =
            form_urlencoded::Serializer::for_suffix(String::from("/search?"), "/search?".len());
        for (k, v) in self.link_pairs(page, format) {
            ser.append_pair(k, &v);
        }
        ser.finish()
    }
}

fn threshold(v: Option<&str>, name: &str) -> Result<Option<f64>, Msg> {
    match v.map(str::trim) {
        None | Some("") => Ok(None),
        Some(s) => match s.parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => Ok(Some(x)),
            _ => Err(Msg::new("error-threshold")
                .arg("name", name)
                .arg("value", format!("{:?}", clip(s)))),
        },
    }
}

fn list(v: Option<&str>) -> Vec<String> {
    v.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Keeps error messages short when the offending value is huge.
fn clip(s: &str) -> Cow<'_, str> {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.chars().take(MAX).collect::<String>() + "…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Result<SearchParams, AppError> {
        SearchParams::from_request(Some(q), b"")
    }

    #[test]
    fn pageno_is_an_alias_and_first_value_wins() {
        let p = parse("q=rust&pageno=3&page=&q=other").unwrap();
        assert_eq!(p.q, "rust");
        assert_eq!(p.page, 3);
    }

    #[test]
    fn the_query_string_wins_over_the_body_and_other_names_are_skipped() {
        let p = SearchParams::from_request(
            Some("q=first&x=1&format=json"),
            b"q=second&format=csv&page=2&unknown=%FF",
        )
        .unwrap();
        assert_eq!((p.q.as_str(), p.format, p.page), ("first", Format::Json, 2));
    }

    #[test]
    fn body_adds_to_the_query_string() {
        let p = SearchParams::from_request(Some("format=json"), b"q=caf%C3%A9&page=2").unwrap();
        assert_eq!((p.q.as_str(), p.page, p.format), ("café", 2, Format::Json));
    }

    #[test]
    fn out_of_range_pages_are_refused() {
        for page in ["0", "-1", "1000000000000", "x", "51"] {
            let err = parse(&format!("q=a&page={page}")).unwrap_err();
            assert!(err.to_string().contains("out of range"), "{page}: {err}");
        }
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let p = parse("q=%FF%FEa%zz").unwrap();
        assert_eq!(p.q, "\u{FFFD}\u{FFFD}a%zz");
    }

    #[test]
    fn thresholds_and_method_override_the_configured_settings() {
        let p = parse("q=a&method=simhash&os2=0.6").unwrap();
        let s = p.dedup_patch().over(&metasift_dedup::Settings::default());
        assert_eq!((s.method, s.os1, s.os2), (Method::SimHash, 0.5, 0.6));
        assert!(parse("q=a&os1=1.5").is_err());
        assert!(parse("q=a&os1=NaN").is_err());
        assert!(parse("q=a&method=magic").is_err());
        let p = parse("q=a&fusion=rrf").unwrap();
        assert_eq!(p.fusion, Some(crate::config::FusionMethod::Rrf));
        assert!(
            p.link(1, Format::Json).contains("fusion=rrf"),
            "{}",
            p.link(1, Format::Json)
        );
        assert!(parse("q=a&fusion=magic").is_err());
        assert!(parse("q=a").unwrap().dedup_patch().is_empty());
    }

    #[test]
    fn links_round_trip() {
        let p = parse("q=a+%26+b&engines=x,y&explain=1&os1=0.4").unwrap();
        let link = p.link(2, Format::Json);
        let again = parse(link.trim_start_matches("/search?")).unwrap();
        assert_eq!(again.q, "a & b");
        assert_eq!(again.page, 2);
        assert_eq!(again.format, Format::Json);
        assert_eq!(again.engines, ["x", "y"]);
        assert!(again.explain);
        assert_eq!(again.os1, Some(0.4));
    }
}
