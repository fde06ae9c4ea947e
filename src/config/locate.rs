//! Where a key is in a TOML text: spanned documents, paths into them, and
//! the file:line:column of an error. Used by the checks in `mod.rs`, for a
//! file read alone and for a file laid over the built-in defaults (whose
//! merged keys are traced back to the layer that wrote them).

use std::path::Path;

use super::{ConfigError, Seg};

/// One step of a path into a parsed document, owning its key (paths found
/// in one document are looked up in another).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    Key(String),
    Index(usize),
}

impl Step {
    pub(super) fn key(k: &str) -> Step {
        Step::Key(k.to_string())
    }
}

impl From<&Seg> for Step {
    fn from(seg: &Seg) -> Step {
        match seg {
            Seg::Key(k) => Step::key(k),
            Seg::Index(i) => Step::Index(*i),
            Seg::Name(k) => Step::key(k),
        }
    }
}

/// A TOML text with its spanned parse and the file it is named by.
pub(super) struct Doc<'a> {
    pub(super) text: &'a str,
    pub(super) path: &'a Path,
    pub(super) doc: toml::de::DeTable<'a>,
}

impl<'a> Doc<'a> {
    /// Parses `text`; a syntax error names `path`, line and column.
    pub(super) fn parse(text: &'a str, path: &'a Path) -> Result<Doc<'a>, ConfigError> {
        match toml::de::DeTable::parse(text) {
            Ok(doc) => Ok(Doc {
                text,
                path,
                doc: doc.into_inner(),
            }),
            Err(e) => {
                let file = Doc {
                    text,
                    path,
                    doc: toml::de::DeTable::new(),
                };
                Err(file.invalid(e.span(), e.message().trim().to_string()))
            }
        }
    }

    /// An error at `span` of this text (its start; line 1 when unknown).
    pub(super) fn invalid(
        &self,
        span: Option<std::ops::Range<usize>>,
        message: String,
    ) -> ConfigError {
        let (line, column) = span.map_or((1, 1), |s| line_col(self.text, s.start));
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            line,
            column,
            message,
        }
    }
}

impl ConfigError {
    /// The same place with another message.
    pub(super) fn with_message(self, message: String) -> ConfigError {
        match self {
            ConfigError::Invalid {
                path, line, column, ..
            } => ConfigError::Invalid {
                path,
                line,
                column,
                message,
            },
            other => other,
        }
    }

    /// Sorting key: problems in `main` first, then by line and column.
    pub(super) fn order(&self, main: &Path) -> (bool, usize) {
        match self {
            ConfigError::Invalid {
                path, line, column, ..
            } => (path != main, line * 10_000 + column),
            ConfigError::Io { .. } => (false, 0),
        }
    }
}

/// serde's message, with the dotted key added when it names only the value
/// (type errors do).
pub(super) fn with_key(e: &toml::de::Error, doc: &toml::de::DeTable<'_>) -> String {
    let message = e.message().trim();
    match e.span().and_then(|s| key_at(doc, s.start)) {
        Some(key) if !message.contains(&format!("`{key}`")) => format!("{key}: {message}"),
        _ => message.to_string(),
    }
}

/// The span of the key at the end of `path` (or of the array element, when
/// the path ends with an index), if the file spells it out.
pub(super) fn locate(
    root: &toml::de::DeTable<'_>,
    path: &[Step],
) -> Option<std::ops::Range<usize>> {
    locate_in(root, path, false)
}

/// [`locate`], the span of the value instead of the key's when `value`.
pub(super) fn locate_in(
    root: &toml::de::DeTable<'_>,
    path: &[Step],
    value: bool,
) -> Option<std::ops::Range<usize>> {
    let mut table = root;
    let mut iter = path.iter().peekable();
    while let Some(seg) = iter.next() {
        let Step::Key(key) = seg else { return None };
        let (k, v) = table.iter().find(|(k, _)| k.get_ref().as_ref() == key)?;
        let mut item = v;
        if iter.peek().is_none() {
            return Some(if value { v.span() } else { k.span() });
        }
        if let Some(Step::Index(i)) = iter.peek() {
            iter.next();
            let toml::de::DeValue::Array(items) = item.get_ref() else {
                return None;
            };
            item = items.get(*i)?;
            if iter.peek().is_none() {
                return Some(item.span());
            }
        }
        let toml::de::DeValue::Table(t) = item.get_ref() else {
            return None;
        };
        table = t;
    }
    None
}

/// The path (with array indices) of the innermost key or array element
/// whose key or value covers byte `offset`.
pub(super) fn path_at(table: &toml::de::DeTable<'_>, offset: usize) -> Option<Vec<Step>> {
    for (k, v) in table.iter() {
        let key = Step::key(k.get_ref());
        let prepend = |mut rest: Vec<Step>, head: Vec<Step>| {
            let mut p = head;
            p.append(&mut rest);
            p
        };
        match v.get_ref() {
            toml::de::DeValue::Table(t) => {
                if let Some(rest) = path_at(t, offset) {
                    return Some(prepend(rest, vec![key]));
                }
            }
            toml::de::DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let toml::de::DeValue::Table(t) = item.get_ref()
                        && let Some(rest) = path_at(t, offset)
                    {
                        return Some(prepend(rest, vec![key, Step::Index(i)]));
                    }
                    if item.span().contains(&offset) {
                        return Some(vec![key, Step::Index(i)]);
                    }
                }
            }
            _ => {}
        }
        if k.span().contains(&offset) || v.span().contains(&offset) {
            return Some(vec![key]);
        }
    }
    None
}

/// The dotted path (`engine.parse.title`) of the innermost key whose key or
/// value covers byte `offset`.
fn key_at(table: &toml::de::DeTable<'_>, offset: usize) -> Option<String> {
    fn walk(table: &toml::de::DeTable<'_>, offset: usize, prefix: &str) -> Option<String> {
        for (k, v) in table.iter() {
            let path = if prefix.is_empty() {
                k.get_ref().to_string()
            } else {
                format!("{prefix}.{}", k.get_ref())
            };
            // Header tables' spans do not cover their keys: always look in.
            let inner = match v.get_ref() {
                toml::de::DeValue::Table(t) => walk(t, offset, &path),
                toml::de::DeValue::Array(items) => {
                    items.iter().find_map(|item| match item.get_ref() {
                        toml::de::DeValue::Table(t) => walk(t, offset, &path),
                        _ => None,
                    })
                }
                _ => None,
            };
            if inner.is_some() {
                return inner;
            }
            if k.span().contains(&offset) || v.span().contains(&offset) {
                return Some(path);
            }
        }
        None
    }
    walk(table, offset, "")
}

/// 1-based line and column of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}
