//! Cache keys: a 128-bit hash of everything that changes a fused page
//! ([`cache_key`], [`page_key`]) or the engine answers of a fan-out
//! ([`answers_key`]).

use serde::Serialize;

use crate::config::FusionSettings;
use crate::model::{Operators, Query};
use metasift_dedup as dedup;

/// The query's part of a key: what changes which engines are asked and
/// what they answer, in a stable order.
#[derive(Serialize)]
struct AnswerParts<'a> {
    text: &'a str,
    page: u32,
    lang: Option<&'a str>,
    engines: Vec<&'a str>,
    categories: Vec<&'a str>,
    time_range: Option<&'a str>,
    safesearch: Option<u8>,
    /// Left out when there are none, so keys of queries without operators
    /// are what they were.
    #[serde(skip_serializing_if = "no_operators")]
    operators: &'a Operators,
}

fn no_operators(ops: &&Operators) -> bool {
    ops.is_empty()
}

impl<'a> AnswerParts<'a> {
    /// Engine and category lists are sorted and deduplicated, since their
    /// order does not change the answer.
    fn of(query: &'a Query) -> Self {
        fn sorted(v: &[String]) -> Vec<&str> {
            let mut v: Vec<&str> = v.iter().map(String::as_str).collect();
            v.sort_unstable();
            v.dedup();
            v
        }
        AnswerParts {
            text: &query.text,
            page: query.page,
            lang: query.lang.as_deref(),
            engines: sorted(&query.engines),
            categories: sorted(&query.categories),
            time_range: query.time_range.as_deref(),
            safesearch: query.safesearch,
            operators: &query.operators,
        }
    }
}

/// The JSON of dedup settings as the page key hashes it. Made once per
/// configuration for its `[dedup]` settings, so a search that asks for no
/// other settings does not write them again for every key.
#[derive(Debug, Clone, Default)]
pub struct SettingsJson(Vec<u8>);

impl SettingsJson {
    /// The JSON of `settings`.
    pub fn of(settings: &dedup::Settings) -> Self {
        SettingsJson(serde_json::to_vec(settings).unwrap_or_default())
    }
}

/// The cache key of a search: `metasift:v1:` and a 128-bit hash of every
/// part that changes the fused page: the JSON of the query's
/// [`AnswerParts`], the dedup settings, the fusion settings and `explain`,
/// as one object.
pub fn cache_key(
    query: &Query,
    settings: &dedup::Settings,
    fusion: &FusionSettings,
    explain: bool,
) -> String {
    page_key(query, &SettingsJson::of(settings), fusion, explain, None)
}

/// [`cache_key`] with the settings' JSON made beforehand, and `:` and
/// `tag` in 16 hex digits after it when given (the configuration's tag),
/// written into one string.
pub(crate) fn page_key(
    query: &Query,
    settings: &SettingsJson,
    fusion: &FusionSettings,
    explain: bool,
    tag: Option<u64>,
) -> String {
    let mut json = Vec::with_capacity(200 + query.text.len() + settings.0.len());
    if serde_json::to_writer(&mut json, &AnswerParts::of(query)).is_ok() {
        // `{"text":…,"safesearch":null}` is open again for the rest.
        json.pop();
        json.extend_from_slice(b",\"dedup\":");
        json.extend_from_slice(&settings.0);
        json.extend_from_slice(b",\"fusion\":");
        if serde_json::to_writer(&mut json, fusion).is_err() {
            json.clear();
            return hashed_key("metasift:v1:", &json, tag);
        }
        json.extend_from_slice(if explain {
            b",\"explain\":true}"
        } else {
            b",\"explain\":false}"
        });
    } else {
        json.clear();
    }
    hashed_key("metasift:v1:", &json, tag)
}

/// The cache key of the engine answers to a query: `metasift:answers:v1:`
/// and a 128-bit hash of [`cache_key`]'s parts without the dedup and fusion
/// settings and `explain`, which only change how the answers are fused; `:` and
/// `tag` after it when given.
pub(crate) fn answers_key(query: &Query, tag: Option<u64>) -> String {
    let json = serde_json::to_vec(&AnswerParts::of(query)).unwrap_or_default();
    hashed_key("metasift:answers:v1:", &json, tag)
}

