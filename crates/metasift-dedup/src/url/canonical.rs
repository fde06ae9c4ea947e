//! Canonical identifiers: one item under many links.
//!
//! A paper is `arxiv.org/abs/ID`, `/pdf/IDv7` and
//! `doi.org/10.48550/arXiv.ID`; a video is `youtu.be/ID`, `watch?v=ID` and
//! `/embed/ID`. The URL key of a link that a rule of [`rules::RULES`]
//! recognises is the key of its identifier (namespace and normalised ID),
//! so every link form of one item has one URL key and folds at the URL
//! stage. The rules are data (the table); this module matches them.
//!
//! The matcher reads the link's normalized form (the URL key's text:
//! host lower-cased, `www.` / `m.` / `mobile.` folded, tracking parameters
//! gone, the rest sorted, percent-encoding canonical, no trailing `/`), so
//! a rule never sees those variations. Most links match no rule: a quick
//! look at the host's last two labels (and, for the publishers' `/doi/`
//! paths, the path's start) turns them away before any rule is tried.
//!
//! Never fold neighbours: a different ID, language, Stack Exchange site or
//! path kind (a repository's issue, a Reddit comment, an arXiv listing) is
//! either another identifier or no rule's link at all.

use std::sync::OnceLock;

use super::UrlKey;

mod rules;

/// One link form of one kind of identifier (a row of [`rules::RULES`]).
#[derive(Debug)]
pub(crate) struct Rule {
    /// The identifier's namespace (`arxiv`, `doi`, `youtube`, …): what a
    /// verdict and `explain` name.
    pub(crate) ns: &'static str,
    /// The link form's name (`abs`, `pdf`, `embed`, …).
    pub(crate) form: &'static str,
    hosts: &'static [&'static str],
    path: &'static str,
    param: Option<&'static str>,
    query: Query,
    id: Id,
    scope: Scope,
    /// Higher is the more useful link to show.
    pub(crate) rank: u8,
}

/// Which query parameters a link form may carry besides the identifier's.
#[derive(Debug, Clone, Copy)]
enum Query {
    /// Any: the identifier alone names the item.
    Any,
    /// None: any other parameter makes another view of it.
    None,
    /// Only these: `name` (any value) or `name=value`.
    Only(&'static [&'static str]),
}

/// What of the host is part of the identity.
#[derive(Debug, Clone, Copy)]
enum Scope {
    /// Nothing: one namespace over all the rule's hosts.
    Global,
    /// The whole host (each Stack Exchange site is its own).
    Host,
    /// The host's first label (a Wikipedia's language).
    Label,
}

/// How a captured identifier is checked and normalised.
#[derive(Debug, Clone, Copy)]
enum Id {
    /// Decimal digits (PubMed, Stack Exchange, tweets), leading zeros gone.
    Digits,
    /// `PMC` and digits, any case.
    Pmc,
    /// An arXiv ID, new (`2301.00001`) or old (`hep-th/9901001`); the
    /// version and an old ID's subject class go, `.pdf` too.
    Arxiv,
    /// arXiv's DOI suffix (`arXiv.2301.00001`).
    ArxivDoi,
    /// A DOI after this prefix (case-insensitive: lower-cased).
    Doi(&'static str),
    /// A DOI in a publisher's path, a trailing view (`/full`, `/pdf`, …)
    /// dropped.
    DoiPath,
    /// A bioRxiv / medRxiv DOI, its version and view suffixes dropped.
    PreprintDoi,
    /// Eleven characters of `A-Z a-z 0-9 - _`, case kept.
    YouTube,
    /// `owner/repo`, case-insensitive, `.git` dropped, not a reserved path.
    GitHubRepo,
    /// Base-36 (Reddit post IDs), lower-cased.
    Base36,
    /// A MediaWiki title: `_` ≡ space, escapes decoded, first letter
    /// upper-case.
    Wiki,
    /// An npm package name (`@scope/name` over two segments), case kept.
    Npm,
    /// A crate name: case-insensitive, `-` ≡ `_`.
    Crate,
}

/// A link's canonical identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanonicalId {
    /// The identifier's namespace (`arxiv`, `doi`, `youtube`, …).
    pub namespace: &'static str,
    /// The link form the rule matched (`abs`, `pdf`, `embed`, …).
    pub form: &'static str,
    /// The form's rank: the higher, the more useful a link to show.
    pub rank: u8,
    /// The identifier as the URL key hashes it: the namespace, the site or
    /// language where it is part of the identity, and the normalised ID
    /// (`arxiv:2301.00001`, `wikipedia:en:Rust_(programming_language)`).
    pub id: String,
}

