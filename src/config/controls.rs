//! `[engine.time_range]` and `[engine.safesearch]`: how a query's time range
//! (`day` / `week` / `month` / `year`) and safe-search level (`0` off, `1`
//! moderate, `2` strict) reach one engine — as its own URL parameter, cookie
//! or header, or through a `{time_range}` / `{safesearch}` placeholder of its
//! `url` — and so whether it can honour them at all. An engine without a
//! table, or without a value for the level asked, cannot; `engines::restrict`
//! decides what happens then (the fused list is filtered by date, or the
//! engine is left out, said on the page).
//!
//! A value may hold dates computed when the request is made, because some
//! engines take a start date rather than a named range: `{since:FMT}` is the
//! start of the range asked (now minus a day, a week, a calendar month or a
//! calendar year, in UTC) and `{now:FMT}` the moment of the request, each
//! written by the `strftime` format `FMT` (`%Y-%m-%d`, `%Y%m%d`, `%s` for
//! Unix seconds) or, as `FMT = days`, as whole days since the Unix epoch
//! (Bing's custom ranges).

use serde::{Deserialize, Serialize};

/// The time ranges a query may ask, shortest first.
pub const TIME_RANGES: [&str; 4] = ["day", "week", "month", "year"];

/// `[engine.time_range]`: the engine's own value for each range, and where
/// it goes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRangeMap {
    /// Sent as this URL query parameter (`&df=VALUE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// Sent as this cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookie: Option<String>,
    /// Sent as this request header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// The value for the past day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day: Option<String>,
    /// The value for the past week.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub week: Option<String>,
    /// The value for the past month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month: Option<String>,
    /// The value for the past year.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<String>,
}

/// `[engine.safesearch]`: the engine's own value for each level, and where
/// it goes; or `always_filtered = true` for an engine that leaves adult
/// content out whatever it is asked (nothing is sent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafeSearchMap {
    /// Sent as this URL query parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// Sent as this cookie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cookie: Option<String>,
    /// Sent as this request header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// The value for level 0 (off).
    #[serde(rename = "0", default, skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
    /// The value for level 1 (moderate).
    #[serde(rename = "1", default, skip_serializing_if = "Option::is_none")]
    pub moderate: Option<String>,
    /// The value for level 2 (strict).
    #[serde(rename = "2", default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<String>,
    /// The engine never shows adult content: level 2 is honoured with
    /// nothing sent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub always_filtered: bool,
}

/// Where a mapped value goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier<'a> {
    /// A URL query parameter of this name.
    Param(&'a str),
    /// A cookie of this name.
    Cookie(&'a str),
    /// A request header of this name.
    Header(&'a str),
    /// The `url`'s own placeholder (`{time_range}` / `{safesearch}`).
    Placeholder,
}

fn carrier<'a>(
    param: &'a Option<String>,
    cookie: &'a Option<String>,
    header: &'a Option<String>,
) -> Carrier<'a> {
    match (param, cookie, header) {
        (Some(p), _, _) => Carrier::Param(p),
        (None, Some(c), _) => Carrier::Cookie(c),
        (None, None, Some(h)) => Carrier::Header(h),
        (None, None, None) => Carrier::Placeholder,
    }
}

impl TimeRangeMap {
    /// The engine's value for `range` (`day` … `year`), if it has one.
    pub fn value(&self, range: &str) -> Option<&str> {
        match range {
            "day" => self.day.as_deref(),
            "week" => self.week.as_deref(),
            "month" => self.month.as_deref(),
            "year" => self.year.as_deref(),
            _ => None,
        }
    }

    /// Where the value goes.
    pub fn carrier(&self) -> Carrier<'_> {
        carrier(&self.param, &self.cookie, &self.header)
    }
}

impl SafeSearchMap {
    /// The engine's value for `level` (0, 1, 2), if it has one.
    pub fn value(&self, level: u8) -> Option<&str> {
        match level {
            0 => self.off.as_deref(),
            1 => self.moderate.as_deref(),
            2 => self.strict.as_deref(),
            _ => None,
        }
    }

    /// Whether the engine leaves adult content out when asked for level 2.
    pub fn honours_strict(&self) -> bool {
        self.always_filtered || self.strict.is_some()
    }

    /// Where the value goes.
    pub fn carrier(&self) -> Carrier<'_> {
        carrier(&self.param, &self.cookie, &self.header)
    }
}

