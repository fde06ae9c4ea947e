//! What a query's time range and safe-search level do to one engine.
//!
//! Each engine is one of four things for a time range:
//!
//! - **passed**: its `[engine.time_range]` has a value for the range asked,
//!   which [`apply`] puts into the request (parameter, cookie, header or the
//!   url's `{time_range}`); when it also gives dates, [`keep_in_range`]
//!   drops the results it dates before the day the range starts (the day
//!   is what such engines are sent) and keeps its undated ones, which it
//!   filtered;
//! - **checked here**: it has no value for the range but gives dates
//!   (`feed`, `searxng`, or a `parse.date`): it is asked as usual and
//!   [`keep_in_range`] drops every result dated before the range's start —
//!   a bare date (`2024-07-12`) counts as its whole day — and every result
//!   without a date, since nothing shows it belongs (docs/decisions.md,
//!   "Time range and safe search");
//! - **timeless**: its answers are not dated documents — boxes and direct
//!   answers about an entity (an engine whose parse table reads no result
//!   list), or places (`map.html`) — so a time range does not concern it:
//!   it is asked as usual and nothing is dropped;
//! - **left out**: none of these; [`left_out`] says so, and the search
//!   reports it (`unresponsive_engines`, the page) instead of showing
//!   results the searcher asked to be without.
//!
//! For safe search, level 2 (strict) leaves out every engine whose
//! `[engine.safesearch]` has no value for it and is not `always_filtered`;
//! levels 0 and 1 are passed where a value exists, and elsewhere the engine's
//! own default applies (most filter moderately), which `/config` tells.
//!
//! Pure: the moment of the request is handed in, so tests fix the clock.

use std::time::SystemTime;

use super::{Hit, RequestSpec};
use crate::config::{Carrier, EngineConfig, EngineKind, fill_dates, range_start};
use crate::model::{FailureKind, Query, Template};

/// How an engine meets a time range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeRangeWay {
    /// Sent to the engine as its own value.
    Passed,
    /// Not sent; the results' dates are checked here.
    Checked,
    /// Not sent and nothing to check: its answers carry no date by nature
    /// (boxes about an entity, places).
    Timeless,
    /// Neither: the engine is left out.
    Unable,
}

/// How `engine` meets the time range `range` (`day` … `year`).
pub fn time_range_way(engine: &EngineConfig, range: &str) -> TimeRangeWay {
    if engine
        .time_range
        .as_ref()
        .and_then(|m| m.value(range))
        .is_some()
    {
        TimeRangeWay::Passed
    } else if timeless(engine) {
        TimeRangeWay::Timeless
    } else if gives_dates(engine) {
        TimeRangeWay::Checked
    } else {
        TimeRangeWay::Unable
    }
}

/// Whether the engine's results carry publication dates: feeds (RSS
/// `pubDate`, Atom `updated`), SearXNG answers (`publishedDate`) and any
/// engine whose parse table names a `date`.
pub fn gives_dates(engine: &EngineConfig) -> bool {
    engine.parse.date.is_some() || matches!(engine.kind, EngineKind::Feed | EngineKind::Searxng)
}

/// Whether the engine's answers are not dated documents, so that a time
/// range does not concern them: infoboxes and direct answers (a `json`
/// engine whose parse table reads no result list), or places (`map.html`).
pub fn timeless(engine: &EngineConfig) -> bool {
    let boxes_only = engine.kind == EngineKind::Json
        && engine.parse.results.is_none()
        && (engine.parse.infobox.is_some() || engine.parse.answer.is_some());
    boxes_only || engine.template == Some(Template::Map)
}

/// Whether a time range can be sent to the engine (`/config`'s
/// `time_range_support`).
pub fn takes_time_range(engine: &EngineConfig) -> bool {
    engine.time_range.is_some()
}

/// Whether a safe-search level can be sent to the engine, or it filters
/// adult content by itself (`/config`'s `safesearch`).
pub fn takes_safesearch(engine: &EngineConfig) -> bool {
    engine.safesearch.is_some()
}

