//! Publication dates as bibliographic services write them: a year, then
//! perhaps a month or a season, a day, or a range of them — PubMed's
//! `1965 Aug`, `2001 Dec 15`, `2019 Spring`, `2020 Jan-Feb`,
//! `2001 Dec-2002 Jan`, `2000 Dec 12-19`, a bare `1965` — and the numbers of
//! CSL's `date-parts` (Crossref's `[[2022, 7, 26]]`, joined as `2022 7 26`).
//!
//! A range is read as its first day, a month as its first day, a season
//! as the first day of its first month within that year (spring March,
//! summer June, fall / autumn September, winter January: the winter that
//! year begins, which keeps the date in the year written), and a year alone
//! as its first of January.

use jiff::civil::Date;

/// The first day `raw` names, or `None` when it is not such a date.
pub(crate) fn bibliographic_date(raw: &str) -> Option<Date> {
    let mut words = raw
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty());
    let year = year(words.next()?)?;
    let Some(second) = words.next() else {
        return Date::new(year, 1, 1).ok();
    };
    // `Jan-Feb`, `Dec-2002 Jan`, `Spring-Summer`: the range's start; what
    // follows a range's dash is its end, not read.
    let (first, ranged) = match second.split_once(['-', '/']) {
        Some((first, _)) => (first, true),
        None => (second, false),
    };
    let (month, day) = match (month(first), season(first)) {
        (Some(m), _) if ranged => (m, 1),
        (Some(m), _) => match words.next() {
            None => (m, 1),
            Some(w) if w.starts_with('-') => return Date::new(year, m, 1).ok(),
            // `12-19`: the range's first day.
            Some(w) => {
                let (d, ranged) = match w.split_once('-') {
                    Some((d, _)) => (d, true),
                    None => (w, false),
                };
                let date = Date::new(year, m, day(d)?).ok()?;
                return (ranged || words.next().is_none_or(|w| w.starts_with('-'))).then_some(date);
            }
        },
        (None, Some(m)) => (m, 1),
        (None, None) => return None,
    };
    if !ranged && words.next().is_some_and(|w| !w.starts_with('-')) {
        return None;
    }
    Date::new(year, month, day).ok()
}

fn year(w: &str) -> Option<i16> {
    if w.len() != 4 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse().ok().filter(|y| (1000..=2100).contains(y))
}

fn day(w: &str) -> Option<i8> {
    if w.is_empty() || w.len() > 2 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse().ok().filter(|d| (1..=31).contains(d))
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// `Aug`, `aug.`, `August` (English, as PubMed and Crossref write them).
fn month(w: &str) -> Option<i8> {
    // A number, as CSL's and Crossref's `date-parts` give it (`2022 7 26`).
    if (1..=2).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()) {
        return w.parse().ok().filter(|m| (1..=12).contains(m));
    }
    let w = w.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    // `Sept` is the one four-letter short form in use.
    let w = if w == "sept" { "sep".to_string() } else { w };
    MONTHS
        .iter()
        .position(|m| m.starts_with(&w))
        .map(|i| i as i8 + 1)
}

fn season(w: &str) -> Option<i8> {
    Some(match w.to_ascii_lowercase().as_str() {
        "winter" => 1,
        "spring" => 3,
        "summer" => 6,
        "fall" | "autumn" => 9,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pubmed_dates_read_as_their_first_day() {
        let d = |s: &str| bibliographic_date(s).map(|d| d.to_string());
        for (raw, want) in [
            ("1965 Aug", "1965-08-01"),
            ("2001 Dec 15", "2001-12-15"),
            ("2019 Spring", "2019-03-01"),
            ("2019 Summer", "2019-06-01"),
            ("2019 Fall", "2019-09-01"),
            ("2019 Autumn", "2019-09-01"),
            ("2019 Winter", "2019-01-01"),
            ("2020 Jan-Feb", "2020-01-01"),
            ("2001 Dec-2002 Jan", "2001-12-01"),
            ("2000 Dec 12-19", "2000-12-12"),
            ("2019 Spring-Summer", "2019-03-01"),
            ("1965", "1965-01-01"),
            ("2003 Sept", "2003-09-01"),
            ("2018 September 3", "2018-09-03"),
            ("  2010   jun  ", "2010-06-01"),
            ("2001 Dec - 2002 Jan", "2001-12-01"),
            ("2001 Dec 3 - 2002 Jan 4", "2001-12-03"),
            ("2022 7 26", "2022-07-26"),
            ("2022 07", "2022-07-01"),
        ] {
            assert_eq!(d(raw).as_deref(), Some(want), "{raw:?}");
        }
        for bad in [
            "",
            "Aug 1965",
            "1965 Foo",
            "1965 Ma",
            "2001 Feb 30",
            "2001 Dec 15 extra",
            "2022 13 1",
            "2022 0",
            "2022 7 32",
            "2001 Dec 0",
            "20011 Dec",
            "0999",
            "2500",
            "12345",
            "yesterday",
        ] {
            assert_eq!(d(bad), None, "{bad:?}");
        }
    }
}