/// The start of `range` (`day` … `year`) ending at `now`: a day or a week
/// of 24-hour days, or a calendar month or year, in UTC. `None` for a range
/// not in [`TIME_RANGES`].
pub fn range_start(range: &str, now: jiff::Timestamp) -> Option<jiff::Timestamp> {
    let span = match range {
        "day" => jiff::Span::new().hours(24),
        "week" => jiff::Span::new().hours(7 * 24),
        "month" => jiff::Span::new().months(1),
        "year" => jiff::Span::new().years(1),
        _ => return None,
    };
    let zoned = now.to_zoned_datetime(jiff::tz::TimeZone::UTC);
    zoned.checked_sub(span).ok().map(|z| z.timestamp())
}

/// The longest value (after its dates are filled in) a mapping may send.
const MAX_VALUE: usize = 512;

/// `value` with its `{since:FMT}` and `{now:FMT}` filled in from `since`
/// and `now`; any other `{…}` is an error, as is a format `strftime`
/// refuses.
pub fn fill_dates(
    value: &str,
    since: jiff::Timestamp,
    now: jiff::Timestamp,
) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(open) = rest.find(['{', '}']) {
        out.push_str(&rest[..open]);
        if rest[open..].starts_with('}') {
            return Err(format!("unmatched '}}' in {value:?}"));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in {value:?}"))?;
        let inside = &after[..close];
        let (which, format) = inside.split_once(':').unwrap_or((inside, ""));
        let at = match which {
            "since" => since,
            "now" => now,
            _ => {
                return Err(format!(
                    "unknown placeholder {{{inside}}} in {value:?} (known: {{since:FORMAT}}, {{now:FORMAT}})"
                ));
            }
        };
        if format.is_empty() {
            return Err(format!(
                "{{{which}}} in {value:?} needs a format: {{{which}:%Y-%m-%d}}, {{{which}:%s}} or {{{which}:days}}"
            ));
        }
        if format == "days" {
            out.push_str(&at.as_second().div_euclid(86_400).to_string());
        } else {
            let written = jiff::fmt::strtime::format(format, at)
                .map_err(|e| format!("{{{inside}}} in {value:?}: {e}"))?;
            out.push_str(&written);
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    if out.len() > MAX_VALUE {
        return Err(format!(
            "{value:?} is longer than {MAX_VALUE} bytes once filled in"
        ));
    }
    Ok(out)
}

/// What is wrong with one mapping, if anything: `what` is `time_range` or
/// `safesearch`, `values` its level values, `url` the engine's template.
fn mapping_problems(
    what: &str,
    carrier_names: [(&str, &Option<String>); 3],
    values: &[(&str, &Option<String>)],
    has_values: bool,
    url: &str,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let placeholder = format!("{{{what}}}");
    let set: Vec<&str> = carrier_names
        .iter()
        .filter(|(_, v)| v.is_some())
        .map(|(k, _)| *k)
        .collect();
    if set.len() > 1 {
        out.push((
            "param",
            format!(
                "says both {} and {}: a value goes one way (param, cookie or header)",
                set[0], set[1]
            ),
        ));
    }
    let in_url = url.contains(&placeholder);
    if set.is_empty() && !in_url && has_values {
        out.push((
            "param",
            format!(
                "says no way to send its value: set param, cookie or header, or put {placeholder} in the engine's url"
            ),
        ));
    }
    if !set.is_empty() && in_url {
        out.push((
            "param",
            format!(
                "sends its value as {} and the url holds {placeholder} too: choose one",
                set[0]
            ),
        ));
    }
    for (key, name) in carrier_names {
        let Some(name) = name else { continue };
        let ok = match key {
            "param" => !name.is_empty() && !name.chars().any(|c| c.is_control()),
            "header" => reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok(),
            // A cookie name is an HTTP token.
            _ => {
                !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b))
            }
        };
        if !ok {
            out.push((
                static_key(key),
                format!("{key} = {name:?} is not a valid {key} name"),
            ));
        }
    }
    // A probe moment: every format is tried once, at load.
    let now = jiff::Timestamp::from_second(1_720_897_799).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let since = range_start("month", now).unwrap_or(now);
    for (key, value) in values {
        let Some(value) = value else { continue };
        match fill_dates(value, since, now) {
            Err(m) => out.push((static_key(key), m)),
            Ok(filled) => {
                let header_ok = reqwest::header::HeaderValue::from_str(&filled).is_ok();
                let cookie_ok = !filled.contains([';', ',']);
                let bad = if !header_ok {
                    Some("holds characters no request can carry")
                } else if set.first() == Some(&"cookie") && !cookie_ok {
                    Some("holds ';' or ',', which end a cookie")
                } else {
                    None
                };
                if let Some(why) = bad {
                    out.push((static_key(key), format!("{key} = {value:?} {why}")));
                }
            }
        }
    }
    out
}

