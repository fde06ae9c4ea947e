//! The query a person typed, made into the query the engines are asked —
//! one parser for all of its syntax:
//!
//! - `!shortcut`, `!engine` and `!category` words pick engines, a `:lang`
//!   word the language; words that name nothing known stay search text (so
//!   `!important` and `:)` are searched for as typed);
//! - `!!name` is an external bang (`[bangs]`): the search becomes a
//!   redirect to that site's own search ([`Query::external_bang`]);
//! - search operators ([`Operators`]): `site:host`, `-site:host`, `-word`,
//!   `"a phrase"` (also `“…”`, `「…」`, `『…』`, `＂…＂`, and without spaces
//!   around it in Chinese: `什么是“借用检查”`), `-"a phrase"`,
//!   `intitle:word`, `intitle:"a phrase"`, `filetype:pdf` / `ext:pdf`.
//!
//! The query text kept ([`Query::text`]) is the canonical form of what is
//! left: operators written one way (`ext:` as `filetype:`, hosts in lower
//! case, every phrase in ASCII quotes), stray quote marks dropped; reading
//! it again gives the same query ([`engine_text`] does, to take out of an
//! engine's query the operators it does not understand).
//!
//! A query is hostile until read: at most [`MAX_OPERATORS`] operators are
//! read (later ones stay text), an operator's value is at most
//! [`MAX_OPERATOR_CHARS`] characters (a longer one stays text), and the
//! reading is one pass over the text (a quote without its closing mark
//! is looked for once per kind of quote). [`Searcher::select`] then turns
//! the picked names into the engines actually asked, once per search (see
//! `request`).

use crate::config::{OperatorKind, bang_target};
use crate::model::{Operators, Query};

use super::Searcher;

/// The most operators read from one query; later ones stay search text.
pub const MAX_OPERATORS: usize = 16;

/// The longest operator value read (a host, a word, a phrase), in
/// characters; a longer one stays search text.
pub const MAX_OPERATOR_CHARS: usize = 128;

impl Searcher {
    /// Reads a raw query: splits off `!shortcut`, `!engine-name` and
    /// `!category` words, a `:lang` word and an external `!!bang`, reads
    /// the search operators, and returns the query to run. Words that name
    /// nothing known stay in the text (`!important` is a search term).
    pub fn parse_query(&self, raw: &str, page: u32) -> Query {
        let config = self.config();
        let mut engines: Vec<String> = Vec::new();
        let mut categories: Vec<String> = Vec::new();
        let mut lang = None;
        let mut bang: Option<&str> = None;
        let read = read(raw, |word| {
            if let Some(name) = word.strip_prefix("!!").filter(|b| !b.is_empty()) {
                return match config.bangs.get(name) {
                    Some(template) => {
                        bang.get_or_insert(template);
                        true
                    }
                    None => false,
                };
            }
            if let Some(bang) = word.strip_prefix('!').filter(|b| !b.is_empty()) {
                if let Some(e) = config
                    .engines
                    .iter()
                    .find(|e| e.name == bang || e.shortcut.to_vec().iter().any(|s| s == bang))
                {
                    if !engines.contains(&e.name) {
                        engines.push(e.name.clone());
                    }
                    return true;
                }
                // `!social_media` names the category "social media".
                let spaced = bang.replace('_', " ");
                if let Some(c) = config
                    .engines
                    .iter()
                    .flat_map(|e| &e.categories)
                    .find(|c| **c == bang || **c == spaced)
                {
                    if !categories.contains(c) {
                        categories.push(c.clone());
                    }
                    return true;
                }
            }
            if let Some(code) = word.strip_prefix(':').filter(|c| is_lang_code(c)) {
                lang = Some(code.to_string());
                return true;
            }
            false
        });
        let text = read.text();
        Query {
            external_bang: bang.map(|template| bang_target(template, &text)),
            text,
            page: page.max(1),
            lang,
            engines,
            categories,
            operators: read.operators,
            ..Query::default()
        }
    }