/// The canonical identifier of `link`, if a rule recognises it.
pub fn canonical_id(link: &str) -> Option<CanonicalId> {
    let normalized = super::normalize(link)?;
    let host_end = 8 + super::find_byte(&normalized[8..], b"/?#");
    let mut out = String::new();
    let rule = rewrite(&normalized, host_end, &mut out)?;
    Some(CanonicalId {
        namespace: rule.ns,
        form: rule.form,
        rank: rule.rank,
        id: out.split_off(1),
    })
}

/// How useful `link` is to show for its item, when a rule recognises it:
/// its form's rank first (the abstract page over the PDF, the watch page
/// over the embed, the repository over its `.git`), then `https` over
/// `http`, then a desktop host over a mobile one. `None` for a link no
/// rule knows. The kept result of a group shows its most useful link.
pub fn link_rank(link: &str) -> Option<u32> {
    let id = canonical_id(link)?;
    let target = super::unwrapped(link);
    let t = target.trim();
    let https = super::strip_prefix_ci(t, "https:").is_some();
    let rest = t.split_once("//").map_or(t, |(_, r)| r);
    let host = &rest[..super::find_byte(rest, b"/?#")];
    let mobile = host
        .split('.')
        .any(|l| l.eq_ignore_ascii_case("m") || l.eq_ignore_ascii_case("mobile"));
    Some(u32::from(id.rank) * 4 + u32::from(https) * 2 + u32::from(!mobile))
}

/// Whether `candidate` is a more useful link to show than `current` for
/// one item: both are forms a rule knows and `candidate` ranks higher
/// ([`link_rank`]). Ties and links no rule knows keep `current`.
pub fn more_useful_link(candidate: &str, current: &str) -> bool {
    match (link_rank(candidate), link_rank(current)) {
        (Some(c), Some(k)) => c > k,
        _ => false,
    }
}

/// The URL key of the normalized link `normalized` (host ending at
/// `host_end`) when a rule recognises it, with the rule. The common case,
/// a link no rule can match, costs a look at the host's last two labels.
#[inline]
pub(crate) fn key(normalized: &str, host_end: usize) -> Option<(UrlKey, &'static Rule)> {
    let host = normalized.as_bytes().get(8..host_end)?;
    let path = normalized.as_bytes().get(host_end..).unwrap_or_default();
    if !prefilter().may_match(host, path) {
        return None;
    }
    matched_key(normalized, host_end)
}

/// [`key`] past the quick test: the rules tried (out of line, the rare case).
#[cold]
#[inline(never)]
fn matched_key(normalized: &str, host_end: usize) -> Option<(UrlKey, &'static Rule)> {
    let mut out = String::new();
    let rule = rewrite(normalized, host_end, &mut out)?;
    Some((super::key_of_normalized(&out), rule))
}

/// Writes the key text of the first rule matching `normalized` into `out`
/// (a space, which no other key text begins with, then the identifier).
fn rewrite(normalized: &str, host_end: usize, out: &mut String) -> Option<&'static Rule> {
    let host = normalized.get(8..host_end)?;
    let after = &normalized[host_end..];
    let after = after.split_once('#').map_or(after, |(a, _)| a);
    let (path, query) = after.split_once('?').unwrap_or((after, ""));
    for rule in rules::RULES {
        let Some(label) = rule.hosts.iter().find_map(|h| host_matches(h, host)) else {
            continue;
        };
        out.clear();
        out.push(' ');
        out.push_str(rule.ns);
        out.push(':');
        match rule.scope {
            Scope::Global => {}
            Scope::Host => {
                out.push_str(host);
                out.push(':');
            }
            Scope::Label => {
                let first = label.unwrap_or(host);
                out.push_str(first.split('.').next().unwrap_or(first));
                out.push(':');
            }
        }
        if matches_rule(rule, path, query, out) {
            return Some(rule);
        }
    }
    None
}

/// Whether `host` matches the pattern `pat`: `Some(label)` with the labels
/// a `*.` stood for (`None` for an exact match).
fn host_matches<'a>(pat: &str, host: &'a str) -> Option<Option<&'a str>> {
    if pat == "*" {
        return Some(None);
    }
    match pat.strip_prefix("*.") {
        Some(suffix) => {
            let head = host.strip_suffix(suffix)?.strip_suffix('.')?;
            (!head.is_empty()).then_some(Some(head))
        }
        None => (pat == host).then_some(None),
    }
}

