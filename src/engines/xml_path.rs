//! Element paths into XML answers, for the `feed` kind's parse table
//! (`author.name`, `Item[Name=Title]`, `link[title=pdf]@href`) and for
//! `[engine.follow]` values read from an XML first answer (`IdList.Id`).
//!
//! A path is dotted local element names (namespace prefixes ignored, case
//! folded), each optionally with one `[attr=value]` condition, and an
//! optional final `@attr` that reads an attribute instead of the text.
//! Under a feed item it names elements exactly from the item down; over a
//! whole document it matches any element whose ancestors end with it.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    name: String,
    cond: Option<(String, String)>,
}

/// An element path, and what it reads there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct XmlPath {
    steps: Vec<Step>,
    attr: Option<String>,
}

/// An open element as the matcher sees it: its local name and the
/// attributes some condition asks about.
#[derive(Debug, Clone, Default)]
pub(crate) struct Open {
    pub(crate) name: String,
    pub(crate) attrs: Vec<(String, String)>,
}

impl XmlPath {
    pub(crate) fn parse(spec: &str) -> Result<XmlPath, String> {
        let spec = spec.trim();
        let (path, attr) = match spec.rfind('@') {
            Some(i) if !spec[i..].contains(']') => (&spec[..i], Some(spec[i + 1..].trim())),
            _ => (spec, None),
        };
        if attr.is_some_and(|a| a.is_empty() || !a.chars().all(name_char)) {
            return Err(format!(
                "{spec:?}: '@' must be followed by an attribute name"
            ));
        }
        let mut steps = Vec::new();
        let mut depth = 0usize;
        let mut start = 0;
        let bytes = path.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'[' => depth += 1,
                b']' => depth = depth.saturating_sub(1),
                b'.' if depth == 0 => {
                    steps.push(step(&path[start..i], spec)?);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if start < bytes.len() || steps.is_empty() {
            steps.push(step(&path[start..], spec)?);
        }
        Ok(XmlPath {
            steps,
            attr: attr.map(|a| a.to_ascii_lowercase()),
        })
    }

    /// Whether it reads an attribute (matched at the element's start)
    /// rather than text (collected to its end).
    pub(crate) fn reads_attribute(&self) -> bool {
        self.attr.is_some()
    }

    /// The attributes it asks about (conditions and the one it reads):
    /// open elements keep these and no others.
    pub(crate) fn attribute_names(&self) -> impl Iterator<Item = &str> {
        self.steps
            .iter()
            .filter_map(|s| s.cond.as_ref().map(|(k, _)| k.as_str()))
            .chain(self.attr.as_deref())
    }

    /// Whether `stack` (the open elements under the item, outermost first)
    /// is exactly this path.
    pub(crate) fn matches_exactly(&self, stack: &[Open]) -> bool {
        stack.len() == self.steps.len() && self.ends(stack)
    }

    /// Whether `stack` ends with this path.
    pub(crate) fn matches_suffix(&self, stack: &[Open]) -> bool {
        stack.len() >= self.steps.len() && self.ends(stack)
    }

    fn ends(&self, stack: &[Open]) -> bool {
        let tail = &stack[stack.len() - self.steps.len()..];
        tail.iter().zip(&self.steps).all(|(open, step)| {
            open.name == step.name
                && step
                    .cond
                    .as_ref()
                    .is_none_or(|(k, v)| open.attrs.iter().any(|(ak, av)| ak == k && av == v))
        })
    }

    /// The attribute this path reads, of the element `open`.
    pub(crate) fn attribute<'o>(&self, open: &'o Open) -> Option<&'o str> {
        let want = self.attr.as_deref()?;
        open.attrs
            .iter()
            .find(|(k, _)| k == want)
            .map(|(_, v)| v.as_str())
    }
}

fn name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | ':')
}

fn step(text: &str, spec: &str) -> Result<Step, String> {
    let text = text.trim();
    let (name, cond) = match text.split_once('[') {
        Some((name, rest)) => {
            let inner = rest
                .strip_suffix(']')
                .ok_or_else(|| format!("{spec:?}: unclosed '['"))?;
            let (k, v) = inner
                .split_once('=')
                .ok_or_else(|| format!("{spec:?}: a condition is [attr=value]"))?;
            let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
            (
                name,
                Some((local_of(k.trim()).to_ascii_lowercase(), v.to_string())),
            )
        }
        None => (text, None),
    };
    let name = local_of(name.trim());
    if name.is_empty() || !name.chars().all(name_char) {
        return Err(format!("{spec:?}: {text:?} is not an element name"));
    }
    Ok(Step {
        name: name.to_ascii_lowercase(),
        cond,
    })
}