    /// The engines a query asks (see [`asked_by`]), less those that would
    /// be sent nothing to search for: a query of operators alone
    /// (`site:example.org`) asks only the engines that understand them.
    pub(super) fn select(&self, query: &Query) -> Vec<usize> {
        let mut selected = self.asked(query);
        if !query.operators.is_empty() {
            let engines = &self.config().engines;
            selected.retain(|&i| !engine_text(query, &engines[i].operators).is_empty());
        }
        selected
    }

    /// The engines a query names or its categories hold ([`asked_by`]).
    pub(super) fn asked(&self, query: &Query) -> Vec<usize> {
        asked_by(self.config(), query)
    }
}

/// The engines of `config` a query asks, in configuration order: the named
/// ones (even if disabled: naming one is asking for it) plus the enabled
/// engines of the named categories; with neither, the enabled engines of
/// `general` (what the home page counts).
pub fn asked_by(config: &crate::config::Config, query: &Query) -> Vec<usize> {
    let default_category = ["general".to_string()];
    let categories: &[String] = if query.categories.is_empty() && query.engines.is_empty() {
        &default_category
    } else {
        &query.categories
    };
    config
        .engines
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            query.engines.contains(&e.name)
                || (e.enabled && e.categories.iter().any(|c| categories.contains(c)))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The text an engine that understands the operators `understood` is sent
/// for `query`: the query's text with every other operator taken out (a
/// phrase or an `intitle:` leaves its words, unquoted). Empty when the query
/// is made of such operators alone (`site:example.org`): that engine has
/// nothing to search for.
pub fn engine_text(query: &Query, understood: &[OperatorKind]) -> String {
    if query.operators.is_empty() {
        return query.text.clone();
    }
    let read = read(&query.text, |_| false);
    let mut out = String::with_capacity(query.text.len());
    for piece in &read.pieces {
        let part = match piece {
            Piece::Text(t) => t.as_str(),
            Piece::Op { kind, shown, .. } if understood.contains(kind) => shown.as_str(),
            Piece::Op { bare, .. } => bare.as_str(),
        };
        if !part.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(part);
        }
    }
    out
}

/// `en`, `de-CH`, `zh-Hans-CN`: a BCP-47-looking code, so `:)` stays text.
fn is_lang_code(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// What reading a query gave: its pieces in order and the operators.
#[derive(Debug, Default)]
struct Read {
    pieces: Vec<Piece>,
    operators: Operators,
}

impl Read {
    /// The canonical query text: the pieces' written forms, one space apart.
    fn text(&self) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            let part = match piece {
                Piece::Text(t) => t,
                Piece::Op { shown, .. } => shown,
            };
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(part);
        }
        out
    }

    /// Adds an operator unless the cap is reached or its value is too long
    /// (then `otherwise` is the text kept); a repeat adds nothing.
    fn operator(&mut self, op: Op, otherwise: &str) {
        let value = op.value();
        if value.chars().count() > MAX_OPERATOR_CHARS || self.operators.len() >= MAX_OPERATORS {
            self.plain(otherwise);
            return;
        }
        let value = value.to_string();
        let list = match op {
            Op::Site(_) => &mut self.operators.sites,
            Op::NotSite(_) => &mut self.operators.not_sites,
            Op::Exclude(_) | Op::ExcludePhrase(_) => &mut self.operators.excluded,
            Op::Phrase(_) => &mut self.operators.phrases,
            Op::Intitle(_) | Op::IntitlePhrase(_) => &mut self.operators.intitle,
            Op::Filetype(_) => &mut self.operators.filetypes,
        };
        if list.contains(&value) {
            return;
        }
        list.push(value);
        self.pieces.push(op.piece());
    }

    /// Adds search text, without stray quote marks (which would otherwise
    /// open a phrase when the text is read again).
    fn plain(&mut self, text: &str) {
        for word in text.split_whitespace() {
            let word: String = word.chars().filter(|&c| !is_quote_mark(c)).collect();
            if !word.is_empty() {
                self.pieces.push(Piece::Text(word));
            }
        }
    }
}

/// One piece of a read query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Search text.
    Text(String),
    /// An operator: its kind, its form in the query text, and the words it
    /// leaves in the query of an engine that does not understand it.
    Op {
        kind: OperatorKind,
        shown: String,
        bare: String,
    },
}

