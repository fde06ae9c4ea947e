//! Deserialising a configuration so that every type error, unknown key and
//! unknown table of a file is reported in one run.
//!
//! serde stops at the first value it refuses. So the refused key is taken
//! out of the table (a value in a list takes its list; a key whose absence
//! the table then refuses, such as a required `kind`, takes its table — an
//! `[[engine]]` whole) and the rest is read again, until it deserialises.
//! Each round removes at least one value, so the rounds are bounded by the
//! size of the table; [`MAX_ROUNDS`] is a second bound. The checks of values
//! that parse (`Config::finish`) then run on what is left, so a file's type
//! errors and its bad values are reported together.

use super::Config;
use super::locate::{Step, locate_in, path_at, with_key};

/// At most this many refusals are collected from one file.
const MAX_ROUNDS: usize = 200;

/// One value serde refused.
pub(super) struct Refusal {
    /// Its path in the table given (empty when serde named no place).
    pub(super) steps: Vec<Step>,
    /// serde pointed at the value (a type error), not at the key.
    pub(super) on_value: bool,
    /// serde's message, with the dotted key.
    pub(super) message: String,
}

/// What deserialising every part of a table that can be gave.
pub(super) struct Each {
    /// The configuration without the refused values (`None` when even the
    /// rest could not be read).
    pub(super) config: Option<Config>,
    /// For each engine of `config`, its index in the table given.
    pub(super) kept: Vec<usize>,
    /// Every refusal: the path of the refused value in the table given
    /// (empty when serde named no place), whether serde pointed at the
    /// value (a type error) rather than the key, and serde's message.
    pub(super) refusals: Vec<Refusal>,
}

impl Each {
    /// `steps`, a path into `config`, as a path into the table given.
    pub(super) fn original(&self, steps: &[Step]) -> Vec<Step> {
        original(steps, &self.kept)
    }
}

/// Deserialises `table`, taking out each value serde refuses (see the
/// module docs).
pub(super) fn deserialize_each(mut table: toml::Table) -> Each {
    let engines = match table.get("engine") {
        Some(toml::Value::Array(items)) => items.len(),
        _ => 0,
    };
    let mut kept: Vec<usize> = (0..engines).collect();
    let mut refusals = Vec::new();
    // Paths (in the table given) taken out so far: a table that then
    // misses the key is not a second problem.
    let mut removed: Vec<Vec<Step>> = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let text = match toml::to_string(&table) {
            Ok(text) => text,
            Err(e) => {
                refusals.push(Refusal {
                    steps: Vec::new(),
                    on_value: false,
                    message: format!("cannot read the configuration: {e}"),
                });
                break;
            }
        };
        let error = match toml::from_str::<Config>(&text) {
            Ok(config) => {
                return Each {
                    config: Some(config),
                    kept,
                    refusals,
                };
            }
            Err(e) => e,
        };
        let doc = toml::de::DeTable::parse(&text).ok();
        let message = match &doc {
            Some(doc) => with_key(&error, doc.get_ref()),
            None => error.message().trim().to_string(),
        };
        let start = error.span().map(|s| s.start);
        let steps = doc
            .as_ref()
            .zip(start)
            .and_then(|(doc, start)| path_at(doc.get_ref(), start))
            .unwrap_or_default();
        let on_value = doc
            .as_ref()
            .zip(start)
            .and_then(|(doc, start)| {
                let value = locate_in(doc.get_ref(), &steps, true)?;
                Some(
                    value.contains(&start)
                        && Some(value) != locate_in(doc.get_ref(), &steps, false),
                )
            })
            .unwrap_or(false);
        let at = original(&steps, &kept);
        let follows_a_removal = removed
            .iter()
            .any(|r| r.len() > at.len() && r.starts_with(&at));
        if !follows_a_removal {
            refusals.push(Refusal {
                steps: at.clone(),
                on_value,
                message,
            });
        }
        if !remove(&mut table, &steps, &mut kept) {
            break;
        }
        removed.push(at);
    }
    Each {
        config: None,
        kept,
        refusals,
    }
}