/// Matches the rule's path and query; on a match the normalised ID is
/// appended to `out`.
fn matches_rule(rule: &Rule, path: &str, query: &str, out: &mut String) -> bool {
    let Some(captured) = match_path(rule.path, path) else {
        return false;
    };
    let mut from_query = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        if rule.param == Some(name) {
            if from_query.is_none() {
                from_query = Some(value);
            }
            continue;
        }
        let allowed = match rule.query {
            Query::Any => true,
            Query::None => false,
            Query::Only(list) => list.iter().any(|&a| match a.split_once('=') {
                Some((n, v)) => n == name && v == value,
                None => a == name,
            }),
        };
        if !allowed {
            return false;
        }
    }
    let (raw, in_query) = match rule.param {
        Some(_) => match from_query {
            Some(v) if captured.is_empty() => (v, true),
            _ => return false,
        },
        None => (captured.as_str(), false),
    };
    !raw.is_empty() && normalize_id(rule.id, raw, in_query, out)
}

/// The captured segments of `path` by the pattern `pat`, joined by `/`
/// (empty for a pattern without captures); `None` when it does not match.
fn match_path(pat: &str, path: &str) -> Option<String> {
    fn capture(s: &str, captured: &mut String) {
        if !captured.is_empty() {
            captured.push('/');
        }
        captured.push_str(s);
    }
    let mut segs = path.split('/').skip(1);
    let mut captured = String::new();
    if path.is_empty() {
        // The root: only an empty pattern matches.
        return pat.is_empty().then_some(captured);
    }
    for p in pat.split('/').skip(1) {
        if let Some(suffix) = p.strip_prefix("{id+}") {
            let rest: Vec<&str> = segs.by_ref().collect();
            if rest.is_empty() || rest.iter().any(|s| s.is_empty()) {
                return None;
            }
            let joined = rest.join("/");
            let id = joined.strip_suffix(suffix)?;
            if id.is_empty() || id.ends_with('/') {
                return None;
            }
            capture(id, &mut captured);
            return Some(captured);
        }
        let seg = segs.next()?;
        if seg.is_empty() {
            return None;
        }
        if let Some(suffix) = p.strip_prefix("{id}") {
            let id = seg.strip_suffix(suffix)?;
            if id.is_empty() {
                return None;
            }
            capture(id, &mut captured);
        } else if p != "*" && !p.split('|').any(|alt| alt == seg) {
            return None;
        }
    }
    segs.next().is_none().then_some(captured)
}

/// `raw` (as the normalized link has it: canonical percent-escapes; in a
/// query, `+` is a space) checked and normalised into `out`.
fn normalize_id(id: Id, raw: &str, in_query: bool, out: &mut String) -> bool {
    match id {
        Id::Digits => push_digits(raw, out),
        Id::Pmc => {
            let digits = match raw.get(..3) {
                Some(p) if p.eq_ignore_ascii_case("pmc") => &raw[3..],
                _ => return false,
            };
            out.push_str("PMC");
            push_digits(digits, out)
        }
        Id::Arxiv => push_arxiv(raw.strip_suffix(".pdf").unwrap_or(raw), out),
        Id::ArxivDoi => match raw.get(..6) {
            Some(p) if p.eq_ignore_ascii_case("arxiv.") => push_arxiv(&raw[6..], out),
            _ => false,
        },
        Id::Doi(prefix) => push_doi(prefix, raw, out),
        Id::DoiPath => {
            let mut doi = raw;
            for view in ["/abstract", "/full", "/pdf", "/epdf", "/summary", "/meta"] {
                if let Some(d) = doi.strip_suffix(view) {
                    doi = d;
                    break;
                }
            }
            push_doi("", doi, out)
        }
        Id::PreprintDoi => {
            let mut doi = raw;
            for view in [
                ".full.pdf",
                ".full-text",
                ".full",
                ".abstract",
                ".article-info",
            ] {
                if let Some(d) = doi.strip_suffix(view) {
                    doi = d;
                    break;
                }
            }
            push_doi("", strip_version(doi), out)
        }
        Id::YouTube => {
            let ok = raw.len() == 11
                && raw
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            ok && {
                out.push_str(raw);
                true
            }
        }
        Id::GitHubRepo => push_github(raw, out),
        Id::Base36 => {
            let ok =
                (1..=13).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_alphanumeric());
            ok && {
                out.extend(raw.bytes().map(|b| char::from(b.to_ascii_lowercase())));
                true
            }
        }
        Id::Wiki => push_wiki(raw, in_query, out),
        Id::Npm => push_npm(raw, out),
        Id::Crate => {
            let ok = (1..=64).contains(&raw.len())
                && raw.as_bytes()[0].is_ascii_alphabetic()
                && raw
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            ok && {
                out.extend(raw.bytes().map(|b| match b {
                    b'_' => '-',
                    b => char::from(b.to_ascii_lowercase()),
                }));
                true
            }
        }
    }
}