/// One operator read, with its value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    Site(String),
    NotSite(String),
    Exclude(String),
    ExcludePhrase(String),
    Phrase(String),
    Intitle(String),
    IntitlePhrase(String),
    Filetype(String),
}

impl Op {
    fn value(&self) -> &str {
        match self {
            Op::Site(v)
            | Op::NotSite(v)
            | Op::Exclude(v)
            | Op::ExcludePhrase(v)
            | Op::Phrase(v)
            | Op::Intitle(v)
            | Op::IntitlePhrase(v)
            | Op::Filetype(v) => v,
        }
    }

    fn piece(&self) -> Piece {
        let (kind, shown, bare) = match self {
            Op::Site(h) => (OperatorKind::Site, format!("site:{h}"), String::new()),
            Op::NotSite(h) => (OperatorKind::Site, format!("-site:{h}"), String::new()),
            Op::Exclude(w) => (OperatorKind::Exclude, format!("-{w}"), String::new()),
            Op::ExcludePhrase(p) => (OperatorKind::Exclude, format!("-\"{p}\""), String::new()),
            Op::Phrase(p) => (OperatorKind::Phrase, format!("\"{p}\""), p.clone()),
            Op::Intitle(w) => (OperatorKind::Intitle, format!("intitle:{w}"), w.clone()),
            Op::IntitlePhrase(p) => (OperatorKind::Intitle, format!("intitle:\"{p}\""), p.clone()),
            Op::Filetype(e) => (
                OperatorKind::Filetype,
                format!("filetype:{e}"),
                String::new(),
            ),
        };
        Piece::Op { kind, shown, bare }
    }
}

/// A quote mark that may open a phrase, and the mark that closes it.
fn closing_mark(open: char) -> Option<char> {
    match open {
        '"' => Some('"'),
        '\u{201c}' => Some('\u{201d}'), // “ ”
        '\u{300c}' => Some('\u{300d}'), // 「 」
        '\u{300e}' => Some('\u{300f}'), // 『 』
        '\u{ff02}' => Some('\u{ff02}'), // ＂ ＂
        _ => None,
    }
}

/// Any quote mark the reader knows, opening or closing.
fn is_quote_mark(c: char) -> bool {
    closing_mark(c).is_some() || matches!(c, '\u{201d}' | '\u{300d}' | '\u{300f}')
}

/// Han ideographs, kana and Hangul: scripts whose words are not set off by
/// spaces (or, for Hangul, carry particles glued to them), so a phrase in
/// them matches as a substring and a quote after one opens a phrase.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}'     // hiragana, katakana
        | '\u{3400}'..='\u{4dbf}'   // CJK extension A
        | '\u{4e00}'..='\u{9fff}'   // CJK unified ideographs
        | '\u{ac00}'..='\u{d7af}'   // Hangul syllables
        | '\u{f900}'..='\u{faff}'   // compatibility ideographs
        | '\u{20000}'..='\u{2fa1f}') // extensions B–F, supplement
}

/// Whether a quote mark at this point of a word opens a phrase: the word's
/// start (after nothing, `-` or `intitle:`), or after a character that is
/// not a letter or digit of a spaced script (`什么是"借用检查"`, `("x")`),
/// so `don"t` and `5"` stay text. Full-width marks always open.
fn opens_here(mark: char, before: &str) -> bool {
    if mark != '"' || before.is_empty() || is_quoted_prefix(before) {
        return true;
    }
    before
        .chars()
        .next_back()
        .is_none_or(|c| !c.is_alphanumeric() || is_cjk(c))
}

/// `-` or `intitle:` (any case): what a quoted phrase may follow.
fn is_quoted_prefix(before: &str) -> bool {
    before == "-" || before.eq_ignore_ascii_case("intitle:")
}