/// `prefix`, the 128-bit xxh3 of `bytes` in 32 hex digits between braces,
/// and `:tag` in 16 when given. The braces are a Redis Cluster hash tag:
/// the key and the fan-out lock beside it (`KEY:lock`) live on one slot.
fn hashed_key(prefix: &str, bytes: &[u8], tag: Option<u64>) -> String {
    fn hex(out: &mut String, value: u128, digits: u32) {
        for i in (0..digits).rev() {
            let nibble = (value >> (i * 4)) & 0xf;
            out.push(char::from(b"0123456789abcdef"[nibble as usize]));
        }
    }
    let mut key = String::with_capacity(prefix.len() + 34 + 17);
    key.push_str(prefix);
    key.push('{');
    hex(&mut key, xxhash_rust::xxh3::xxh3_128(bytes), 32);
    key.push('}');
    if let Some(tag) = tag {
        key.push(':');
        hex(&mut key, u128::from(tag), 16);
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: the key as it was first written, from serde's
    /// flattened struct; `page_key` writes the same JSON without it.
    #[derive(Serialize)]
    struct KeyParts<'a> {
        #[serde(flatten)]
        query: AnswerParts<'a>,
        dedup: &'a dedup::Settings,
        fusion: &'a FusionSettings,
        explain: bool,
    }

    fn reference_key(
        query: &Query,
        settings: &dedup::Settings,
        fusion: &FusionSettings,
        explain: bool,
    ) -> String {
        let parts = KeyParts {
            query: AnswerParts::of(query),
            dedup: settings,
            fusion,
            explain,
        };
        let json = serde_json::to_vec(&parts).unwrap();
        format!(
            "metasift:v1:{{{:032x}}}",
            xxhash_rust::xxh3::xxh3_128(&json)
        )
    }

    #[test]
    fn keys_are_the_reference_keys() {
        let settings = [
            dedup::Settings::default(),
            dedup::Settings {
                os1: 0.25,
                method: dedup::Method::SimHash,
                ..dedup::Settings::default()
            },
        ];
        let queries = [
            Query::default(),
            Query {
                text: "caf\u{e9} \"quoted\" \\ <x>".into(),
                page: 3,
                lang: Some("zh-CN".into()),
                engines: vec!["b".into(), "a".into(), "b".into()],
                categories: vec!["news".into()],
                time_range: Some("day".into()),
                safesearch: Some(2),
                ..Query::default()
            },
        ];
        let rrf = FusionSettings::default().with_method(crate::config::FusionMethod::Rrf);
        for s in &settings {
            for q in &queries {
                for explain in [false, true] {
                    for f in [FusionSettings::default(), rrf] {
                        let want = reference_key(q, s, &f, explain);
                        assert_eq!(cache_key(q, s, &f, explain), want);
                        let tagged = page_key(q, &SettingsJson::of(s), &f, explain, Some(0xab));
                        assert_eq!(tagged, format!("{want}:{:016x}", 0xab));
                    }
                }
            }
            let json = serde_json::to_vec(&AnswerParts::of(&queries[1])).unwrap();
            assert_eq!(
                answers_key(&queries[1], Some(u64::MAX)),
                format!(
                    "metasift:answers:v1:{{{:032x}}}:{:016x}",
                    xxhash_rust::xxh3::xxh3_128(&json),
                    u64::MAX
                )
            );
        }
    }

    #[test]
    fn key_covers_every_part_and_ignores_list_order() {
        let q = Query {
            text: "rust".into(),
            page: 1,
            engines: vec!["b".into(), "a".into()],
            ..Query::default()
        };
        let s = dedup::Settings::default();
        let f = FusionSettings::default();
        let k = cache_key(&q, &s, &f, false);
        let mut q2 = q.clone();
        q2.engines = vec!["a".into(), "b".into(), "a".into()];
        assert_eq!(k, cache_key(&q2, &s, &f, false));
        assert_ne!(k, cache_key(&q, &s, &f, true));
        let mut other = q.clone();
        other.page = 2;
        assert_ne!(k, cache_key(&other, &s, &f, false));
        let mut other = q.clone();
        other.safesearch = Some(2);
        assert_ne!(k, cache_key(&other, &s, &f, false));
        let mut other = q.clone();
        other.lang = Some("zh-CN".into());
        assert_ne!(k, cache_key(&other, &s, &f, false));
        // The operators change the answers even where the text would not
        // (an engine that does not understand them gets other text).
        let mut other = q.clone();
        other.operators.sites = vec!["example.org".into()];
        assert_ne!(k, cache_key(&other, &s, &f, false));
        assert_ne!(answers_key(&q, None), answers_key(&other, None));
        let s2 = dedup::Settings {
            os2: 0.9,
            ..dedup::Settings::default()
        };
        assert_ne!(k, cache_key(&q, &s2, &f, false));
        for m in crate::config::FusionMethod::ALL {
            let other = f.with_method(m);
            assert_eq!(k == cache_key(&q, &s, &other, false), other == f, "{m}");
        }
        let k7 = FusionSettings { k: 7.0, ..f };
        assert_ne!(k, cache_key(&q, &s, &k7, false));
    }

    #[test]
    fn answers_key_ignores_the_dedup_settings_only() {
        let q = Query {
            text: "rust".into(),
            page: 1,
            engines: vec!["b".into(), "a".into()],
            ..Query::default()
        };
        let k = answers_key(&q, None);
        assert!(k.starts_with("metasift:answers:v1:"));
        assert_ne!(
            k,
            cache_key(
                &q,
                &dedup::Settings::default(),
                &FusionSettings::default(),
                false
            )
        );
        let mut same = q.clone();
        same.engines = vec!["a".into(), "b".into()];
        assert_eq!(k, answers_key(&same, None));
        for other in [
            Query {
                page: 2,
                ..q.clone()
            },
            Query {
                lang: Some("de".into()),
                ..q.clone()
            },
            Query {
                safesearch: Some(1),
                ..q.clone()
            },
            Query {
                time_range: Some("day".into()),
                ..q.clone()
            },
            Query {
                categories: vec!["news".into()],
                ..q.clone()
            },
        ] {
            assert_ne!(k, answers_key(&other, None), "{other:?}");
        }
    }
}