/// Decimal digits, leading zeros dropped (not all zeros, at most 20).
fn push_digits(raw: &str, out: &mut String) -> bool {
    let d = raw.trim_start_matches('0');
    let ok = !d.is_empty() && d.len() <= 20 && d.bytes().all(|b| b.is_ascii_digit());
    ok && {
        out.push_str(d);
        true
    }
}

/// `raw` less a version suffix `vN` after a digit.
fn strip_version(raw: &str) -> &str {
    let b = raw.as_bytes();
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let v = b.len().wrapping_sub(digits + 1);
    if digits > 0 && v > 0 && v < b.len() && b[v] == b'v' && b[v - 1].is_ascii_digit() {
        &raw[..v]
    } else {
        raw
    }
}

/// An arXiv ID: `YYMM.NNNN(N)` or `archive(.XX)/YYMMNNN`, version dropped.
fn push_arxiv(raw: &str, out: &mut String) -> bool {
    let id = strip_version(raw);
    if !id.contains('/') {
        let Some((yymm, num)) = id.split_once('.') else {
            return false;
        };
        let month = yymm.get(2..).and_then(|m| m.parse::<u8>().ok());
        let ok = yymm.len() == 4
            && yymm.bytes().all(|b| b.is_ascii_digit())
            && month.is_some_and(|m| (1..=12).contains(&m))
            // Four digits until 2014, five from 1501 on.
            && num.len() == if yymm >= "1501" { 5 } else { 4 }
            && num.bytes().all(|b| b.is_ascii_digit());
        return ok && {
            out.push_str(id);
            true
        };
    }
    let Some((archive, num)) = id.split_once('/') else {
        return false;
    };
    // The subject class (`math.GT/…`) is not part of the identifier.
    let archive = archive.split_once('.').map_or(archive, |(a, _)| a);
    let ok = !archive.is_empty()
        && archive
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'-')
        && num.len() == 7
        && num.bytes().all(|b| b.is_ascii_digit());
    ok && {
        out.extend(archive.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        out.push('/');
        out.push_str(num);
        true
    }
}

/// A DOI (`10.` registrant `/` suffix), escapes decoded, lower-cased:
/// DOIs are case-insensitive.
fn push_doi(prefix: &str, raw: &str, out: &mut String) -> bool {
    let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
    let doi = format!("{prefix}{decoded}");
    let Some((registrant, suffix)) = doi.split_once('/') else {
        return false;
    };
    let ok = registrant
        .strip_prefix("10.")
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        && !suffix.is_empty()
        && !suffix.chars().any(char::is_whitespace);
    ok && {
        out.push_str(&doi.to_lowercase());
        true
    }
}

/// Paths under `github.com/` that are GitHub's own pages, not owners.
const GITHUB_RESERVED: &[&str] = &[
    "about",
    "account",
    "apps",
    "blog",
    "codespaces",
    "collections",
    "contact",
    "copilot",
    "customer-stories",
    "dashboard",
    "enterprise",
    "events",
    "explore",
    "features",
    "issues",
    "join",
    "login",
    "logout",
    "marketplace",
    "new",
    "notifications",
    "orgs",
    "organizations",
    "pricing",
    "pulls",
    "readme",
    "search",
    "security",
    "sessions",
    "settings",
    "signup",
    "site",
    "sponsors",
    "stars",
    "team",
    "topics",
    "trending",
    "users",
    "watching",
];