/// Reads `raw` into pieces and operators; `special` is asked about every
/// word outside quotes first and takes it away when it says `true` (the
/// bangs and `:lang`, which need the configuration).
fn read(raw: &str, mut special: impl FnMut(&str) -> bool) -> Read {
    let mut out = Read::default();
    // Quote kinds already known to have no closing mark further on: each
    // kind is looked for to the end of the text at most once.
    let mut unclosed: Vec<char> = Vec::new();
    let mut word_start: Option<usize> = None;
    let mut chars = raw.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_whitespace() {
            if let Some(start) = word_start.take() {
                word(&mut out, &raw[start..at], &mut special);
            }
            continue;
        }
        let start = *word_start.get_or_insert(at);
        let Some(close) = closing_mark(c) else {
            continue;
        };
        let before = &raw[start..at];
        if !opens_here(c, before) || unclosed.contains(&c) {
            continue;
        }
        let inner_start = at + c.len_utf8();
        let Some(len) = raw[inner_start..].find(close) else {
            unclosed.push(c);
            continue;
        };
        let inner = &raw[inner_start..inner_start + len];
        let prefix = if is_quoted_prefix(before) {
            before
        } else {
            if !before.is_empty() {
                word(&mut out, before, &mut special);
            }
            ""
        };
        quoted(&mut out, prefix, inner);
        // Skip to just past the closing mark; what follows starts a word.
        let end = inner_start + len + close.len_utf8();
        while chars.peek().is_some_and(|&(i, _)| i < end) {
            chars.next();
        }
        word_start = None;
    }
    if let Some(start) = word_start {
        word(&mut out, &raw[start..], &mut special);
    }
    out
}

/// A quoted run after `prefix` (`""`, `-` or `intitle:`): a phrase, an
/// excluded phrase or a phrase of the title. Its whitespace is collapsed and
/// ASCII quotes inside (from a full-width pair) dropped; an empty one is
/// nothing.
fn quoted(out: &mut Read, prefix: &str, inner: &str) {
    let mut phrase = String::with_capacity(inner.len());
    for part in inner.split(|c: char| c.is_whitespace() || c == '"') {
        if !part.is_empty() {
            if !phrase.is_empty() {
                phrase.push(' ');
            }
            phrase.push_str(part);
        }
    }
    if phrase.is_empty() {
        return;
    }
    // Too long to be one operator: read as if typed without the quotes.
    if phrase.chars().count() > MAX_OPERATOR_CHARS {
        for part in phrase.split(' ') {
            word(out, part, &mut |_: &str| false);
        }
        return;
    }
    let op = match prefix {
        "" => Op::Phrase(phrase.clone()),
        "-" => Op::ExcludePhrase(phrase.clone()),
        _ => Op::IntitlePhrase(phrase.clone()),
    };
    // Over the caps, the words are searched for as plain text.
    out.operator(op, &phrase);
}

/// One word outside quotes: taken by `special`, an operator, or text.
/// Stray quote marks are dropped before it is read as an operator, as the
/// text keeps it without them.
fn word(out: &mut Read, word: &str, special: &mut impl FnMut(&str) -> bool) {
    if special(word) {
        return;
    }
    let cleaned: std::borrow::Cow<'_, str> = if word.chars().any(is_quote_mark) {
        word.chars()
            .filter(|&c| !is_quote_mark(c))
            .collect::<String>()
            .into()
    } else {
        word.into()
    };
    match operator_word(&cleaned) {
        Some(op) => out.operator(op, &cleaned),
        None => out.plain(&cleaned),
    }
}

/// The operator a word outside quotes is, if any.
fn operator_word(word: &str) -> Option<Op> {
    let after = |prefix: &str| value_after(word, prefix);
    if let Some(v) = after("-site:") {
        return site_host(v).map(Op::NotSite);
    }
    if let Some(v) = after("site:") {
        return site_host(v).map(Op::Site);
    }
    if let Some(v) = after("intitle:") {
        return v
            .chars()
            .any(char::is_alphanumeric)
            .then(|| Op::Intitle(v.to_string()));
    }
    if let Some(v) = after("filetype:").or_else(|| after("ext:")) {
        let ext = v.strip_prefix('.').unwrap_or(v).to_ascii_lowercase();
        let fits = (1..=16).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphanumeric());
        return fits.then_some(Op::Filetype(ext));
    }
    let rest = word.strip_prefix('-')?;
    // `-5` is a number, `--x` and `-a:b` are not exclusions.
    let first = rest.chars().next()?;
    let excludes = first.is_alphanumeric() && !first.is_ascii_digit() && !rest.contains(':');
    excludes.then(|| Op::Exclude(rest.to_string()))
}