/// `prefix:name` → `name`.
fn local_of(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// The open element `e`: its local name, and those of its attributes
/// `keep` names (lower-cased local names).
pub(crate) fn open(e: &BytesStart<'_>, keep: &[String]) -> Open {
    open_as(e.local_name().as_ref().to_ascii_lowercase(), e, keep)
}

/// [`open`] with the element's local name, lower-cased, already read.
pub(crate) fn open_as(name: String, e: &BytesStart<'_>, keep: &[String]) -> Open {
    let attrs = if keep.is_empty() {
        Vec::new()
    } else {
        e.attributes()
            .flatten()
            .filter_map(|a| {
                let local = a.key.local_name();
                let local: &str = local.as_ref();
                let k = keep.iter().find(|k| k.eq_ignore_ascii_case(local))?;
                let v = a
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()?
                    .into_owned();
                Some((k.clone(), v))
            })
            .collect()
    };
    Open { name, attrs }
}

/// The attribute names `paths` ask about, each once.
pub(crate) fn attribute_names<'p>(paths: impl IntoIterator<Item = &'p XmlPath>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in paths {
        for n in p.attribute_names() {
            if !names.iter().any(|k| k == n) {
                names.push(n.to_string());
            }
        }
    }
    names
}

/// The text (or attribute) of every element of `body` that `path` matches
/// (by suffix), in document order, at most `max`; `Err` when the body is
/// not well-formed XML up to there.
pub(crate) fn values(body: &str, path: &XmlPath, max: usize) -> Result<Vec<String>, String> {
    let mut reader = Reader::from_str(body.trim_start_matches('\u{feff}'));
    let keep = attribute_names([path]);
    let mut stack: Vec<Open> = Vec::new();
    // The text being collected, and the depth of the element it belongs to.
    let mut capture: Option<(usize, String)> = None;
    let mut out = Vec::new();
    while out.len() < max {
        let event = reader
            .read_event()
            .map_err(|e| format!("XML error at byte {}: {e}", reader.error_position()))?;
        match event {
            Event::Start(e) => {
                stack.push(open(&e, &keep));
                if path.matches_suffix(&stack) {
                    match path.attribute(stack.last().expect("just pushed")) {
                        Some(v) => out.push(v.to_string()),
                        None if !path.reads_attribute() && capture.is_none() => {
                            capture = Some((stack.len(), String::new()));
                        }
                        None => {}
                    }
                }
            }
            Event::Empty(e) => {
                stack.push(open(&e, &keep));
                if path.matches_suffix(&stack)
                    && let Some(v) = path.attribute(stack.last().expect("just pushed"))
                {
                    out.push(v.to_string());
                }
                stack.pop();
            }
            Event::End(_) => {
                if let Some((_, text)) = capture.take_if(|(d, _)| *d == stack.len()) {
                    let t = text.trim();
                    if !t.is_empty() {
                        out.push(t.to_string());
                    }
                }
                stack.pop();
            }
            Event::Text(t) => {
                if let Some((_, text)) = capture.as_mut() {
                    text.push_str(&t.xml10_content());
                }
            }
            Event::CData(c) => {
                if let Some((_, text)) = capture.as_mut() {
                    text.push_str(&c.into_inner());
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, text)) = capture.as_mut()
                    && let Ok(Some(c)) = r.resolve_char_ref()
                {
                    text.push(c);
                } else if let Some((_, text)) = capture.as_mut() {
                    text.push_str(match &*r {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        "apos" => "'",
                        _ => "",
                    });
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_with_conditions_and_attributes() {
        let p = XmlPath::parse("Item[Name=AuthorList].Item").unwrap();
        assert_eq!(p.steps.len(), 2);
        assert_eq!(p.steps[0].cond, Some(("name".into(), "AuthorList".into())));
        let p = XmlPath::parse("arxiv:link[title=pdf]@href").unwrap();
        assert_eq!(p.steps[0].name, "link");
        assert_eq!(p.attr.as_deref(), Some("href"));
        assert!(XmlPath::parse("a[b").is_err());
        assert!(XmlPath::parse("a[b]").is_err());
        assert!(XmlPath::parse("a@").is_err());
        assert!(XmlPath::parse("a b").is_err());
    }

    #[test]
    fn document_values_match_by_suffix() {
        let body = r#"<?xml version="1.0"?><eSearchResult><Count>2</Count>
            <IdList><Id>11</Id><Id> 22 </Id></IdList><TranslationStack><Id>x</Id></TranslationStack>
            <link rel="a" href="h1"/><link rel="b" href="h2"></link></eSearchResult>"#;
        let ids = values(body, &XmlPath::parse("IdList.Id").unwrap(), 10).unwrap();
        assert_eq!(ids, ["11", "22"]);
        let one = values(body, &XmlPath::parse("IdList.Id").unwrap(), 1).unwrap();
        assert_eq!(one, ["11"]);
        let h = values(body, &XmlPath::parse("link[rel=b]@href").unwrap(), 10).unwrap();
        assert_eq!(h, ["h2"]);
        let h = values(body, &XmlPath::parse("link@href").unwrap(), 10).unwrap();
        assert_eq!(h, ["h1", "h2"]);
        assert!(values("<a><b></a>", &XmlPath::parse("b").unwrap(), 10).is_err());
        let amp = values("<a><b>x &amp; y</b></a>", &XmlPath::parse("b").unwrap(), 10).unwrap();
        assert_eq!(amp, ["x & y"]);
    }
}
