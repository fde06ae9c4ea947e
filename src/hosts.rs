//! Hostname rules: `[hostnames]` in `engines.toml` and a searcher's own
//! lists from the preferences, as SearXNG's hostnames plugin has them —
//! `remove` (results of those hosts are dropped), `replace` (a link's host
//! is rewritten, e.g. to a front end of the searcher's choice), `boost` and
//! `lower` (the fused score is multiplied by a factor).
//!
//! A pattern is either a **host suffix** or an **anchored regex**. A pattern
//! with none of the regex metacharacters `\ ^ $ * + ? ( ) [ ] { } |` is a
//! suffix: `pinterest.com` matches `pinterest.com` and `www.pinterest.com`,
//! never `notpinterest.com` (a `.` in a suffix is a dot). Any of them makes
//! it a regex, matched against the **whole** host (`^(?:…)$`, case
//! insensitive, on the host's ASCII form: `\w` is `[0-9A-Za-z_]`):
//! `(.*\.)?youtube\.com`. Regexes are the `regex` crate's
//! (linear time in the host's length, whatever the pattern), compiled once
//! with their compiled size capped ([`Caps`]); a list holds a capped number
//! of patterns. Every rule matches the host of a result's original link
//! (its real target where the engine links through a redirect), never the
//! host a `replace` wrote.
//!
//! This module knows nothing of results or fusion: the search layer applies
//! the rules (`search::hostnames`), fusion multiplies by the factor it is
//! given (`fusion::hosts`).

use std::collections::HashSet;
use std::sync::Arc;

use regex::bytes::{Regex, RegexBuilder};

/// The characters that make a pattern a regex rather than a host suffix.
pub const REGEX_CHARS: &[char] = &[
    '\\', '^', '$', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|',
];

/// The default factor of `boost`.
pub const DEFAULT_BOOST_FACTOR: f64 = 2.0;
/// The default factor of `lower`.
pub const DEFAULT_LOWER_FACTOR: f64 = 0.5;
/// The largest `boost_factor` (and the smallest `lower_factor` is its
/// inverse): beyond it a factor is a `remove` or a pin, not a weight.
pub const MAX_FACTOR: f64 = 100.0;

/// Bounds on one set of lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Patterns in one list (`remove`, `replace`, `boost`, `lower`).
    pub patterns: usize,
    /// Of those, regexes (suffixes cost one hash lookup per label of a
    /// host; each regex is one more pass over it).
    pub regexes: usize,
    /// Bytes of one pattern or replacement.
    pub pattern_bytes: usize,
    /// Compiled size of one regex (`RegexBuilder::size_limit`), and the
    /// cache of its lazy DFA (`dfa_size_limit`).
    pub regex_bytes: usize,
}

/// The caps of `[hostnames]` (a blocklist of content farms may hold
/// thousands of suffixes).
pub const CONFIG_CAPS: Caps = Caps {
    patterns: 10_000,
    regexes: 256,
    pattern_bytes: 1024,
    regex_bytes: 256 * 1024,
};

/// The caps of a searcher's own lists (the preferences cookie, compiled for
/// each of their searches).
pub const PREFS_CAPS: Caps = Caps {
    patterns: 64,
    regexes: 8,
    pattern_bytes: 256,
    regex_bytes: 16 * 1024,
};

/// A rule's kind: its list's name in `[hostnames]` and in the preferences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `remove`
    Remove,
    /// `replace`
    Replace,
    /// `boost`
    Boost,
    /// `lower`
    Lower,
}

impl Kind {
    /// Every kind, in the order the lists are written.
    pub const ALL: [Kind; 4] = [Kind::Remove, Kind::Replace, Kind::Boost, Kind::Lower];

    /// The list's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Remove => "remove",
            Kind::Replace => "replace",
            Kind::Boost => "boost",
            Kind::Lower => "lower",
        }
    }
}

/// The rules as written: patterns (and replacements), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Lists {
    /// Hosts whose results are dropped.
    pub remove: Vec<String>,
    /// Pattern → the host (`host` or `host:port`) written instead; the
    /// first pattern that matches wins.
    pub replace: Vec<(String, String)>,
    /// Hosts whose results are raised (`boost_factor`).
    pub boost: Vec<String>,
    /// Hosts whose results are lowered (`lower_factor`).
    pub lower: Vec<String>,
}

