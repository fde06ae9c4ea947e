//! What `explain=1` shows of a duplicate: in place of 16-digit hex feature
//! codes, the words of its snippet that the shared codes stand for.

use metasift_dedup as dedup;

/// The text of `snippet` around each of the `shared` feature codes: the
/// words of the code's window (anchor mark included), in the order they
/// appear in the snippet, each stretch once — what a person reads in place
/// of a 16-digit hex code. Overlapping windows are joined into one stretch.
pub fn shared_text(
    extractor: &mut dedup::Extractor,
    snippet: &str,
    shared: &[dedup::FeatureCode],
    settings: &dedup::Settings,
) -> Vec<String> {
    if shared.is_empty() {
        return Vec::new();
    }
    let mut left: Vec<dedup::FeatureCode> = shared.to_vec();
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    for cs in extractor.code_spans(snippet, settings.window, settings.unit) {
        let Some(i) = left.iter().position(|c| *c == cs.code) else {
            continue;
        };
        left.swap_remove(i);
        if let Some(r) = cs.span {
            match ranges.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => ranges.push(r),
            }
        }
    }
    ranges.into_iter().map(|r| snippet[r].to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(a: &str, b: &str) -> Vec<String> {
        let settings = dedup::Settings::default();
        let mut x = dedup::Extractor::new().with_word_anchors(settings.word_anchors);
        let codes = |s: &str| dedup::feature_codes(s, settings.window, settings.unit);
        let shared = dedup::shared_codes(&codes(a), &codes(b));
        shared_text(&mut x, b, &shared, &settings)
    }

    #[test]
    fn shared_codes_read_as_the_words_around_them() {
        // Bing's W3Schools description and a copy cut after "web." (real
        // text of the saved `javascript tutorial` pages).
        let bing = "W3Schools offers free online tutorials, references and exercises in all the major \
                    languages of the web. Covering popular subjects like HTML, CSS, JavaScript, Python, \
                    SQL, Java, and many, many more.";
        let cut = "W3Schools offers free online tutorials, references and exercises in all the major \
                   languages of the web.";
        let got = text(bing, cut);
        assert!(!got.is_empty());
        for t in &got {
            assert!(cut.contains(t.as_str()), "{t:?}");
        }
        // Windows that overlap are one stretch, in snippet order.
        let starts: Vec<usize> = got.iter().map(|t| cut.find(t.as_str()).unwrap()).collect();
        assert!(starts.windows(2).all(|w| w[0] < w[1]), "{got:?}");
        // Different text shares nothing.
        assert!(text(bing, "Green tea, black tea; oolong.").is_empty());
    }
}
