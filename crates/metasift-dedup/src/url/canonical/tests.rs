//! The canonical rules on the table of cases (`tests/data/canonical_links.tsv`)
//! and on generated identifiers: every rule keeps different IDs apart.

use super::*;
use crate::url::{host_end, key, normalize};
use proptest::strategy::Strategy;

const CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/data/canonical_links.tsv"
);

/// `(line number, same, a, b, why)` of every case.
fn cases() -> Vec<(usize, bool, String, String, String)> {
    let text = crate::test_data::read(CASES);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            cols.len(),
            4,
            "{CASES}:{n}: want 4 tab-separated columns: {line:?}"
        );
        let same = match cols[0] {
            "same" => true,
            "other" => false,
            v => panic!("{CASES}:{n}: first column must be `same` or `other`, not {v:?}"),
        };
        out.push((n, same, cols[1].into(), cols[2].into(), cols[3].into()));
    }
    out
}

#[test]
fn the_table_of_cases_folds_every_form_and_no_neighbour() {
    let cases = cases();
    let same = cases.iter().filter(|c| c.1).count();
    let other = cases.len() - same;
    assert!(
        cases.len() >= 120 && other >= 40,
        "{same} same, {other} other"
    );
    let mut failures = Vec::new();
    for (n, same, a, b, why) in &cases {
        let (ia, ib) = (canonical_id(a), canonical_id(b));
        let (ka, kb) = (key(a), key(b));
        let ok = if *same {
            // Folded by the canonical stage itself, not by the link text.
            ia.is_some() && ia.as_ref().map(|i| &i.id) == ib.as_ref().map(|i| &i.id) && ka == kb
        } else {
            ka != kb
        };
        if !ok {
            failures.push(format!(
                "{CASES}:{n}: {} ({why}): {a} -> {:?}; {b} -> {:?}",
                if *same { "must fold" } else { "must not fold" },
                ia.map(|i| i.id),
                ib.map(|i| i.id),
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_key_is_the_identifier_key_on_every_path() {
    // The fast path (a link already normal) and the general one agree.
    for (n, _, a, b, _) in cases() {
        for link in [a, b] {
            let Some(normal) = normalize(&link) else {
                continue;
            };
            let end = host_end(&normal);
            let via_normal = super::key(&normal, end).map(|(k, _)| k);
            let want = via_normal.unwrap_or_else(|| crate::url::key_of_normalized(&normal));
            assert_eq!(key(&link), want, "line {n}: {link}");
            assert_eq!(key(&normal), want, "line {n}: {normal}");
            let mut buf = String::new();
            let (_, k, _, ns) = crate::pipeline::url_key_host(&link, &mut buf);
            assert_eq!(k, want, "line {n}: {link}");
            assert_eq!(
                ns,
                canonical_id(&link).map(|i| i.namespace),
                "line {n}: {link}"
            );
        }
    }
}

#[test]
fn the_prefilter_lets_every_rule_host_through_and_turns_others_away() {
    let p = prefilter();
    for rule in rules::RULES {
        for h in rule.hosts {
            let host = h.replace("*.", "en.").replace('*', "publisher.example");
            let path = rule.path.split('|').next().unwrap_or_default();
            assert!(
                p.may_match(host.as_bytes(), path.as_bytes()),
                "{} {}: {host}{path}",
                rule.ns,
                rule.form
            );
        }
    }
    for (host, path) in [
        ("zhidao.baidu.com", "/question/123.html"),
        ("example.com", "/abs/1706.03762"),
        ("news.example", "/story/7"),
        ("www.w3schools.com", "/js/default.asp"),
    ] {
        assert!(
            !p.may_match(host.as_bytes(), path.as_bytes()),
            "{host}{path}"
        );
    }
}

#[test]
fn a_link_s_rank_prefers_the_useful_form() {
    let rank = |l: &str| link_rank(l).unwrap_or_else(|| panic!("no rule for {l}"));
    for (better, worse) in [
        (
            "https://arxiv.org/abs/1706.03762",
            "https://arxiv.org/pdf/1706.03762v7",
        ),
        (
            "https://arxiv.org/abs/1706.03762",
            "https://doi.org/10.48550/arXiv.1706.03762",
        ),
        (
            "https://arxiv.org/abs/1706.03762",
            "http://export.arxiv.org/abs/1706.03762",
        ),
        (
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            "https://youtu.be/dQw4w9WgXcQ",
        ),
        (
            "https://youtu.be/dQw4w9WgXcQ",
            "https://www.youtube.com/embed/dQw4w9WgXcQ",
        ),
        (
            "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
            "https://m.youtube.com/watch?v=dQw4w9WgXcQ",
        ),
        (
            "https://github.com/rust-lang/rust",
            "https://github.com/rust-lang/rust.git",
        ),
        (
            "https://dl.acm.org/doi/abs/10.1145/3292500.3330701",
            "https://dl.acm.org/doi/pdf/10.1145/3292500.3330701",
        ),
        (
            "https://pubmed.ncbi.nlm.nih.gov/31978945/",
            "https://www.ncbi.nlm.nih.gov/pubmed/31978945",
        ),
        (
            "https://stackoverflow.com/questions/11227809/why",
            "https://stackoverflow.com/q/11227809",
        ),
        (
            "https://www.reddit.com/r/rust/comments/18xj2k9/slug/",
            "https://redd.it/18xj2k9",
        ),
        (
            "https://en.wikipedia.org/wiki/Rust",
            "https://en.m.wikipedia.org/wiki/Rust",
        ),
        (
            "https://crates.io/crates/serde",
            "https://lib.rs/crates/serde",
        ),
    ] {
        assert!(rank(better) > rank(worse), "{better} over {worse}");
    }
    assert_eq!(link_rank("https://example.com/abs/1706.03762"), None);
}

#[test]
fn hostile_links_match_no_rule_and_never_panic() {
    for link in [
        "https://arxiv.org/abs/",
        "https://arxiv.org/abs/..",
        "https://arxiv.org/abs/%FF%FE",
        "https://doi.org/10./x",
        "https://doi.org/10.1000/",
        "https://doi.org/11.1000/x",
        "https://github.com/settings/profile",
        "https://github.com/a/..",
        "https://youtu.be/",
        "https://www.youtube.com/watch?v=",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ%00",
        "https://en.wikipedia.org/wiki/%FF",
        "https://en.wikipedia.org/wiki/_",
        "https://en.wikipedia.org/wiki/A%23B",
        "https://pubmed.ncbi.nlm.nih.gov/000",
        "https://pubmed.ncbi.nlm.nih.gov/123456789012345678901234",
        "https://crates.io/crates/_serde",
        "https://www.npmjs.com/package/@/x",
        "https://stackoverflow.com/questions/abc",
        "https://redd.it/%E4%B8%AD",
    ] {
        assert_eq!(canonical_id(link), None, "{link}");
        let _ = key(link);
    }
    for link in [
        "https://arxiv.org/abs/é",
        "https://中.wikipedia.org/wiki/中",
        "https://x.com//status/1",
    ] {
        let _ = canonical_id(link);
        let _ = key(link);
    }
}

/// A link of `rule`'s form for the identifier segments `ids` (one per
/// `{id}` of the pattern, or one for `{id+}` or a query parameter).
fn link_for(rule: &Rule, ids: &[String]) -> String {
    let host = rule.hosts[0]
        .replace("*.", "en.")
        .replace('*', "publisher.example");
    let mut ids = ids.iter();
    let mut path = String::new();
    for seg in rule.path.split('/').skip(1) {
        path.push('/');
        if let Some(suffix) = seg
            .strip_prefix("{id+}")
            .or_else(|| seg.strip_prefix("{id}"))
        {
            path.push_str(ids.next().expect("an ID for each capture"));
            path.push_str(suffix);
        } else if seg == "*" {
            path.push_str("x1");
        } else {
            path.push_str(seg.split('|').next().unwrap_or_default());
        }
    }
    match rule.param {
        Some(p) => format!("https://{host}{path}?{p}={}", ids.next().expect("the ID")),
        None => format!("https://{host}{path}"),
    }
}

/// A strategy for the identifier segments of `rule`, in their canonical
/// form (so two different values are two different items).
fn ids_for(rule: &'static Rule) -> proptest::strategy::BoxedStrategy<Vec<String>> {
    use proptest::prelude::*;
    let captures = rule.path.matches("{id").count().max(1);
    let one: BoxedStrategy<String> = match rule.id {
        Id::Digits => "[1-9][0-9]{0,12}".boxed(),
        Id::Pmc => "PMC[1-9][0-9]{0,8}".boxed(),
        Id::Arxiv => prop_oneof![
            "1[5-9]0[1-9]\\.[0-9]{5}",
            "0[7-9]1[0-2]\\.[0-9]{4}",
            "(hep-th|math|cond-mat)/[09][0-9]{6}"
        ]
        .boxed(),
        Id::ArxivDoi => "arxiv\\.2[0-4]0[1-9]\\.[0-9]{5}".boxed(),
        Id::Doi(prefix) if !prefix.is_empty() => "s[0-9]{5}-0[0-9]{2}-[0-9]{4}-[0-9]".boxed(),
        Id::Doi(_) | Id::DoiPath => "10\\.[0-9]{4,5}/[a-z0-9.()-]{1,20}[a-z0-9]".boxed(),
        Id::PreprintDoi => "10\\.1101/20[0-9]{2}\\.[0-9]{2}\\.[0-9]{2}\\.[0-9]{6}".boxed(),
        Id::YouTube => "[A-Za-z0-9_-]{11}".boxed(),
        // `q`: no reserved GitHub path begins with it.
        Id::GitHubRepo if captures == 2 => "q[a-z0-9-]{0,8}".boxed(),
        Id::GitHubRepo => unreachable!("a GitHub rule has two captures"),
        Id::Base36 => "[a-z0-9]{5,9}".boxed(),
        Id::Wiki => "[A-Z][a-z0-9()]{0,12}".boxed(),
        Id::Npm => "[a-z][a-z0-9-]{0,12}".boxed(),
        Id::Crate => "[a-z][a-z0-9-]{0,12}[a-z0-9]".boxed(),
    };
    let scoped = matches!(rule.id, Id::Npm) && captures == 2;
    proptest::collection::vec(one, captures)
        .prop_map(move |mut v| {
            if scoped {
                v[0].insert(0, '@');
            }
            v
        })
        .boxed()
}

/// The identifier as the key writes it, for canonical segments.
fn expected_id(rule: &Rule, ids: &[String]) -> String {
    let joined = ids.join("/");
    match rule.id {
        Id::Doi(prefix) => format!("{prefix}{joined}"),
        Id::ArxivDoi => joined["arxiv.".len()..].to_string(),
        _ => joined,
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]

    /// For every rule: a generated identifier is read back as itself, and
    /// two different identifiers (or a case-changed YouTube ID) never
    /// share a key.
    #[test]
    fn every_rule_keeps_different_ids_apart(
        (r, a, b) in (0..rules::RULES.len()).prop_flat_map(|r| {
            (proptest::strategy::Just(r), ids_for(&rules::RULES[r]), ids_for(&rules::RULES[r]))
        }),
    ) {
        let rule = &rules::RULES[r];
        let (la, lb) = (link_for(rule, &a), link_for(rule, &b));
        let ia = canonical_id(&la);
        proptest::prop_assert!(ia.is_some(), "{} {}: {} matched no rule", rule.ns, rule.form, la);
        let ia = ia.expect("checked");
        proptest::prop_assert_eq!(ia.namespace, rule.ns, "{}", la);
        proptest::prop_assert!(
            ia.id.ends_with(&expected_id(rule, &a)),
            "{} {}: {} read as {}", rule.ns, rule.form, la, ia.id
        );
        if expected_id(rule, &a) != expected_id(rule, &b) {
            proptest::prop_assert_ne!(key(&la), key(&lb), "{} and {}", la, lb);
        } else {
            proptest::prop_assert_eq!(key(&la), key(&lb), "{} and {}", la, lb);
        }
        if matches!(rule.id, Id::YouTube) {
            let flipped: String = a[0]
                .chars()
                .map(|c| if c.is_ascii_lowercase() { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() })
                .collect();
            if flipped != a[0] {
                proptest::prop_assert_ne!(key(&la), key(&link_for(rule, &[flipped])));
            }
        }
    }
}

/// Every rule is reached: the generated check above covers the table, and
/// the rules of one namespace agree on one identifier.
#[test]
fn every_rule_reads_its_own_links() {
    for rule in rules::RULES {
        let ids: Vec<String> = match rule.id {
            Id::Digits => vec!["31978945".into()],
            Id::Pmc => vec!["PMC7092803".into()],
            Id::Arxiv => vec!["1706.03762".into()],
            Id::ArxivDoi => vec!["arXiv.1706.03762".into()],
            Id::Doi(p) if !p.is_empty() => vec!["s41586-020-2649-2".into()],
            Id::Doi(_) | Id::DoiPath => vec!["10.1145/3292500.3330701".into()],
            Id::PreprintDoi => vec!["10.1101/2021.10.04.463034v1".into()],
            Id::YouTube => vec!["dQw4w9WgXcQ".into()],
            Id::GitHubRepo => vec!["rust-lang".into(), "rust".into()],
            Id::Base36 => vec!["18xj2k9".into()],
            Id::Wiki => vec!["Rust".into()],
            Id::Npm if rule.path.matches("{id}").count() == 2 => {
                vec!["@types".into(), "node".into()]
            }
            Id::Npm => vec!["react".into()],
            Id::Crate => vec!["serde".into()],
        };
        let link = link_for(rule, &ids);
        let id = canonical_id(&link).unwrap_or_else(|| panic!("{} {}: {link}", rule.ns, rule.form));
        assert_eq!(id.namespace, rule.ns, "{link}");
        assert!(
            id.form == rule.form || id.rank >= rule.rank,
            "{link}: {id:?}, {} dead",
            rule.form
        );
    }
}