impl Lists {
    /// No rule at all.
    pub fn is_empty(&self) -> bool {
        self.remove.is_empty()
            && self.replace.is_empty()
            && self.boost.is_empty()
            && self.lower.is_empty()
    }

    /// The patterns of a list kind (the patterns of `replace`).
    pub fn patterns(&self, kind: Kind) -> Vec<&str> {
        match kind {
            Kind::Remove => self.remove.iter().map(String::as_str).collect(),
            Kind::Replace => self.replace.iter().map(|(p, _)| p.as_str()).collect(),
            Kind::Boost => self.boost.iter().map(String::as_str).collect(),
            Kind::Lower => self.lower.iter().map(String::as_str).collect(),
        }
    }
}

/// A pattern (or replacement) refused: which list, which entry, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// The list.
    pub kind: Kind,
    /// The entry's index in its list; `None`: the list as a whole (too
    /// many patterns).
    pub index: Option<usize>,
    /// The pattern as written (`replace`: the pattern, not the host).
    pub pattern: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            Some(_) => write!(
                f,
                "{} {:?}: {}",
                self.kind.as_str(),
                self.pattern,
                self.message
            ),
            None => write!(f, "{}: {}", self.kind.as_str(), self.message),
        }
    }
}

/// One compiled pattern.
#[derive(Debug, Clone)]
enum Pattern {
    /// A host suffix, lower case, IDNA (punycode) form.
    Suffix(String),
    /// An anchored regex.
    Regex(Regex),
}

impl Pattern {
    /// Reads one pattern under `caps` (its kind decided by [`REGEX_CHARS`]).
    fn parse(text: &str, caps: &Caps) -> Result<Pattern, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("an empty pattern".into());
        }
        if text.len() > caps.pattern_bytes {
            return Err(format!(
                "a pattern of {} bytes; at most {} are read",
                text.len(),
                caps.pattern_bytes
            ));
        }
        if !text.contains(REGEX_CHARS) {
            return suffix(text).map(Pattern::Suffix);
        }
        // Hosts are ASCII (IDNA form): the classes are ASCII's (`\w` is
        // `[0-9A-Za-z_]`, not Unicode's hundreds of ranges), and the regex
        // reads bytes, so `.` needs no Unicode either.
        let built = RegexBuilder::new(&format!("^(?:{text})$"))
            .unicode(false)
            .case_insensitive(true)
            .size_limit(caps.regex_bytes)
            .dfa_size_limit(caps.regex_bytes)
            .nest_limit(64)
            .build();
        match built {
            Ok(regex) => Ok(Pattern::Regex(regex)),
            Err(regex::Error::CompiledTooBig(limit)) => Err(format!(
                "the regex is too big: compiled, it would exceed {limit} bytes"
            )),
            Err(e) => {
                let why = e.to_string();
                // The crate's message draws the pattern with a caret; its
                // last line says what is wrong.
                let last = why.lines().rev().find(|l| !l.trim().is_empty());
                let why = last.unwrap_or(&why).trim().trim_start_matches("error: ");
                let hint = if text.starts_with("*.") && !text[2..].contains(REGEX_CHARS) {
                    format!(" (a host suffix needs no `*.`: write {:?})", &text[2..])
                } else {
                    String::new()
                };
                Err(format!("not a valid regex: {why}{hint}"))
            }
        }
    }

    fn is_regex(&self) -> bool {
        matches!(self, Pattern::Regex(_))
    }

    /// Whether `host` (lower case) matches.
    fn matches(&self, host: &str) -> bool {
        match self {
            Pattern::Suffix(s) => is_suffix(host, s),
            Pattern::Regex(r) => r.is_match(host.as_bytes()),
        }
    }
}

/// `host` ends with the labels of `suffix` (or is it).
fn is_suffix(host: &str, suffix: &str) -> bool {
    host.strip_suffix(suffix)
        .is_some_and(|rest| rest.is_empty() || rest.ends_with('.'))
}