/// The `'static` name of a key of the two tables, for pointing at it.
fn static_key(key: &str) -> &'static str {
    const KEYS: [&str; 11] = [
        "param",
        "cookie",
        "header",
        "day",
        "week",
        "month",
        "year",
        "0",
        "1",
        "2",
        "always_filtered",
    ];
    KEYS.iter().copied().find(|k| *k == key).unwrap_or("param")
}

impl TimeRangeMap {
    /// What is wrong with the table of an engine whose url is `url`: the key
    /// to point at and the message.
    pub(super) fn problems(&self, url: &str) -> Vec<(&'static str, String)> {
        let values = [
            ("day", &self.day),
            ("week", &self.week),
            ("month", &self.month),
            ("year", &self.year),
        ];
        let has_values = values.iter().any(|(_, v)| v.is_some());
        let mut out = mapping_problems(
            "time_range",
            [
                ("param", &self.param),
                ("cookie", &self.cookie),
                ("header", &self.header),
            ],
            &values,
            has_values,
            url,
        );
        if !has_values {
            out.push((
                "day",
                "gives no value: set day, week, month or year to the engine's own value".into(),
            ));
        }
        out
    }
}

impl SafeSearchMap {
    /// What is wrong with the table of an engine whose url is `url`.
    pub(super) fn problems(&self, url: &str) -> Vec<(&'static str, String)> {
        let values = [("0", &self.off), ("1", &self.moderate), ("2", &self.strict)];
        let has_values = values.iter().any(|(_, v)| v.is_some());
        let mut out = mapping_problems(
            "safesearch",
            [
                ("param", &self.param),
                ("cookie", &self.cookie),
                ("header", &self.header),
            ],
            &values,
            has_values,
            url,
        );
        if !has_values && !self.always_filtered {
            out.push((
                "2",
                "gives no value: set 0, 1 or 2 to the engine's own value, or always_filtered = true"
                    .into(),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> jiff::Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_start_a_day_a_week_a_calendar_month_and_year_back() {
        let now = at("2024-03-31T12:00:00Z");
        assert_eq!(range_start("day", now), Some(at("2024-03-30T12:00:00Z")));
        assert_eq!(range_start("week", now), Some(at("2024-03-24T12:00:00Z")));
        // 31 March less a month is the last day of February (a leap year).
        assert_eq!(range_start("month", now), Some(at("2024-02-29T12:00:00Z")));
        assert_eq!(range_start("year", now), Some(at("2023-03-31T12:00:00Z")));
        assert_eq!(range_start("hour", now), None);
    }

    #[test]
    fn dates_are_written_in_the_format_asked() {
        let now = at("2024-07-13T19:09:59Z");
        let since = range_start("year", now).unwrap();
        assert_eq!(
            fill_dates("{since:%Y%m%d}", since, now).unwrap(),
            "20230713"
        );
        assert_eq!(
            fill_dates("stf={since:%s},{now:%s}|stftype=1", since, now).unwrap(),
            "stf=1689275399,1720897799|stftype=1"
        );
        assert_eq!(
            fill_dates("ex1:\"ez5_{since:days}_{now:days}\"", since, now).unwrap(),
            "ex1:\"ez5_19551_19917\""
        );
        assert_eq!(fill_dates("d", since, now).unwrap(), "d");
        for bad in ["{then:%Y}", "{since}", "{since:%Y", "a}b", "{now:%}"] {
            assert!(fill_dates(bad, since, now).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_mapping_says_how_its_value_goes_and_only_one_way() {
        let url = "https://e.example/?q={query}";
        let ok = TimeRangeMap {
            param: Some("df".into()),
            day: Some("d".into()),
            ..TimeRangeMap::default()
        };
        assert!(ok.problems(url).is_empty());
        let nowhere = TimeRangeMap {
            day: Some("d".into()),
            ..TimeRangeMap::default()
        };
        assert_eq!(nowhere.problems(url).len(), 1);
        assert!(
            nowhere
                .problems("https://e.example/?q={query}{time_range}")
                .is_empty()
        );
        let twice = TimeRangeMap {
            cookie: Some("df".into()),
            ..ok.clone()
        };
        assert_eq!(twice.problems(url).len(), 1);
        let empty = TimeRangeMap {
            param: Some("df".into()),
            ..TimeRangeMap::default()
        };
        assert_eq!(empty.problems(url).len(), 1);
        let safe = SafeSearchMap {
            always_filtered: true,
            ..SafeSearchMap::default()
        };
        assert!(safe.problems(url).is_empty());
        assert!(safe.honours_strict());
        let bad_cookie = SafeSearchMap {
            cookie: Some("a b".into()),
            strict: Some("x;y".into()),
            ..SafeSearchMap::default()
        };
        assert_eq!(bad_cookie.problems(url).len(), 2);
    }
}