/// Why the engine is not asked `query` at all, if it is not: a strict safe
/// search it cannot honour, or a time range it can neither be asked for nor
/// be checked against.
pub fn left_out(engine: &EngineConfig, query: &Query) -> Option<(FailureKind, &'static str)> {
    if query.safesearch == Some(2)
        && !engine
            .safesearch
            .as_ref()
            .is_some_and(|m| m.honours_strict())
    {
        return Some((
            FailureKind::NoSafeSearch,
            "left out: cannot filter adult content",
        ));
    }
    if let Some(range) = &query.time_range
        && time_range_way(engine, range) == TimeRangeWay::Unable
    {
        return Some((FailureKind::NoTimeRange, "left out: cannot filter by date"));
    }
    None
}

/// `spec` (the request the engine's kind built for `query`) with the
/// query's time range and safe-search level added the way the engine's
/// tables say, dates computed at `now`; a `{time_range}` / `{safesearch}`
/// of the url is emptied when nothing is sent.
pub fn apply(
    mut spec: RequestSpec,
    engine: &EngineConfig,
    query: &Query,
    now: SystemTime,
) -> RequestSpec {
    let now = jiff::Timestamp::try_from(now).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let time_range = query.time_range.as_deref().and_then(|range| {
        let map = engine.time_range.as_ref()?;
        let value = map.value(range)?;
        let since = range_start(range, now)?;
        // Checked at load with a probe date: a refusal now is a clock past
        // what `strftime` writes, and then nothing is sent.
        let filled = fill_dates(value, since, now).ok()?;
        Some((map.carrier(), filled))
    });
    let safesearch = query.safesearch.and_then(|level| {
        let map = engine.safesearch.as_ref()?;
        let value = map.value(level)?;
        let filled = fill_dates(value, now, now).ok()?;
        Some((map.carrier(), filled))
    });
    for (placeholder, sent) in [("{time_range}", &time_range), ("{safesearch}", &safesearch)] {
        if spec.url.contains(placeholder) {
            let value = match sent {
                Some((Carrier::Placeholder, v)) => form_encoded(v),
                _ => String::new(),
            };
            spec.url = spec.url.replace(placeholder, &value);
        }
    }
    for (carrier, value) in [time_range, safesearch].into_iter().flatten() {
        match carrier {
            Carrier::Placeholder => {}
            Carrier::Param(name) => {
                let sep = if spec.url.contains('?') { '&' } else { '?' };
                spec.url = format!(
                    "{}{sep}{}={}",
                    spec.url,
                    form_encoded(name),
                    form_encoded(&value)
                );
            }
            Carrier::Cookie(name) => {
                let pair = format!("{name}={value}");
                match spec
                    .headers
                    .iter_mut()
                    .find(|(k, _)| k.eq_ignore_ascii_case("cookie"))
                {
                    Some((_, v)) => *v = format!("{v}; {pair}"),
                    None => spec.headers.push(("Cookie".into(), pair)),
                }
            }
            Carrier::Header(name) => {
                spec.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
                spec.headers.push((name.to_string(), value));
            }
        }
    }
    spec
}