/// What follows `prefix` (any ASCII case) at the start of `word`, when
/// something does.
fn value_after<'a>(word: &'a str, prefix: &str) -> Option<&'a str> {
    let head = word.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &word[prefix.len()..])
        .filter(|v| !v.is_empty())
}

/// The host of `site:VALUE`: a scheme and a path are allowed and dropped,
/// the host is lower-cased and in punycode (`例子.测试` as `xn--…`); `None`
/// when it is no host.
fn site_host(value: &str) -> Option<String> {
    let v = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"))
        .unwrap_or(value);
    let v = v.split('/').next().unwrap_or("").trim_end_matches('.');
    if v.is_empty() || v.len() > 253 || v.contains(':') {
        return None;
    }
    match url::Host::parse(v).ok()? {
        url::Host::Domain(d) if d.split('.').all(|label| !label.is_empty()) => {
            Some(d.to_ascii_lowercase())
        }
        url::Host::Domain(_) => None,
        ip => Some(ip.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lang_codes() {
        assert!(is_lang_code("en"));
        assert!(is_lang_code("zh-CN"));
        assert!(!is_lang_code(")"));
        assert!(!is_lang_code("e"));
        assert!(!is_lang_code("english"));
    }

    fn ops(f: impl FnOnce(&mut Operators)) -> Operators {
        let mut o = Operators::default();
        f(&mut o);
        o
    }

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    /// Typed, the canonical text, and the operators read.
    #[test]
    fn operator_table() {
        let cases: Vec<(&str, &str, Operators)> = vec![
            (
                "site:example.org rust",
                "site:example.org rust",
                ops(|o| o.sites = v(&["example.org"])),
            ),
            (
                "rust -java",
                "rust -java",
                ops(|o| o.excluded = v(&["java"])),
            ),
            (
                "\"borrow checker\" rust",
                "\"borrow checker\" rust",
                ops(|o| o.phrases = v(&["borrow checker"])),
            ),
            (
                "\"借用检查\"",
                "\"借用检查\"",
                ops(|o| o.phrases = v(&["借用检查"])),
            ),
            (
                "什么是“借用检查”",
                "什么是 \"借用检查\"",
                ops(|o| o.phrases = v(&["借用检查"])),
            ),
            (
                "什么是\"借用检查\"规则",
                "什么是 \"借用检查\" 规则",
                ops(|o| o.phrases = v(&["借用检查"])),
            ),
            (
                "「所有权」　规则 『书名』 ＂全角＂",
                "\"所有权\" 规则 \"书名\" \"全角\"",
                ops(|o| o.phrases = v(&["所有权", "书名", "全角"])),
            ),
            (
                "Intitle:Rust FILETYPE:PDF",
                "intitle:Rust filetype:pdf",
                ops(|o| {
                    o.intitle = v(&["Rust"]);
                    o.filetypes = v(&["pdf"]);
                }),
            ),
            (
                "ext:.pdf",
                "filetype:pdf",
                ops(|o| o.filetypes = v(&["pdf"])),
            ),
            (
                "-site:Pinterest.COM cats",
                "-site:pinterest.com cats",
                ops(|o| o.not_sites = v(&["pinterest.com"])),
            ),
            (
                "site:https://Docs.RS/serde/latest",
                "site:docs.rs",
                ops(|o| o.sites = v(&["docs.rs"])),
            ),
            (
                "site:例子.测试",
                "site:xn--fsqu00a.xn--0zwm56d",
                ops(|o| o.sites = v(&["xn--fsqu00a.xn--0zwm56d"])),
            ),
            (
                "-\"java script\"  rust",
                "-\"java script\" rust",
                ops(|o| o.excluded = v(&["java script"])),
            ),
            (
                "intitle:\"rust  book\"",
                "intitle:\"rust book\"",
                ops(|o| o.intitle = v(&["rust book"])),
            ),
            ("(“x y”)", "( \"x y\" )", ops(|o| o.phrases = v(&["x y"]))),
            (
                "site:a.com site:A.com b",
                "site:a.com b",
                ops(|o| o.sites = v(&["a.com"])),
            ),
            // Not operators: stay text (stray quote marks dropped).
            ("temperature -5", "temperature -5", Operators::default()),
            ("rust - --x -a:b", "rust - --x -a:b", Operators::default()),
            (
                "site: intitle: ext:",
                "site: intitle: ext:",
                Operators::default(),
            ),
            (
                "site:a..b filetype:p/df",
                "site:a..b filetype:p/df",
                Operators::default(),
            ),
            ("don\"t panic 5\"", "dont panic 5", Operators::default()),
            ("\"unclosed phrase", "unclosed phrase", Operators::default()),
            ("“ ” \"\" rust", "rust", Operators::default()),
            (
                "-\"unclosed",
                "-unclosed",
                ops(|o| o.excluded = v(&["unclosed"])),
            ),
        ];
        for (typed, text, want) in cases {
            let read = read(typed, |_| false);
            assert_eq!(read.text(), text, "{typed:?}");
            assert_eq!(read.operators, want, "{typed:?}");
        }
    }

    #[test]
    fn hostile_queries_are_capped() {
        let many: String = (0..100).map(|i| format!("-w{i} ")).collect();
        let read = read(&many, |_| false);
        assert_eq!(read.operators.excluded.len(), MAX_OPERATORS);
        assert!(read.text().ends_with("-w99"), "later ones stay text");
        let long = format!(
            "\"{}\" -{} site:{}.com",
            "a ".repeat(200),
            "b".repeat(300),
            "c".repeat(300)
        );
        let read = super::read(&long, |_| false);
        assert!(read.operators.is_empty(), "{:?}", read.operators);
        let quotes = "“".repeat(5000) + &"\"".repeat(3) + &"「".repeat(5000);
        let read = super::read(&quotes, |_| false);
        assert!(read.operators.len() <= 1);
    }

    #[test]
    fn engines_get_only_what_they_understand() {
        let text =
            "site:example.org \"borrow checker\" -java intitle:rust filetype:pdf -site:b.org rust";
        let r = read(text, |_| false);
        let query = Query {
            text: r.text(),
            operators: r.operators,
            ..Query::default()
        };
        assert_eq!(engine_text(&query, &[]), "borrow checker rust rust");
        assert_eq!(
            engine_text(&query, &[OperatorKind::Site, OperatorKind::Phrase]),
            "site:example.org \"borrow checker\" rust -site:b.org rust"
        );
        assert_eq!(engine_text(&query, &OperatorKind::ALL), query.text);
        let only = Query {
            text: "site:example.org".into(),
            operators: ops(|o| o.sites = v(&["example.org"])),
            ..Query::default()
        };
        assert_eq!(engine_text(&only, &[]), "");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any text: no panic, the caps hold, and the canonical text reads
        /// back as itself with the same operators.
        #[test]
        fn any_query_reads_within_bounds_and_back(
            raw in "([ a-z:.\"“”「」『』＂\\-!中文]|site:|intitle:|ext:|-site:|filetype:){0,80}"
        ) {
            let first = read(&raw, |_| false);
            prop_assert!(first.operators.len() <= MAX_OPERATORS);
            for value in first.operators.phrases.iter().chain(&first.operators.excluded) {
                prop_assert!(value.chars().count() <= MAX_OPERATOR_CHARS);
            }
            let text = first.text();
            prop_assert!(text.len() <= raw.len() + 8 * MAX_OPERATORS);
            let again = read(&text, |_| false);
            prop_assert_eq!(&again.text(), &text);
            prop_assert_eq!(&again.operators, &first.operators);
        }

        #[test]
        fn any_unicode_never_panics(raw in "\\PC{0,200}") {
            let r = read(&raw, |_| false);
            prop_assert!(r.operators.len() <= MAX_OPERATORS);
        }
    }
}
