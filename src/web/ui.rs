//! What the pages, the error answers and the forms of `web/` share, in one
//! file that needs none of them: the output [`Format`], catalog messages
//! ([`Msg`]), the language and theme a page is shown in ([`Ui`]) and every
//! page's frame ([`Layout`]).

use super::i18n::Tr;
use super::statics;

/// An output format of `/search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// The results page.
    #[default]
    Html,
    /// SearXNG's JSON shape.
    Json,
    /// `title,url,content,host,engine,score,type`.
    Csv,
    /// RSS 2.0 with OpenSearch elements.
    Rss,
}

impl Format {
    /// The name used in `format=`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Rss => "rss",
        }
    }

    pub(crate) fn parse(s: &str) -> Option<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "html" => Some(Format::Html),
            "json" => Some(Format::Json),
            "csv" => Some(Format::Csv),
            "rss" => Some(Format::Rss),
            _ => None,
        }
    }
}

/// A catalog message and its arguments (text; numbers already written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msg {
    /// Its key in `locales/*/main.ftl`.
    pub key: &'static str,
    /// Its arguments.
    pub args: Vec<(&'static str, String)>,
    /// Arguments that are themselves messages (`what` = `lab-kind-png`),
    /// said in the same language.
    pub keys: Vec<(&'static str, &'static str)>,
}

impl Msg {
    /// The message `key` with no argument.
    pub fn new(key: &'static str) -> Msg {
        Msg {
            key,
            args: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// The message with one more argument that is a message itself.
    pub fn arg_key(mut self, name: &'static str, key: &'static str) -> Msg {
        self.keys.push((name, key));
        self
    }

    /// The message with one more argument.
    pub fn arg(mut self, name: &'static str, value: impl ToString) -> Msg {
        self.args.push((name, value.to_string()));
        self
    }

    /// The message in `tr`'s language.
    pub fn text(&self, tr: &Tr) -> String {
        let mut args = self.args.clone();
        args.extend(self.keys.iter().map(|(name, key)| (*name, tr.t(key))));
        tr.with(self.key, &args)
    }
}

impl std::fmt::Display for Msg {
    /// In English (logs, JSON, CSV, RSS).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text(&Tr::default()))
    }
}

/// What every page's frame needs.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The `<title>`.
    pub title: String,
    /// The stylesheet URL, versioned by content so it can be cached forever.
    pub css_href: String,
    /// The favicon URL.
    pub icon_href: String,
    /// The interface language.
    pub tr: Tr,
    /// `auto` (the browser's light or dark), `light` or `dark`.
    pub theme: &'static str,
}

impl Layout {
    /// The frame of a page titled `title`, in English and the browser's theme.
    pub fn new(title: &str) -> Layout {
        Layout::of(title, &Ui::default())
    }

    /// The frame of a page titled `title` in `ui`'s language and theme.
    pub fn of(title: &str, ui: &Ui) -> Layout {
        Layout {
            title: title.to_string(),
            css_href: statics::css_href(),
            icon_href: statics::icon_href(),
            tr: ui.tr.clone(),
            theme: ui.theme,
        }
    }
}

/// What a page is shown in: the language and the theme, from the request's
/// preferences and `Accept-Language`.
#[derive(Debug, Clone)]
pub struct Ui {
    /// The interface language.
    pub tr: Tr,
    /// `auto`, `light` or `dark`.
    pub theme: &'static str,
}

impl Default for Ui {
    fn default() -> Self {
        Ui {
            tr: Tr::default(),
            theme: "auto",
        }
    }
}

/// The link itself when its scheme is `http` or `https`. Escaping keeps
/// engine text inert, but a `javascript:` or `data:` link would still run
/// when clicked, so such links are shown as text and not linked.
pub(super) fn safe_href(url: &str) -> Option<String> {
    let scheme = url.trim_start().split(':').next().unwrap_or("");
    (url.contains(':')
        && (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")))
    .then(|| url.to_string())
}