fn form_encoded(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The hits of `engine`'s answer to `query` that may be shown, and how many
/// were dropped, at `now`. When the engine's dates are checked here
/// ([`TimeRangeWay::Checked`]): those dated before the range's start (a
/// bare date, written at midnight, before the start's day) and those
/// without a date. When the range was passed to an engine that gives dates:
/// those dated before the day the range starts — what it shows must agree
/// with what was asked, whatever its own notion of a date — and none of its
/// undated ones. Otherwise all of them.
pub fn keep_in_range(
    engine: &EngineConfig,
    query: &Query,
    mut hits: Vec<Hit>,
    now: SystemTime,
) -> (Vec<Hit>, usize) {
    let Some(range) = query.time_range.as_deref() else {
        return (hits, 0);
    };
    let passed = match time_range_way(engine, range) {
        TimeRangeWay::Checked => false,
        TimeRangeWay::Passed if gives_dates(engine) => true,
        _ => return (hits, 0),
    };
    let now = jiff::Timestamp::try_from(now).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let Some(start) = range_start(range, now) else {
        return (hits, 0);
    };
    const DAY: i64 = 86_400;
    let start_day =
        jiff::Timestamp::from_second(start.as_second().div_euclid(DAY) * DAY).unwrap_or(start);
    let before = hits.len();
    hits.retain(|h| {
        match h
            .published
            .as_deref()
            .and_then(|p| p.parse::<jiff::Timestamp>().ok())
        {
            None => passed,
            Some(t) if passed || t.as_second().rem_euclid(DAY) == 0 => t >= start_day,
            Some(t) => t >= start,
        }
    });
    let dropped = before - hits.len();
    (hits, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(extra: &str) -> EngineConfig {
        let text = format!(
            "name = \"e\"\nkind = \"html\"\nurl = \"https://e.example/s?q={{query}}\"\n{extra}\n[parse]\nresults = \"li\"\ntitle = \"a\"\nurl = \"a@href\"\n"
        );
        toml::from_str(&text).unwrap()
    }

    fn at(s: &str) -> SystemTime {
        let t: jiff::Timestamp = s.parse().unwrap();
        SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(t.as_second() as u64)
    }

    fn query(range: Option<&str>, level: Option<u8>) -> Query {
        Query {
            text: "rust".into(),
            page: 1,
            time_range: range.map(str::to_string),
            safesearch: level,
            ..Query::default()
        }
    }

    fn spec(e: &EngineConfig) -> RequestSpec {
        RequestSpec {
            url: e.url.replace("{query}", "rust"),
            headers: e
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    #[test]
    fn values_go_as_a_parameter_a_cookie_a_header_or_into_the_url() {
        let now = at("2024-07-13T19:09:59Z");
        let e = engine(
            "headers = { Cookie = \"a=1\" }\n[time_range]\nparam = \"df\"\nday = \"d\"\nyear = \"since {since:%Y-%m-%d}\"\n[safesearch]\ncookie = \"kp\"\n0 = \"-2\"\n2 = \"1\"\n",
        );
        let out = apply(spec(&e), &e, &query(Some("day"), Some(2)), now);
        assert_eq!(out.url, "https://e.example/s?q=rust&df=d");
        assert_eq!(out.headers, vec![("Cookie".into(), "a=1; kp=1".into())]);
        let out = apply(spec(&e), &e, &query(Some("year"), None), now);
        assert_eq!(out.url, "https://e.example/s?q=rust&df=since+2023-07-13");
        assert_eq!(out.headers, vec![("Cookie".into(), "a=1".into())]);
        // A level without a value sends nothing.
        let out = apply(spec(&e), &e, &query(Some("week"), Some(1)), now);
        assert_eq!(out, spec(&e));

        let e = engine(
            "[time_range]\nday = \" when:1d\"\n[safesearch]\nheader = \"X-Safe\"\n2 = \"strict\"\n",
        );
        let e = EngineConfig {
            url: "https://e.example/s?q={query}{time_range}&x=1".into(),
            ..e
        };
        let out = apply(spec(&e), &e, &query(Some("day"), Some(2)), now);
        assert_eq!(out.url, "https://e.example/s?q=rust+when%3A1d&x=1");
        assert_eq!(out.headers, vec![("X-Safe".into(), "strict".into())]);
        let out = apply(spec(&e), &e, &query(None, None), now);
        assert_eq!(out.url, "https://e.example/s?q=rust&x=1");
    }

    #[test]
    fn engines_that_cannot_honour_are_left_out_and_say_why() {
        let plain = engine("");
        assert_eq!(left_out(&plain, &query(None, None)), None);
        assert_eq!(left_out(&plain, &query(None, Some(1))), None);
        assert_eq!(
            left_out(&plain, &query(None, Some(2))).map(|l| l.0),
            Some(FailureKind::NoSafeSearch)
        );
        assert_eq!(
            left_out(&plain, &query(Some("day"), None)).map(|l| l.0),
            Some(FailureKind::NoTimeRange)
        );
        let filtered = engine("[safesearch]\nalways_filtered = true\n");
        assert_eq!(left_out(&filtered, &query(None, Some(2))), None);
        let moderate_only = engine("[safesearch]\nparam = \"safe\"\n1 = \"1\"\n");
        assert!(left_out(&moderate_only, &query(None, Some(2))).is_some());
        // Dates make a time range checkable here.
        let dated = EngineConfig {
            kind: EngineKind::Feed,
            parse: Default::default(),
            ..plain.clone()
        };
        assert_eq!(time_range_way(&dated, "day"), TimeRangeWay::Checked);
        assert_eq!(left_out(&dated, &query(Some("day"), None)), None);
        let yearless = engine("[time_range]\nparam = \"btf\"\nday = \"d\"\n");
        assert_eq!(time_range_way(&yearless, "day"), TimeRangeWay::Passed);
        assert_eq!(time_range_way(&yearless, "year"), TimeRangeWay::Unable);
    }

    #[test]
    fn checked_results_keep_the_dated_ones_inside_the_range() {
        let now = at("2024-07-13T12:00:00Z");
        let dated = EngineConfig {
            kind: EngineKind::Feed,
            parse: Default::default(),
            ..engine("")
        };
        let hit = |date: Option<&str>| Hit {
            url: format!("https://a.example/{date:?}"),
            title: "t".into(),
            published: date.map(str::to_string),
            ..Hit::default()
        };
        let hits = vec![
            hit(Some("2024-07-13T08:00:00Z")),
            hit(Some("2024-07-12T11:59:59Z")),
            hit(None),
            hit(Some("2024-07-12T12:00:00Z")),
        ];
        let (kept, dropped) = keep_in_range(&dated, &query(Some("day"), None), hits.clone(), now);
        assert_eq!(dropped, 2);
        assert_eq!(kept, vec![hits[0].clone(), hits[3].clone()]);
        let (kept, dropped) = keep_in_range(&dated, &query(Some("week"), None), hits.clone(), now);
        assert_eq!((kept.len(), dropped), (3, 1));
        // A bare date is its whole day: 12 July holds the start (12:00).
        let bare = vec![
            hit(Some("2024-07-12T00:00:00Z")),
            hit(Some("2024-07-11T00:00:00Z")),
        ];
        let (kept, dropped) = keep_in_range(&dated, &query(Some("day"), None), bare.clone(), now);
        assert_eq!((kept, dropped), (vec![bare[0].clone()], 1));

        // An engine that was passed the range keeps its undated results and
        // what it dates from the day the range starts; older dates go.
        let passed = EngineConfig {
            time_range: engine("[time_range]\nparam = \"df\"\nday = \"d\"\n").time_range,
            ..dated.clone()
        };
        let mut with_old = hits.clone();
        with_old.push(hit(Some("2024-07-11T23:59:59Z")));
        with_old.push(hit(Some("2023-01-01T00:00:00Z")));
        let (kept, dropped) =
            keep_in_range(&passed, &query(Some("day"), None), with_old.clone(), now);
        assert_eq!((kept, dropped), (hits.clone(), 2));
        // One that gives no dates is taken at its word.
        let undated_passed = EngineConfig {
            kind: EngineKind::Html,
            ..passed.clone()
        };
        let (kept, dropped) =
            keep_in_range(&undated_passed, &query(Some("day"), None), with_old, now);
        assert_eq!((kept.len(), dropped), (6, 0));
        let (_, dropped) = keep_in_range(&passed, &query(None, None), hits, now);
        assert_eq!(dropped, 0);
    }

    #[test]
    fn boxes_and_places_are_not_concerned_by_a_time_range() {
        let boxes: EngineConfig = toml::from_str(
            "name = \"b\"\nkind = \"json\"\nurl = \"https://b.example/?q={query}\"\n[parse]\nanswer = \"/Answer\"\n[parse.infobox]\ntitle = \"Heading\"\nid = \"AbstractURL\"\n",
        )
        .unwrap();
        assert!(timeless(&boxes));
        assert_eq!(time_range_way(&boxes, "week"), TimeRangeWay::Timeless);
        assert_eq!(left_out(&boxes, &query(Some("week"), None)), None);
        // Strict safe search still asks for a table.
        assert!(left_out(&boxes, &query(Some("week"), Some(2))).is_some());
        // A json engine that reads a result list is not: it gives no dates.
        let list: EngineConfig = toml::from_str(
            "name = \"l\"\nkind = \"json\"\nurl = \"https://l.example/?q={query}\"\n[parse]\nresults = \"/r\"\ntitle = \"t\"\nurl = \"u\"\n",
        )
        .unwrap();
        assert!(!timeless(&list));
        assert_eq!(time_range_way(&list, "week"), TimeRangeWay::Unable);
        let places = EngineConfig {
            template: Some(Template::Map),
            ..list
        };
        assert_eq!(time_range_way(&places, "year"), TimeRangeWay::Timeless);
        let hits = vec![Hit {
            url: "https://www.openstreetmap.org/node/1".into(),
            title: "Ottawa".into(),
            ..Hit::default()
        }];
        let now = at("2024-07-13T12:00:00Z");
        let (kept, dropped) = keep_in_range(&places, &query(Some("day"), None), hits.clone(), now);
        assert_eq!((kept, dropped), (hits, 0));
    }
}
