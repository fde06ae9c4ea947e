//! Properties of the dedup core: similarity is symmetric and in [0, 1];
//! every record gets exactly one verdict; a record's cluster is itself or an
//! earlier kept record; the pair score agrees with the stream.

use metasift_dedup::{Doc, Method, Settings, Unit, dedup, similarity};
use metasift_dedup::{FeatureCode, code_similarity, feature_codes, shared_codes};
use proptest::prelude::*;

/// Pieces that make overlapping snippets likely: words, CJK characters,
/// anchors in both widths, odd characters.
const PIECES: &[&str] = &[
    "the",
    "bank",
    "rates",
    "raised",
    "Markets",
    "fell",
    "中",
    "国",
    "地",
    "震",
    "台",
    "网",
    "测",
    "定",
    "，",
    "。",
    "、",
    "！",
    "？",
    ",",
    ".",
    "!",
    "?",
    ";",
    ":",
    "…",
    "...",
    " ",
    " ",
    " ",
    "3.14",
    "U.S.",
    "e\u{301}",
    "Ｆｕｌｌ",
    "\u{0}",
    "\u{1b}",
    "\u{200b}",
    "ß",
    "İ",
    "ﬁ",
    "👍",
    "\n",
    "\t",
    "한국",
    "カタカナ",
];

fn snippet() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(PIECES), 0..40)
            .prop_map(|v| v.concat()),
        1 => any::<String>(),
    ]
}

fn method() -> impl Strategy<Value = Method> {
    prop::sample::select(Method::ALL.to_vec())
}

#[derive(Debug, Clone)]
struct Rec {
    url: String,
    title: String,
    snippet: String,
}

fn rec() -> impl Strategy<Value = Rec> {
    (0..6u8, 0..4u8, snippet()).prop_map(|(u, t, snippet)| Rec {
        url: format!("https://site{u}.example/page"),
        title: ["Same title", "Other title", "", "同一标题"][t as usize].to_string(),
        snippet,
    })
}

fn doc(r: &Rec) -> Doc<'_> {
    Doc::new(&r.url, &r.title, &r.snippet)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn feature_similarity_symmetric_and_bounded(a in snippet(), b in snippet(), w in 1usize..5, word in any::<bool>()) {
        let unit = if word { Unit::Word } else { Unit::Char };
        let (ca, cb) = (feature_codes(&a, w, unit), feature_codes(&b, w, unit));
        let s = code_similarity(&ca, &cb);
        prop_assert!((0.0..=1.0).contains(&s));
        prop_assert_eq!(s, code_similarity(&cb, &ca));
        if !ca.is_empty() {
            prop_assert_eq!(code_similarity(&ca, &ca), 1.0);
        }
    }

    #[test]
    fn pair_similarity_symmetric_and_bounded(a in rec(), b in rec(), m in method()) {
        let s = Settings { method: m, ..Settings::default() };
        let ab = similarity(doc(&a), doc(&b), &s);
        let ba = similarity(doc(&b), doc(&a), &s);
        prop_assert_eq!(ab.similarity, ba.similarity);
        prop_assert_eq!(ab.stage, ba.stage);
        if let Some(x) = ab.similarity {
            prop_assert!((0.0..=1.0).contains(&x));
        }
    }

    #[test]
    fn pair_score_agrees_with_stream(a in rec(), b in rec(), m in method()) {
        let s = Settings { method: m, ..Settings::default() };
        let v = dedup(&[doc(&a), doc(&b)], &s);
        let p = similarity(doc(&a), doc(&b), &s);
        prop_assert_eq!(v[1].stage, p.stage);
    }

    #[test]
    fn every_record_once_and_clusters_point_back(recs in prop::collection::vec(rec(), 0..30), m in method()) {
        let s = Settings { method: m, ..Settings::default() };
        let docs: Vec<Doc<'_>> = recs.iter().map(doc).collect();
        let v = dedup(&docs, &s);
        prop_assert_eq!(v.len(), docs.len());
        for (i, x) in v.iter().enumerate() {
            if x.is_kept() {
                prop_assert_eq!(x.cluster, i);
            } else {
                prop_assert!(x.cluster < i);
                prop_assert!(v[x.cluster].is_kept(), "cluster {} of {} is not kept", x.cluster, i);
            }
            if let Some(sim) = x.similarity {
                prop_assert!((0.0..=1.0).contains(&sim));
            }
        }
    }

    #[test]
    fn shared_codes_are_a_sub_multiset(a in snippet(), b in snippet()) {
        let (ca, cb) = (feature_codes(&a, 2, Unit::Char), feature_codes(&b, 2, Unit::Char));
        let shared = shared_codes(&ca, &cb);
        prop_assert!(shared.len() <= ca.len().min(cb.len()));
        let count = |v: &[FeatureCode], c: FeatureCode| v.iter().filter(|&&x| x == c).count();
        for &c in &shared {
            prop_assert!(count(&shared, c) <= count(&ca, c).min(count(&cb, c)));
        }
    }
}
