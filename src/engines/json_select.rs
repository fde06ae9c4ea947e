//! A JSON answer read into the parts its parse table reads, and no more.
//!
//! An API answer is mostly what no field asks for (Crossref's reference
//! lists, GitHub's forty URLs of each repository): building all of it as a
//! [`serde_json::Value`] tree, a map and a `String` per key and value, was
//! most of the cost of a parse. [`Needs`] is the tree of paths an engine's
//! readers can look at, compiled once with the engine; [`parse`] hands
//! serde_json a seed that builds a `Value` of those paths only and lets the
//! parser step over the rest without keeping it.
//!
//! The readers then run on that `Value` exactly as on the whole one, so
//! they need no second version: what they reach is there, whole. Skipped
//! array elements stay as `null` placeholders, so indexes keep their
//! meaning. Skipped parts are still read by serde_json's own `deserialize_any`
//! (every string checked, every number parsed, the nesting limit counted),
//! so the answers refused, and the errors given, are those of
//! `serde_json::from_str::<Value>`. `tests/real_data` compares the two
//! readings on every saved answer.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// The paths under one JSON value that some reader looks at.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Needs {
    /// The whole value is read (a field's end, an object read by its keys).
    all: bool,
    /// Members or elements by key (an array element by the key's number).
    keys: Vec<Child>,
    /// What is read under every member or element (a result list).
    every: Option<Box<Needs>>,
}

#[derive(Debug, Clone, PartialEq)]
struct Child {
    key: String,
    /// The key read as an array index, as the readers read it.
    index: Option<usize>,
    needs: Needs,
}

impl Needs {
    /// The node at `path` (dotted segments) under this one, made if new.
    pub(crate) fn at<S: AsRef<str>>(&mut self, path: &[S]) -> &mut Needs {
        let mut node = self;
        for seg in path {
            let seg = seg.as_ref();
            let i = match node.keys.iter().position(|c| c.key == seg) {
                Some(i) => i,
                None => {
                    node.keys.push(Child {
                        key: seg.to_string(),
                        index: seg.parse().ok(),
                        needs: Needs::default(),
                    });
                    node.keys.len() - 1
                }
            };
            node = &mut node.keys[i].needs;
        }
        node
    }

    /// The node at a JSON pointer (RFC 6901, `""` = this one).
    pub(crate) fn at_pointer(&mut self, pointer: &str) -> &mut Needs {
        let segs: Vec<String> = pointer
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect();
        self.at(&segs)
    }

    /// The node read under every member or element of this one.
    pub(crate) fn every(&mut self) -> &mut Needs {
        self.every.get_or_insert_with(Box::default)
    }

    /// This value is read whole.
    pub(crate) fn whole(&mut self) {
        self.all = true;
    }

    /// Ready to read with: what is read under every member is also read
    /// under the members named, so each member has one node to follow.
    pub(crate) fn finish(mut self) -> Needs {
        if self.all {
            return Needs {
                all: true,
                ..Needs::default()
            };
        }
        if let Some(every) = &self.every {
            for child in &mut self.keys {
                child.needs.merge(every);
            }
        }
        self.keys = self
            .keys
            .into_iter()
            .map(|c| Child {
                needs: c.needs.finish(),
                ..c
            })
            .collect();
        self.every = self.every.map(|e| Box::new(e.finish()));
        self
    }

    fn merge(&mut self, other: &Needs) {
        self.all |= other.all;
        for c in &other.keys {
            self.at(&[&c.key]).merge(&c.needs);
        }
        if let Some(e) = &other.every {
            self.every().merge(e);
        }
    }

    fn member(&self, key: &str) -> Option<&Needs> {
        self.keys
            .iter()
            .find(|c| c.key == key)
            .map(|c| &c.needs)
            .or(self.every.as_deref())
    }

    fn element(&self, i: usize) -> Option<&Needs> {
        self.keys
            .iter()
            .find(|c| c.index == Some(i))
            .map(|c| &c.needs)
            .or(self.every.as_deref())
    }
}

/// `body` read as `serde_json::from_str::<Value>` reads it, keeping only
/// what `needs` names.
pub(crate) fn parse(body: &str, needs: &Needs) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(body);
    let value = Seed(needs).deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Reads one value as `needs` says.
struct Seed<'n>(&'n Needs);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.0.all {
            Value::deserialize(d)
        } else {
            d.deserialize_any(Pruned(self.0))
        }
    }
}