/// `owner/repo`, lower-cased, `.git` dropped.
fn push_github(raw: &str, out: &mut String) -> bool {
    let Some((owner, repo)) = raw.split_once('/') else {
        return false;
    };
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    let ok = (1..=39).contains(&owner.len())
        && owner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !GITHUB_RESERVED
            .iter()
            .any(|r| r.eq_ignore_ascii_case(owner))
        && (1..=100).contains(&repo.len())
        && repo != "."
        && repo != ".."
        && repo
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    ok && {
        out.extend(owner.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        out.push('/');
        out.extend(repo.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        true
    }
}

/// A MediaWiki title as its canonical link writes it: escapes decoded,
/// spaces as `_`, runs of them one, none at either end, the first letter
/// upper-case (Wikipedia's titles are case-sensitive after it).
fn push_wiki(raw: &str, in_query: bool, out: &mut String) -> bool {
    let plus = if in_query {
        raw.replace('+', " ")
    } else {
        raw.to_string()
    };
    let Ok(decoded) = percent_encoding::percent_decode_str(&plus).decode_utf8() else {
        return false;
    };
    let mut words = decoded.split(['_', ' ']).filter(|w| !w.is_empty());
    let Some(first) = words.next() else {
        return false;
    };
    if decoded
        .chars()
        .any(|c| c.is_control() || matches!(c, '#' | '<' | '>' | '[' | ']' | '{' | '}' | '|'))
    {
        return false;
    }
    let mut chars = first.chars();
    if let Some(c) = chars.next() {
        out.extend(c.to_uppercase());
        out.push_str(chars.as_str());
    }
    for w in words {
        out.push('_');
        out.push_str(w);
    }
    true
}

/// An npm package name: `name` or `@scope/name`, escapes decoded.
fn push_npm(raw: &str, out: &mut String) -> bool {
    let Ok(name) = percent_encoding::percent_decode_str(raw).decode_utf8() else {
        return false;
    };
    let part_ok = |p: &str| {
        !p.is_empty()
            && p.len() <= 214
            && !p.starts_with('.')
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
    };
    let ok = match name.split_once('/') {
        Some((scope, pkg)) => scope
            .strip_prefix('@')
            .is_some_and(|s| part_ok(s) && part_ok(pkg)),
        None => part_ok(&name),
    };
    ok && {
        out.push_str(&name);
        true
    }
}

/// The quick test of [`key`]: the sites (a host's last two labels) the
/// rules name, in 256 buckets by a cheap hash, and the path prefixes of
/// the rules for any host.
struct Prefilter {
    buckets: Vec<Vec<&'static str>>,
    bits: [u64; 4],
    any_host_paths: Vec<&'static str>,
}

fn prefilter() -> &'static Prefilter {
    static P: OnceLock<Prefilter> = OnceLock::new();
    P.get_or_init(|| {
        let mut p = Prefilter {
            buckets: vec![Vec::new(); 256],
            bits: [0; 4],
            any_host_paths: Vec::new(),
        };
        for rule in rules::RULES {
            for &h in rule.hosts {
                if h == "*" {
                    // The pattern's literal head (`/doi/`).
                    let end = rule.path.find(['{', '*', '|']).unwrap_or(rule.path.len());
                    let head = &rule.path[..rule.path[..end].rfind('/').map_or(0, |i| i + 1)];
                    if !p.any_host_paths.contains(&head) {
                        p.any_host_paths.push(head);
                    }
                    continue;
                }
                let site = last_two_labels(h.trim_start_matches("*.").as_bytes());
                let site = &h[h.len() - site.len()..];
                let b = bucket(site.as_bytes());
                if !p.buckets[b].contains(&site) {
                    p.buckets[b].push(site);
                    p.bits[b >> 6] |= 1 << (b & 63);
                }
            }
        }
        p
    })
}

impl Prefilter {
    #[inline(always)]
    fn may_match(&self, host: &[u8], path: &[u8]) -> bool {
        let site = last_two_labels(host);
        let b = bucket(site);
        if self.bits[b >> 6] & (1 << (b & 63)) != 0
            && self.buckets[b].iter().any(|s| s.as_bytes() == site)
        {
            return true;
        }
        self.any_host_paths
            .iter()
            .any(|p| path.starts_with(p.as_bytes()))
    }
}

/// The host's last two labels (all of it when it has fewer).
#[inline(always)]
fn last_two_labels(host: &[u8]) -> &[u8] {
    let Some(last) = host.iter().rposition(|&c| c == b'.') else {
        return host;
    };
    match host[..last].iter().rposition(|&c| c == b'.') {
        Some(i) => &host[i + 1..],
        None => host,
    }
}

#[inline(always)]
fn bucket(site: &[u8]) -> usize {
    match site {
        [first, .., last] => {
            (site.len().wrapping_mul(37) ^ usize::from(*first).wrapping_mul(7) ^ usize::from(*last))
                & 255
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests;