/// A suffix as hosts are compared: lower case, IDNA form, no leading or
/// trailing dot; refused when it is no host.
fn suffix(text: &str) -> Result<String, String> {
    let bare = text.trim_start_matches('.').trim_end_matches('.');
    let host = if bare.is_ascii() {
        bare.to_ascii_lowercase()
    } else {
        url::Url::parse(&format!("http://{bare}/"))
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_default()
    };
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if host.is_empty() || host.len() > 253 || !host.split('.').all(label_ok) {
        return Err(format!(
            "{text:?} is neither a host suffix (letters, digits, `-`, `.`) nor a regex \
             (a regex has one of {})",
            REGEX_CHARS.iter().collect::<String>()
        ));
    }
    Ok(host)
}

/// The host a replacement writes (`host` or `host:port`), checked; with a
/// regex pattern it may name the pattern's groups (`$1`, `${name}`), and is
/// checked once they are filled.
fn replacement(text: &str, regex: bool, caps: &Caps) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("an empty replacement (to drop those results, use `remove`)".into());
    }
    if text.len() > caps.pattern_bytes {
        return Err(format!(
            "a replacement of {} bytes; at most {} are read",
            text.len(),
            caps.pattern_bytes
        ));
    }
    if regex && text.contains('$') {
        return Ok(text.to_string());
    }
    netloc(text)
        .map(|_| text.to_string())
        .ok_or_else(|| format!("replacement {text:?} is not a host (`host` or `host:port`)"))
}

/// `text` as a host and port, when it is exactly that.
fn netloc(text: &str) -> Option<(String, Option<u16>)> {
    if text.contains(['/', '?', '#', '@', '\\']) || text.chars().any(char::is_whitespace) {
        return None;
    }
    let u = url::Url::parse(&format!("http://{text}/")).ok()?;
    let host = u.host_str()?.to_string();
    Some((host, u.port()))
}

/// One list of patterns, compiled: suffixes in a set (one lookup per label
/// of a host), regexes in order.
#[derive(Debug, Clone, Default)]
struct PatternList {
    suffixes: HashSet<String>,
    regexes: Vec<Regex>,
}

impl PatternList {
    fn push(&mut self, p: Pattern) {
        match p {
            Pattern::Suffix(s) => {
                self.suffixes.insert(s);
            }
            Pattern::Regex(r) => self.regexes.push(r),
        }
    }

    fn is_empty(&self) -> bool {
        self.suffixes.is_empty() && self.regexes.is_empty()
    }

    fn matches(&self, host: &str) -> bool {
        if !self.suffixes.is_empty() {
            let mut rest = host;
            loop {
                if self.suffixes.contains(rest) {
                    return true;
                }
                match rest.split_once('.') {
                    Some((_, tail)) => rest = tail,
                    None => break,
                }
            }
        }
        self.regexes.iter().any(|r| r.is_match(host.as_bytes()))
    }
}

/// One set of rules, compiled once: the configuration's, or a searcher's.
#[derive(Debug, Clone)]
pub struct Rules {
    remove: PatternList,
    replace: Vec<(Pattern, String)>,
    boost: PatternList,
    lower: PatternList,
    boost_factor: f64,
    lower_factor: f64,
    /// What the rules are, for cache keys: the lists as written and the
    /// factors.
    fingerprint: u64,
}

impl Default for Rules {
    fn default() -> Self {
        Rules::compile(
            &Lists::default(),
            &CONFIG_CAPS,
            DEFAULT_BOOST_FACTOR,
            DEFAULT_LOWER_FACTOR,
        )
        .0
    }
}