/// Builds a value as `serde_json`'s own visitor does, members and elements
/// no reader looks at left out.
struct Pruned<'n>(&'n Needs);

impl<'de> Visitor<'de> for Pruned<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Seed(self.0).deserialize(d)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let next = match self.0.element(out.len()) {
                Some(needs) => seq.next_element_seed(Seed(needs))?,
                // A placeholder keeps the later elements' indexes.
                None => seq.next_element::<Skip>()?.map(|_| Value::Null),
            };
            match next {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match self.0.member(key.as_str()) {
                Some(needs) => {
                    let v = map.next_value_seed(Seed(needs))?;
                    out.insert(key.into_owned(), v);
                }
                None => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// A member's name, borrowed from the body where it has no escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }

    fn into_owned(self) -> String {
        match self {
            Key::Borrowed(s) => s.to_string(),
            Key::Owned(s) => s,
        }
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key::Owned(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key::Owned(v))
    }
}

/// A value stepped over: read through `deserialize_any` as a `Value` would
/// be (so it is checked, and counts towards the nesting limit), nothing kept.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Skip, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_none<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Skip, D::Error> {
        Skip::deserialize(d)
    }

    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(Skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(build: impl FnOnce(&mut Needs)) -> Needs {
        let mut n = Needs::default();
        build(&mut n);
        n.finish()
    }

    #[test]
    fn keeps_what_is_named_and_the_indexes() {
        let body = r#"{"a": {"b": [{"c": 1, "d": 2}, {"c": "x", "e": [1, 2]}], "z": {"deep": [1]}},
                       "list": [{"t": "one", "u": 9}, {"t": "two"}], "w": "whole", "n": null}"#;
        let n = needs(|n| {
            n.at(&["a", "b", "1", "c"]).whole();
            n.at_pointer("/list").every().at(&["t"]).whole();
            n.at(&["w"]).whole();
        });
        let v = parse(body, &n).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": {"b": [null, {"c": "x"}]},
                               "list": [{"t": "one"}, {"t": "two"}], "w": "whole"})
        );
    }

    #[test]
    fn every_member_and_named_ones_merge() {
        let body = r#"{"m": {"k1": {"a": 1, "b": 2, "c": 3}, "k2": {"a": 4, "b": 5}}}"#;
        let n = needs(|n| {
            let m = n.at(&["m"]);
            m.every().at(&["a"]).whole();
            m.at(&["k1", "b"]).whole();
        });
        let v = parse(body, &n).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"m": {"k1": {"a": 1, "b": 2}, "k2": {"a": 4}}})
        );
        // Pointer escapes.
        let n = needs(|n| n.at_pointer("/a~1b/c~0d").whole());
        let v = parse(r#"{"a/b": {"c~d": 7, "x": 1}}"#, &n).unwrap();
        assert_eq!(v, serde_json::json!({"a/b": {"c~d": 7}}));
    }

    #[test]
    fn refuses_what_a_whole_value_refuses_with_the_same_error() {
        let n = needs(|n| n.at(&["keep"]).whole());
        let deep = format!(r#"{{"skip": {}1{}}}"#, "[".repeat(200), "]".repeat(200));
        for body in [
            "",
            "{",
            r#"{"keep": 1,}"#,
            r#"{"skip": [1, 2,, 3]}"#,
            r#"{"skip": "\ud800"}"#,
            r#"{"skip": 1e400}"#,
            r#"{"skip": tru}"#,
            r#"{"keep": 1} x"#,
            "\"\\x\"",
            deep.as_str(),
        ] {
            let whole = serde_json::from_str::<Value>(body).map_err(|e| e.to_string());
            let pruned = parse(body, &n).map_err(|e| e.to_string());
            assert!(whole.is_err(), "{body:?}");
            assert_eq!(pruned.unwrap_err(), whole.unwrap_err(), "{body:?}");
        }
        // Accepted alike: nesting under the limit, escapes in keys, scalars.
        for body in [
            format!(
                r#"{{"skip": {}1{}, "keep": 2}}"#,
                "[".repeat(120),
                "]".repeat(120)
            ),
            r#"{"ke\u0065p": "v", "keep": "dup"}"#.to_string(),
            "3".to_string(),
            "[1, 2]".to_string(),
        ] {
            assert!(parse(&body, &n).is_ok(), "{body:?}");
        }
        let v = parse(r#"{"ke\u0065p": "v", "keep": "dup"}"#, &n).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"keep": "dup"}),
            "the last of a repeated key"
        );
    }
}