/// `steps` with an engine index of the stripped table replaced by its index
/// in the table given.
fn original(steps: &[Step], kept: &[usize]) -> Vec<Step> {
    let mut out = steps.to_vec();
    if let [Step::Key(k), Step::Index(i), ..] = &mut out[..]
        && k == "engine"
        && let Some(&j) = kept.get(*i)
    {
        *i = j;
    }
    out
}

/// Takes the value at `steps` out of `table`: the deepest key on the path
/// (a list goes whole), or the `[[engine]]` table the path names. False
/// when nothing could be taken out.
fn remove(table: &mut toml::Table, steps: &[Step], kept: &mut Vec<usize>) -> bool {
    if let [Step::Key(k), Step::Index(i)] = steps
        && k == "engine"
    {
        if let Some(toml::Value::Array(items)) = table.get_mut("engine")
            && *i < items.len()
        {
            items.remove(*i);
            if *i < kept.len() {
                kept.remove(*i);
            }
            return true;
        }
        return false;
    }
    let mut len = steps.len();
    while len > 0 && matches!(steps[len - 1], Step::Index(_)) {
        len -= 1;
    }
    let Some((Step::Key(last), parents)) = steps[..len].split_last() else {
        return false;
    };
    let mut current = table;
    let mut rest = parents.iter().peekable();
    while let Some(step) = rest.next() {
        let Step::Key(key) = step else { return false };
        let mut value = match current.get_mut(key) {
            Some(v) => v,
            None => return false,
        };
        if let Some(Step::Index(i)) = rest.peek() {
            rest.next();
            value = match value {
                toml::Value::Array(items) => match items.get_mut(*i) {
                    Some(v) => v,
                    None => return false,
                },
                _ => return false,
            };
        }
        current = match value {
            toml::Value::Table(t) => t,
            _ => return false,
        };
    }
    current.remove(last).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn every_refused_key_is_reported_and_the_rest_is_read() {
        let each = deserialize_each(table(
            "[server]\nbnid = 1\ndeadline_ms = \"soon\"\n[nonsense]\nx = 1\n\
             [[engine]]\nname = \"a\"\nkind = \"xml\"\nurl = \"u\"\n\
             [[engine]]\nname = \"b\"\nkind = \"json\"\nurl = \"u\"\nwieght = 2.0\n\
             [[engine]]\nname = \"c\"\nkind = \"json\"\nurl = \"u\"\n",
        ));
        let messages: Vec<&str> = each.refusals.iter().map(|r| r.message.as_str()).collect();
        assert_eq!(messages.len(), 5, "{messages:?}");
        for part in ["bnid", "deadline_ms", "nonsense", "xml", "wieght"] {
            assert!(
                messages.iter().any(|m| m.contains(part)),
                "{part}: {messages:?}"
            );
        }
        // Engine "a" (no kind left) goes whole; "b" loses only its key.
        let config = each.config.as_ref().expect("the rest deserialises");
        let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["b", "c"]);
        assert_eq!(each.kept, [1, 2]);
        assert_eq!(
            each.original(&[Step::key("engine"), Step::Index(0)]),
            [Step::key("engine"), Step::Index(1)]
        );
        let wieght = each
            .refusals
            .iter()
            .find(|r| r.message.contains("wieght"))
            .unwrap();
        assert!(!wieght.on_value);
        assert_eq!(
            wieght.steps,
            [Step::key("engine"), Step::Index(1), Step::key("wieght")]
        );
    }

    #[test]
    fn a_good_table_has_no_refusal() {
        let each = deserialize_each(table("[server]\ndeadline_ms = 10\n"));
        assert!(each.refusals.is_empty());
        assert_eq!(each.config.unwrap().server.deadline_ms, 10);
        let each = deserialize_each(table("[server]\ndeadline_ms = \"soon\"\n"));
        assert!(
            each.refusals[0].on_value,
            "a type error points at the value"
        );
    }
}
