//! The languages of the interface: every string of the pages lives in a
//! Fluent catalog, `locales/<code>/main.ftl`, embedded at build time by
//! `fluent-templates`. Adding a language is adding one catalog: the
//! languages offered ([`locales`]) are the catalogs found, each named by its
//! own `locale-name`, and a browser's tag is matched to them by language,
//! script and region ([`supported`]); `tests/i18n.rs` checks every catalog
//! has every key and that every catalog is offered.
//!
//! The language is chosen by, in order: the `locale` preference (cookie or
//! the preferences URL), then the browser's `Accept-Language`, then English.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader};

fluent_templates::static_loader! {
    static CATALOGS = {
        locales: "./locales",
        fallback_language: "en",
        // No Unicode isolation marks around arguments: they show as boxes
        // in some fonts and break copy-paste of numbers.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// The catalogs found (`locales/<code>/`): code and the language's own
/// name (its `locale-name`), English first, then by code.
static AVAILABLE: LazyLock<Vec<(String, String)>> = LazyLock::new(|| {
    let mut out: Vec<(String, String)> = CATALOGS
        .locales()
        .map(|l| (l.to_string(), CATALOGS.lookup(l, "locale-name")))
        .collect();
    out.sort_by(|a, b| (a.0 != DEFAULT_LOCALE, &a.0).cmp(&(b.0 != DEFAULT_LOCALE, &b.0)));
    out.dedup_by(|a, b| a.0 == b.0);
    out
});

/// UI locales: code → the language's own name, one per catalog.
pub(super) fn locales() -> impl Iterator<Item = (&'static str, &'static str)> {
    AVAILABLE.iter().map(|(c, n)| (c.as_str(), n.as_str()))
}

/// The locale when the browser names none of [`LOCALES`].
pub(super) const DEFAULT_LOCALE: &str = "en";

/// The strings of one locale. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Tr {
    code: &'static str,
    lang: LanguageIdentifier,
}

impl Default for Tr {
    fn default() -> Self {
        Tr::new(DEFAULT_LOCALE)
    }
}

impl Tr {
    /// The strings of `code` (one of [`locales`]; anything else: English).
    pub fn new(code: &str) -> Tr {
        let code = locales()
            .map(|(c, _)| c)
            .find(|c| c.eq_ignore_ascii_case(code))
            .unwrap_or(DEFAULT_LOCALE);
        Tr {
            code,
            lang: code.parse().unwrap_or_default(),
        }
    }

    /// The locale chosen by the `locale` preference, else by the browser's
    /// `Accept-Language` (first acceptable one by weight), else English.
    pub fn negotiate(preference: Option<&str>, accept_language: Option<&str>) -> Tr {
        if let Some(p) = preference.and_then(supported) {
            return Tr::new(p);
        }
        let asked = fluent_langneg::accepted_languages::parse(accept_language.unwrap_or(""));
        asked
            .iter()
            .find_map(|l| supported(&l.to_string()))
            .map_or_else(Tr::default, Tr::new)
    }

    /// Its code, for `<html lang>`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The message `key`.
    pub fn t(&self, key: &str) -> String {
        CATALOGS.lookup(&self.lang, key)
    }

    /// The message `key`, if the catalogs have it.
    pub fn try_t(&self, key: &str) -> Option<String> {
        CATALOGS.try_lookup(&self.lang, key)
    }

    /// The message `key` with a number `$n` (plural forms are the catalog's).
    pub fn n(&self, key: &str, n: impl std::borrow::Borrow<u64>) -> String {
        self.args(key, &[("n", FluentValue::from(*n.borrow()))])
    }

    /// The message `key` with one text argument `$name`.
    pub fn s(&self, key: &str, name: &'static str, value: &str) -> String {
        self.args(key, &[(name, FluentValue::from(value.to_string()))])
    }

    /// The message `key` with text arguments.
    pub fn with(&self, key: &str, args: &[(&'static str, String)]) -> String {
        let args: Vec<(&'static str, FluentValue<'static>)> = args
            .iter()
            .map(|(k, v)| (*k, FluentValue::from(v.clone())))
            .collect();
        self.args(key, &args)
    }

    /// The message `key` with a number `$n` (for plural forms) and text
    /// arguments.
    pub fn with_n(&self, key: &str, n: u64, args: &[(&'static str, String)]) -> String {
        let mut all: Vec<(&'static str, FluentValue<'static>)> = vec![("n", FluentValue::from(n))];
        all.extend(args.iter().map(|(k, v)| (*k, FluentValue::from(v.clone()))));
        self.args(key, &all)
    }

    fn args(&self, key: &str, args: &[(&'static str, FluentValue<'static>)]) -> String {
        let map: HashMap<Cow<'static, str>, FluentValue<'static>> = args
            .iter()
            .map(|(k, v)| (Cow::Borrowed(*k), v.clone()))
            .collect();
        CATALOGS.lookup_with_args(&self.lang, key, &map)
    }

    /// A category's name (`category-news`), or the category title-cased
    /// when the catalog has no name for it.
    pub fn category(&self, c: &str) -> String {
        self.named("category", c)
    }

    /// An engine's name as pages show it (`engine-sogou_weixin`: "Sogou
    /// WeChat", 搜狗微信), or its `engines.toml` name title-cased when the
    /// catalog has none (`my_site`: "My Site"). JSON, CSV and RSS keep the
    /// `engines.toml` name: it is what `engines=` and `!shortcut` take.
    pub fn engine(&self, name: &str) -> String {
        self.named("engine", name)
    }

    fn named(&self, kind: &str, id: &str) -> String {
        CATALOGS
            .try_lookup(&self.lang, &format!("{kind}-{id}"))
            .unwrap_or_else(|| title_case(id))
    }

    /// A count with the locale's digit grouping (`12,345`).
    pub fn number(&self, n: u64) -> String {
        let sep = self.t("number-group-separator");
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push_str(&sep);
            }
            out.push(c);
        }
        out
    }

    /// An RFC 3339 date (`2026-05-30…`) as the locale writes it
    /// (`May 30, 2026`, `2026年5月30日`); the input when it is not one.
    pub fn date(&self, rfc3339: &str) -> String {
        let parts: Vec<u64> = rfc3339
            .get(..10)
            .unwrap_or("")
            .split('-')
            .filter_map(|p| p.parse().ok())
            .collect();
        let [year, month, day] = parts[..] else {
            return rfc3339.to_string();
        };
        if !(1..=12).contains(&month) {
            return rfc3339.to_string();
        }
        let month_name = self.t(&format!("month-{month}"));
        self.args(
            "date-format",
            &[
                ("year", FluentValue::from(year.to_string())),
                ("month", FluentValue::from(month)),
                ("monthname", FluentValue::from(month_name)),
                ("day", FluentValue::from(day)),
            ],
        )
    }
}

/// `snake_case` or `kebab-case` as words with capitals: `my_site` →
/// "My Site" (a word's other letters are kept as written).
pub(super) fn title_case(id: &str) -> String {
    id.split(['_', '-', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The catalog a language tag asks for, if one fits: same language, and
/// the catalog's script and region (where it names them) those of the tag.
/// A Chinese tag without a script takes it from its region (`zh-CN`,
/// `zh-SG` → Hans; `zh-TW`, `zh-HK`, `zh-MO` → Hant) or, with none,
/// Simplified. So `zh`, `zh-CN`, `zh-Hans-SG` → `zh-Hans`; `zh-TW` → none
/// until a `zh-Hant` catalog exists; `en-GB` → `en`; `fr-CA` → `fr` once
/// there is one.
fn supported(tag: &str) -> Option<&'static str> {
    let asked: LanguageIdentifier = tag.trim().replace('_', "-").parse().ok()?;
    let language = asked.language.as_str().to_ascii_lowercase();
    let region = asked.region.map(|r| r.as_str().to_ascii_uppercase());
    let script = asked.script.map(|s| s.as_str().to_string()).or_else(|| {
        match (language.as_str(), region.as_deref()) {
            ("zh", Some("TW" | "HK" | "MO")) => Some("Hant".into()),
            ("zh", _) => Some("Hans".into()),
            _ => None,
        }
    });
    locales().map(|(c, _)| c).find(|code| {
        let Ok(have) = code.parse::<LanguageIdentifier>() else {
            return false;
        };
        have.language.as_str() == language
            && have.script.is_none_or(|s| {
                script
                    .as_deref()
                    .is_some_and(|w| s.as_str().eq_ignore_ascii_case(w))
            })
            && have
                .region
                .is_none_or(|r| region.as_deref() == Some(r.as_str()))
    })
}

/// The language of a text in a script other than the page's, for a `lang`
/// attribute (so browsers pick fonts and line breaking): Han → `zh`, kana →
/// `ja`, Hangul → `ko`, Latin on a Chinese page → `und-Latn`. `None` when the
/// text is in the page's own script. Looks at the letters alone, cheaply.
pub(super) fn text_lang(text: &str, page: &str) -> Option<&'static str> {
    let (mut han, mut kana, mut hangul, mut latin) = (0usize, 0usize, 0usize, 0usize);
    for c in text.chars().take(200) {
        match c as u32 {
            0x3040..=0x30FF => kana += 1,
            0xAC00..=0xD7AF | 0x1100..=0x11FF => hangul += 1,
            0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0xF900..=0xFAFF => han += 1,
            _ if c.is_ascii_alphabetic() => latin += 1,
            _ => {}
        }
    }
    let cjk = han + kana + hangul;
    let lang = if kana > 0 && kana * 4 >= cjk {
        "ja"
    } else if hangul > han {
        "ko"
    } else if han > 0 && han * 2 >= latin / 2 {
        "zh"
    } else if latin > 0 {
        "und-Latn"
    } else {
        return None;
    };
    let page_is_zh = page.starts_with("zh");
    match lang {
        "zh" if page_is_zh => None,
        "und-Latn" if !page_is_zh => None,
        l => Some(l),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_browser_chooses_unless_the_user_did() {
        assert_eq!(
            Tr::negotiate(None, Some("zh-CN,zh;q=0.9,en;q=0.8")).code(),
            "zh-Hans"
        );
        assert_eq!(Tr::negotiate(None, Some("de-DE,en;q=0.5")).code(), "en");
        assert_eq!(Tr::negotiate(None, Some("fr, zh;q=0.3")).code(), "zh-Hans");
        assert_eq!(
            Tr::negotiate(None, Some("zh-TW")).code(),
            "en",
            "no Traditional catalog"
        );
        assert_eq!(Tr::negotiate(None, None).code(), "en");
        assert_eq!(Tr::negotiate(Some("en"), Some("zh-CN")).code(), "en");
        assert_eq!(Tr::negotiate(Some("zh-Hans"), Some("en")).code(), "zh-Hans");
        assert_eq!(Tr::negotiate(Some("xx"), Some("zh")).code(), "zh-Hans");
    }

    #[test]
    fn the_languages_offered_are_the_catalogs() {
        let offered: Vec<(&str, &str)> = locales().collect();
        assert_eq!(offered[0], ("en", "English"));
        assert!(offered.contains(&("zh-Hans", "简体中文")), "{offered:?}");
        assert_eq!(supported("en-GB"), Some("en"));
        assert_eq!(supported("zh-Hans-SG"), Some("zh-Hans"));
        assert_eq!(supported("zh_CN"), Some("zh-Hans"));
        assert_eq!(supported("zh-HK"), None);
        assert_eq!(supported("*"), None);
        assert_eq!(supported(""), None);
    }

    #[test]
    fn numbers_and_dates_follow_the_locale() {
        let (en, zh) = (Tr::new("en"), Tr::new("zh-Hans"));
        assert_eq!(en.number(1234567), "1,234,567");
        assert_eq!(en.number(999), "999");
        assert_eq!(en.date("2026-05-30T07:00:00Z"), "May 30, 2026");
        assert_eq!(zh.date("2026-05-30T07:00:00Z"), "2026年5月30日");
        assert_eq!(en.date("garbage"), "garbage");
        assert_eq!(en.engine("sogou_weixin"), "Sogou WeChat");
        assert_eq!(zh.engine("sogou_weixin"), "搜狗微信");
        assert_eq!(en.category("social_media"), "Social media");
        assert_eq!(zh.category("social_media"), "社交媒体");
        // Not in the catalogs: the name title-cased, never the raw id.
        assert_eq!(en.engine("my_site"), "My Site");
        assert_eq!(zh.category("local-news"), "Local News");
        assert_eq!(en.n("results-count", 1), "1 result");
        assert_eq!(en.n("results-count", 3), "3 results");
        assert_eq!(zh.n("results-count", 3), "3 条结果");
    }

    #[test]
    fn snippets_in_another_script_are_marked() {
        assert_eq!(text_lang("高考 是中国的大学入学考试", "en"), Some("zh"));
        assert_eq!(text_lang("高考 是中国的大学入学考试", "zh-Hans"), None);
        assert_eq!(text_lang("Caffeine affects sleep", "en"), None);
        assert_eq!(
            text_lang("Caffeine affects sleep", "zh-Hans"),
            Some("und-Latn")
        );
        assert_eq!(text_lang("ひらがなとカタカナ", "en"), Some("ja"));
        assert_eq!(text_lang("한국어 텍스트", "en"), Some("ko"));
        assert_eq!(
            text_lang("Python 教程 — learn Python programming basics", "en"),
            None
        );
    }
}