impl Rules {
    /// Compiles `lists` under `caps`: the rules of every pattern that is
    /// good, and what is wrong with the others (each list's patterns past
    /// `caps` are refused too). The configuration refuses a file with any
    /// error; a searcher's stored lists keep their good patterns.
    pub fn compile(
        lists: &Lists,
        caps: &Caps,
        boost_factor: f64,
        lower_factor: f64,
    ) -> (Rules, Vec<RuleError>) {
        let mut errors = Vec::new();
        let mut compiled: [PatternList; 3] = Default::default();
        for (slot, kind, list) in [
            (0, Kind::Remove, &lists.remove),
            (1, Kind::Boost, &lists.boost),
            (2, Kind::Lower, &lists.lower),
        ] {
            let mut regexes = 0;
            for (i, text) in list.iter().enumerate().take(caps.patterns) {
                match checked(kind, i, text, caps, &mut regexes) {
                    Ok(Some(p)) => compiled[slot].push(p),
                    Ok(None) => {}
                    Err(e) => errors.push(e),
                }
            }
        }
        let mut replace = Vec::new();
        let mut regexes = 0;
        for (i, (text, with)) in lists.replace.iter().enumerate().take(caps.patterns) {
            let found = checked(Kind::Replace, i, text, caps, &mut regexes).and_then(|p| {
                let Some(p) = p else { return Ok(None) };
                replacement(with, p.is_regex(), caps)
                    .map(|w| Some((p, w)))
                    .map_err(|message| RuleError {
                        kind: Kind::Replace,
                        index: Some(i),
                        pattern: text.clone(),
                        message,
                    })
            });
            match found {
                Ok(Some(rule)) => replace.push(rule),
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
        for kind in Kind::ALL {
            let patterns = lists.patterns(kind);
            let n = patterns.len();
            let list_error = |message: String| RuleError {
                kind,
                index: None,
                pattern: String::new(),
                message,
            };
            if n > caps.patterns {
                errors.push(list_error(format!(
                    "{n} patterns; at most {} are read",
                    caps.patterns
                )));
            }
            let regexes = patterns.iter().filter(|p| p.contains(REGEX_CHARS)).count();
            if regexes > caps.regexes {
                errors.push(list_error(format!(
                    "{regexes} regexes; at most {} are read (host suffixes have no such cap)",
                    caps.regexes
                )));
            }
        }
        let [remove, boost, lower] = compiled;
        let fingerprint = xxhash_rust::xxh3::xxh3_64(
            format!("{lists:?}|{boost_factor:?}|{lower_factor:?}").as_bytes(),
        );
        let rules = Rules {
            remove,
            replace,
            boost,
            lower,
            boost_factor,
            lower_factor,
            fingerprint,
        };
        (rules, errors)
    }

    /// No rule at all.
    pub fn is_empty(&self) -> bool {
        self.remove.is_empty()
            && self.replace.is_empty()
            && self.boost.is_empty()
            && self.lower.is_empty()
    }

    /// What the rules are, as a number: equal rules, equal numbers.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

/// Pattern `i` of list `kind`, compiled, or why not; `None` for a regex
/// past the cap (`regexes` counts the list's regexes so far; the list as a
/// whole is refused for it).
fn checked(
    kind: Kind,
    i: usize,
    text: &str,
    caps: &Caps,
    regexes: &mut usize,
) -> Result<Option<Pattern>, RuleError> {
    let error = |message: String| RuleError {
        kind,
        index: Some(i),
        pattern: text.to_string(),
        message,
    };
    if text.contains(REGEX_CHARS) {
        *regexes += 1;
        if *regexes > caps.regexes {
            return Ok(None);
        }
    }
    Pattern::parse(text, caps).map(Some).map_err(error)
}

/// The host of `link`, lower case and in IDNA form, without a trailing
/// dot; `None` when the link has none.
pub fn host_of(link: &str) -> Option<String> {
    let u = url::Url::parse(link).ok()?;
    let host = u.host_str()?;
    Some(host.trim_end_matches('.').to_ascii_lowercase())
}

/// The rules one search follows: the searcher's own (from the
/// preferences), laid over the configuration's. Cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct HostRules {
    base: Arc<Rules>,
    own: Option<Arc<Rules>>,
}

impl HostRules {
    /// The configuration's `base` with a searcher's `own` over it.
    pub fn new(base: Arc<Rules>, own: Option<Arc<Rules>>) -> HostRules {
        HostRules {
            base,
            own: own.filter(|o| !o.is_empty()),
        }
    }

    fn layers(&self) -> impl Iterator<Item = &Rules> {
        self.own.as_deref().into_iter().chain([&*self.base])
    }

    /// No rule at all: nothing to do.
    pub fn is_empty(&self) -> bool {
        self.layers().all(Rules::is_empty)
    }

    /// What the rules are (`None`: no rule), for cache keys: a page made
    /// under one searcher's rules is never another's.
    pub fn fingerprint(&self) -> Option<u64> {
        if self.is_empty() {
            return None;
        }
        Some(match &self.own {
            None => self.base.fingerprint,
            Some(own) => {
                let both = [
                    self.base.fingerprint.to_le_bytes(),
                    own.fingerprint.to_le_bytes(),
                ];
                xxhash_rust::xxh3::xxh3_64(both.as_flattened())
            }
        })
    }

    /// Whether `remove` drops results of `host` (either layer's list).
    pub fn removes(&self, host: &str) -> bool {
        self.layers().any(|r| r.remove.matches(host))
    }

    /// The factor of a result on `host`: the searcher's `boost` / `lower`
    /// first (their own word wins over the configuration's), then the
    /// configuration's; `boost` wins over `lower` in one layer; 1 when
    /// none matches. The factors are the configuration's.
    pub fn factor(&self, host: &str) -> f64 {
        for rules in self.layers() {
            if rules.boost.matches(host) {
                return self.base.boost_factor;
            }
            if rules.lower.matches(host) {
                return self.base.lower_factor;
            }
        }
        1.0
    }

    /// Whether any layer has a `boost` or `lower`: without, every factor is 1.
    pub fn weighs(&self) -> bool {
        self.layers()
            .any(|r| !r.boost.is_empty() || !r.lower.is_empty())
    }

    /// Whether any layer has a `replace`.
    pub fn replaces(&self) -> bool {
        self.layers().any(|r| !r.replace.is_empty())
    }

    /// `link` with its host replaced by the first `replace` rule matching
    /// it (the searcher's before the configuration's); `None` when none
    /// matches, or the host written is not one (a regex's groups may make
    /// anything).
    pub fn replaced(&self, link: &str) -> Option<String> {
        let mut u = url::Url::parse(link).ok()?;
        let host = u.host_str()?.trim_end_matches('.').to_ascii_lowercase();
        let with = self.layers().find_map(|rules| {
            rules.replace.iter().find_map(|(p, with)| {
                if !p.matches(&host) {
                    return None;
                }
                match p {
                    Pattern::Regex(r) => {
                        let written = r.replace(host.as_bytes(), with.as_bytes());
                        String::from_utf8(written.into_owned()).ok()
                    }
                    Pattern::Suffix(_) => Some(with.clone()),
                }
            })
        })?;
        let (new_host, port) = netloc(&with)?;
        u.set_host(Some(&new_host)).ok()?;
        u.set_port(port).ok()?;
        Some(u.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(lists: Lists) -> HostRules {
        let (r, errors) = Rules::compile(&lists, &CONFIG_CAPS, 2.0, 0.5);
        assert_eq!(errors, [], "{lists:?}");
        HostRules::new(Arc::new(r), None)
    }

    fn error_of(text: &str, caps: &Caps) -> String {
        match Pattern::parse(text, caps) {
            Ok(p) => panic!("{text:?} was accepted as {p:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_suffix_matches_the_host_and_its_subdomains_only() {
        let r = rules(Lists {
            remove: vec!["pinterest.com".into(), ".Example.ORG.".into()],
            ..Lists::default()
        });
        for host in [
            "pinterest.com",
            "www.pinterest.com",
            "a.b.pinterest.com",
            "example.org",
        ] {
            assert!(r.removes(host), "{host}");
        }
        for host in [
            "notpinterest.com",
            "pinterest.com.evil",
            "pinterest.co",
            "org",
            "com",
        ] {
            assert!(!r.removes(host), "{host}");
        }
    }

    #[test]
    fn a_regex_is_anchored_to_the_whole_host() {
        let r = rules(Lists {
            lower: vec![r"(.*\.)?google(\..*)?".into(), "facebook.com$".into()],
            ..Lists::default()
        });
        assert_eq!(r.factor("www.google.co.uk"), 0.5);
        assert_eq!(r.factor("GOOGLE.com"), 0.5, "case insensitive");
        assert_eq!(r.factor("facebook.com"), 0.5);
        // Anchored at both ends: no match inside a longer host.
        assert_eq!(r.factor("notfacebook.com"), 1.0);
        assert_eq!(r.factor("notgoogle.com"), 1.0);
    }

    #[test]
    fn boost_wins_over_lower_and_the_searchers_rules_over_the_configurations() {
        let (base, _) = Rules::compile(
            &Lists {
                boost: vec!["docs.rs".into()],
                lower: vec!["rs".into()],
                ..Lists::default()
            },
            &CONFIG_CAPS,
            3.0,
            0.25,
        );
        let base = Arc::new(base);
        let config_only = HostRules::new(base.clone(), None);
        assert_eq!(config_only.factor("docs.rs"), 3.0);
        assert_eq!(config_only.factor("crates.rs"), 0.25);
        assert_eq!(config_only.factor("example.com"), 1.0);
        let (own, _) = Rules::compile(
            &Lists {
                lower: vec!["docs.rs".into()],
                ..Lists::default()
            },
            &PREFS_CAPS,
            DEFAULT_BOOST_FACTOR,
            DEFAULT_LOWER_FACTOR,
        );
        let layered = HostRules::new(base, Some(Arc::new(own)));
        assert_eq!(layered.factor("docs.rs"), 0.25, "the searcher's word wins");
        assert_ne!(layered.fingerprint(), config_only.fingerprint());
    }

    #[test]
    fn replace_writes_the_host_and_keeps_the_rest_of_the_link() {
        let r = rules(Lists {
            replace: vec![
                (r"(.*\.)?youtube\.com".into(), "invidious.example".into()),
                ("reddit.com".into(), "127.0.0.1:8080".into()),
                (
                    r"(?P<sub>[a-z]+)\.wikipedia\.org".into(),
                    "${sub}.wikiless.example".into(),
                ),
            ],
            ..Lists::default()
        });
        assert_eq!(
            r.replaced("https://www.youtube.com/watch?v=abc&t=1#x")
                .as_deref(),
            Some("https://invidious.example/watch?v=abc&t=1#x")
        );
        assert_eq!(
            r.replaced("http://old.reddit.com:80/r/rust").as_deref(),
            Some("http://127.0.0.1:8080/r/rust")
        );
        assert_eq!(
            r.replaced("https://en.wikipedia.org/wiki/Rust").as_deref(),
            Some("https://en.wikiless.example/wiki/Rust")
        );
        assert_eq!(r.replaced("https://notyoutube.com/"), None);
        assert_eq!(r.replaced("not a link"), None);
    }

    #[test]
    fn bad_patterns_are_refused_with_what_is_wrong() {
        let caps = CONFIG_CAPS;
        assert!(error_of("(a", &caps).contains("not a valid regex"));
        assert!(error_of(r"\w{1000}{1000}", &caps).contains("too big"));
        assert!(error_of(&format!("x{}", ".y".repeat(600)), &caps).contains("bytes"));
        let star = error_of("*.pinterest.com", &caps);
        assert!(star.contains(r#"write "pinterest.com""#), "{star}");
        assert!(error_of("exa mple.com", &caps).contains("neither a host suffix"));
        assert!(error_of("a..b", &caps).contains("neither"));
        assert!(error_of("", &caps).contains("empty"));
        // `(a+)+$` is harmless here: the regex crate has no backtracking.
        assert!(Pattern::parse("(a+)+", &caps).is_ok());
        let host = format!("{}b", "a".repeat(60));
        let p = Pattern::parse("(a+)+", &caps).unwrap();
        assert!(!p.matches(&host));
    }

    #[test]
    fn lists_are_capped_and_every_bad_entry_is_named() {
        let lists = Lists {
            remove: (0..70).map(|i| format!("h{i}.example")).collect(),
            boost: (0..20).map(|i| format!("(h{i})\\.example")).collect(),
            replace: vec![("a.example".into(), "b.example/path".into())],
            ..Lists::default()
        };
        let (r, errors) = Rules::compile(&lists, &PREFS_CAPS, 2.0, 0.5);
        assert_eq!(PREFS_CAPS.regexes, 8, "the figures below follow it");
        let messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.starts_with("remove: 70 patterns")),
            "{messages:?}"
        );
        assert_eq!(errors.iter().filter(|e| e.kind == Kind::Remove).count(), 1);
        assert_eq!(errors.iter().filter(|e| e.kind == Kind::Boost).count(), 1);
        assert!(
            messages.iter().any(|m| m.starts_with("boost: 20 regexes")),
            "{messages:?}"
        );
        let replace = errors.iter().find(|e| e.kind == Kind::Replace).unwrap();
        assert_eq!(replace.index, Some(0));
        assert!(replace.message.contains("not a host"), "{replace}");
        // The good ones are kept.
        let r = HostRules::new(Arc::new(r), None);
        assert!(r.removes("h0.example") && !r.removes("h69.example"));
        assert_eq!(r.factor("h7.example"), 2.0);
        assert_eq!(r.factor("h8.example"), 1.0);
    }

    #[test]
    fn hosts_are_read_in_lower_case_without_a_trailing_dot() {
        assert_eq!(
            host_of("https://WWW.Example.COM./a").as_deref(),
            Some("www.example.com")
        );
        assert_eq!(
            host_of("https://bücher.example/").as_deref(),
            Some("xn--bcher-kva.example")
        );
        assert_eq!(host_of("mailto:a@b"), None);
        let r = rules(Lists {
            remove: vec!["bücher.example".into()],
            ..Lists::default()
        });
        assert!(r.removes(&host_of("https://www.bücher.example/x").unwrap()));
    }
}

/// What compiling the largest lists a searcher may keep costs, printed
/// (docs/hostnames.md has the figure and the command): 8 regexes in each
/// of the four lists, each the largest of its shape under
/// [`PREFS_CAPS`]' compiled size. Not a check of speed.
#[cfg(test)]
mod cost {
    use super::*;

    /// The largest `{n}` under the cap for `shape` (`{n}` in it).
    fn largest(shape: &str) -> String {
        let (mut lo, mut hi) = (1usize, 2000usize);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if Pattern::parse(&shape.replace("{n}", &mid.to_string()), &PREFS_CAPS).is_ok() {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        shape.replace("{n}", &lo.to_string())
    }

    #[test]
    #[ignore = "prints a cost; run with --ignored --nocapture"]
    fn compile_cost_of_the_largest_preferences() {
        for shape in [
            r"\w{{n}}",
            r"[a-z0-9-]{{n}}",
            r"(.*\.)?(a|b|c|d|e){{n}}\.example",
            r"\S{1,{n}}",
        ] {
            let pattern = largest(shape);
            let lists = Lists {
                remove: vec![pattern.clone(); PREFS_CAPS.regexes],
                replace: vec![(pattern.clone(), "x.example".into()); PREFS_CAPS.regexes],
                boost: vec![pattern.clone(); PREFS_CAPS.regexes],
                lower: vec![pattern.clone(); PREFS_CAPS.regexes],
            };
            let runs = 5;
            let started = std::time::Instant::now();
            for _ in 0..runs {
                let (_, errors) = Rules::compile(&lists, &PREFS_CAPS, 2.0, 0.5);
                assert!(errors.is_empty(), "{errors:?}");
            }
            let each = started.elapsed() / runs;
            let host = format!("{}.example", "a".repeat(240));
            let rules = HostRules::new(
                Arc::new(Rules::compile(&lists, &PREFS_CAPS, 2.0, 0.5).0),
                None,
            );
            let started = std::time::Instant::now();
            for _ in 0..100 {
                std::hint::black_box(rules.removes(&host));
                std::hint::black_box(rules.factor(&host));
            }
            let matching = started.elapsed() / 100;
            println!(
                "{pattern:?}: {} regexes compiled in {each:?}; a 250-byte host matched \
                 against the {} of remove, boost and lower in {matching:?}",
                4 * PREFS_CAPS.regexes,
                3 * PREFS_CAPS.regexes
            );
        }
    }
}
