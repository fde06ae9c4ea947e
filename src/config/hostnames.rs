//! `[hostnames]`: the configuration's hostname rules (`remove`, `replace`,
//! `boost`, `lower`) and the factors of `boost` and `lower`. The patterns
//! and how they match are [`crate::hosts`]'s; here they are read, and every
//! pattern that cannot work is refused at load with its file and line.

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Problem, Seg};
use crate::hosts::{self, Kind};

/// `[hostnames]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostnamesConfig {
    /// Hosts whose results are dropped from the fused list.
    pub remove: Vec<String>,
    /// Pattern → host written instead, on the link shown (the dedup key
    /// stays the original link's).
    pub replace: Replacements,
    /// Hosts whose results' fused score is multiplied by `boost_factor`.
    pub boost: Vec<String>,
    /// Hosts whose results' fused score is multiplied by `lower_factor`.
    pub lower: Vec<String>,
    /// The factor of `boost` (1 to 100).
    pub boost_factor: f64,
    /// The factor of `lower` (1/100 to 1).
    pub lower_factor: f64,
}

impl Default for HostnamesConfig {
    fn default() -> Self {
        HostnamesConfig {
            remove: Vec::new(),
            replace: Replacements::default(),
            boost: Vec::new(),
            lower: Vec::new(),
            boost_factor: hosts::DEFAULT_BOOST_FACTOR,
            lower_factor: hosts::DEFAULT_LOWER_FACTOR,
        }
    }
}

/// `replace = { pattern = "host" }`, in the order written (the first
/// pattern that matches a host wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replacements(pub Vec<(String, String)>);

impl Serialize for Replacements {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de> Deserialize<'de> for Replacements {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Pairs;
        impl<'de> Visitor<'de> for Pairs {
            type Value = Replacements;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a table of pattern = \"host\"")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Replacements, A::Error> {
                let mut pairs = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    pairs.push((k, v));
                }
                Ok(Replacements(pairs))
            }
        }
        d.deserialize_map(Pairs)
    }
}

impl HostnamesConfig {
    /// The lists as [`crate::hosts`] reads them.
    pub fn lists(&self) -> hosts::Lists {
        hosts::Lists {
            remove: self.remove.clone(),
            replace: self.replace.0.clone(),
            boost: self.boost.clone(),
            lower: self.lower.clone(),
        }
    }

    /// The rules, compiled under [`hosts::CONFIG_CAPS`], and what is wrong
    /// with any pattern (a validated configuration has nothing wrong).
    pub fn rules(&self) -> (hosts::Rules, Vec<hosts::RuleError>) {
        hosts::Rules::compile(
            &self.lists(),
            &hosts::CONFIG_CAPS,
            self.boost_factor,
            self.lower_factor,
        )
    }

    /// Every pattern, replacement and factor that cannot work, pointing at
    /// the entry (a `replace` entry by its pattern, the key it is written
    /// under).
    pub(super) fn problems(&self, out: &mut Vec<Problem>) {
        let key = |k: &'static str| Seg::Key(k);
        for (name, value, ok) in [
            (
                "boost_factor",
                self.boost_factor,
                (1.0..=hosts::MAX_FACTOR).contains(&self.boost_factor),
            ),
            (
                "lower_factor",
                self.lower_factor,
                (1.0 / hosts::MAX_FACTOR..=1.0).contains(&self.lower_factor),
            ),
        ] {
            if !ok {
                let range = if name == "boost_factor" {
                    format!("between 1 and {}", hosts::MAX_FACTOR)
                } else {
                    format!("between {} and 1", 1.0 / hosts::MAX_FACTOR)
                };
                out.push(Problem::at(
                    &[&["hostnames", name], &["hostnames"]],
                    format!("hostnames.{name}: must be {range}, got {value}"),
                ));
            }
        }
        let (_, errors) = self.rules();
        for e in errors {
            let list = e.kind.as_str();
            let mut paths = Vec::new();
            match (e.kind, e.index) {
                (Kind::Replace, Some(_)) => paths.push(vec![
                    key("hostnames"),
                    key("replace"),
                    Seg::Name(e.pattern.clone()),
                ]),
                (_, Some(i)) => paths.push(vec![key("hostnames"), key(list), Seg::Index(i)]),
                (_, None) => {}
            }
            paths.push(vec![key("hostnames"), key(list)]);
            paths.push(vec![key("hostnames")]);
            out.push(Problem {
                paths,
                message: format!("hostnames.{e}"),
                whole_file: false,
            });
        }
    }
}
