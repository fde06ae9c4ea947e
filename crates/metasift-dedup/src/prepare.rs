//! What the stages compute from one record alone, apart from what they
//! decide with everything pushed before it.
//!
//! A record's URL key, host and source key, its title hash, whether its
//! title is informative, and its snippet's codes (sorted) depend on the
//! record and the settings only: [`Preparer::prepare`] computes them into a
//! [`Prepared`], and [`Deduper::push_prepared`](crate::Deduper::push_prepared)
//! decides with them. [`Deduper::push_query`](crate::Deduper::push_query)
//! runs the same two halves (computing the snippet half only when the URL
//! stage has not decided), so there is one decision path. The split lets a
//! stream prepare records on one core while another decides: `metasift
//! dedup` does, and its output is checked byte for byte against the
//! one-thread loop.

use crate::features::{Extractor, FeatureCode};
use crate::hash::HashMap64;
use crate::pipeline::{TitleForm, fill_codes, informative, title_form, title_hash, url_key_host};
use crate::rabin::RabinFingerprint;
use crate::simhash::{self, SimHash};
use crate::site::source_key;
use crate::{Doc, Method, Settings, url};

mod sort;

/// Scope key of records without a query.
pub(crate) const NO_QUERY: u64 = 0x0123_4567_89ab_cdef;

/// One record, prepared: everything the stages need from it (see the
/// module docs). Reuse one across records ([`Preparer::prepare`] overwrites
/// it) so its code buffer is not allocated per record.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    pub(crate) qkey: u64,
    pub(crate) has_url: bool,
    pub(crate) ukey: url::UrlKey,
    /// The namespace of the link's canonical identifier, when a rule
    /// recognises it (`ukey` is then the identifier's key).
    pub(crate) canon: Option<&'static str>,
    pub(crate) host: u64,
    pub(crate) src: u64,
    /// Whether the fields below are filled.
    pub(crate) snippet_done: bool,
    pub(crate) title: u64,
    pub(crate) named: bool,
    /// What of the normalized title the cut-title comparison uses, and that
    /// text (the kept prefix of a title an engine cut with "…").
    pub(crate) form: TitleForm,
    pub(crate) title_text: String,
    /// Sorted; before the stream's boilerplate filter.
    pub(crate) codes: Vec<FeatureCode>,
    pub(crate) evidence: usize,
    pub(crate) simhash: SimHash,
    pub(crate) units: usize,
}

/// Computes [`Prepared`] records; keeps its buffers between calls.
#[derive(Debug)]
pub struct Preparer {
    /// [`Preparer::prepare_in_order`]: the query key of the last record and
    /// the URL keys met under it.
    last_query: u64,
    seen_urls: HashMap64<url::UrlKey, ()>,
    settings: Settings,
    extractor: Extractor,
    blocks: Vec<RabinFingerprint>,
    normalized: String,
    scratch: String,
    /// [`Preparer::bytes_read`].
    bytes: u64,
}

impl Preparer {
    /// A preparer for these settings (the deduper's must be the same).
    pub fn new(settings: &Settings) -> Self {
        Preparer {
            last_query: NO_QUERY,
            seen_urls: HashMap64::default(),
            settings: settings.clone(),
            extractor: Extractor::new().with_word_anchors(settings.word_anchors),
            blocks: Vec::new(),
            normalized: String::new(),
            scratch: String::new(),
            bytes: 0,
        }
    }

    /// Prepares the record `doc` of `query` into `out`.
    pub fn prepare(&mut self, query: Option<&str>, doc: Doc<'_>, out: &mut Prepared) {
        self.url_half(query, doc, out);
        self.snippet_half(doc, out);
    }

    /// [`Preparer::prepare`] for records that reach
    /// [`Deduper::push_prepared`](crate::Deduper::push_prepared) in the
    /// order they are prepared here (all of the stream's, or some of them),
    /// leaving out the snippet half of a record the URL stage is certain to
    /// decide: a non-empty link met before under the same query (the
    /// deduper remembers every such link, with the exact map or the Bloom
    /// filter alike, so the record is a URL duplicate). What the one-thread
    /// loop skips is then skipped here too: on the realistic stream half the
    /// records are URL duplicates. Only the current query's links are
    /// remembered (cleared when the query changes), so memory stays bounded;
    /// a repeat missed that way is only prepared in full.
    pub fn prepare_in_order(&mut self, query: Option<&str>, doc: Doc<'_>, out: &mut Prepared) {
        self.url_half(query, doc, out);
        if out.qkey != self.last_query {
            self.last_query = out.qkey;
            self.seen_urls.clear();
        }
        if out.has_url && self.seen_urls.insert(out.ukey, ()).is_some() {
            // `snippet_done` stays false: the deduper needs no snippet half.
            out.codes.clear();
            return;
        }
        self.snippet_half(doc, out);
    }

    /// The query key, URL key, host and source key.
    pub(crate) fn url_half(&mut self, query: Option<&str>, doc: Doc<'_>, out: &mut Prepared) {
        out.qkey = query.map_or(NO_QUERY, |q| crate::hash::xxh3(q.as_bytes()));
        (out.has_url, out.ukey, out.host, out.canon) = url_key_host(doc.url, &mut self.scratch);
        out.src = source_key(doc.source, out.host);
        out.snippet_done = false;
    }

    /// The title hash, whether the title is informative, and the codes
    /// (or SimHash) of the snippet, for the method of the settings.
    pub(crate) fn snippet_half(&mut self, doc: Doc<'_>, out: &mut Prepared) {
        let doc = crate::clip::clip_doc(doc);
        self.bytes += (doc.title.len() + doc.snippet.len()) as u64;
        out.snippet_done = true;
        let s = &self.settings;
        out.codes.clear();
        out.evidence = 0;
        out.named = false;
        out.form = TitleForm::default();
        out.title_text.clear();
        out.units = 0;
        out.simhash = SimHash(0);
        out.title = 0;
        if s.method == Method::None {
            return;
        }
        out.title = title_hash(doc.title, &mut self.scratch);
        if s.method == Method::SimHash {
            let units = self.extractor.units(doc.snippet, s.unit);
            out.units = units.len();
            out.simhash = simhash::of_units(units);
            return;
        }
        out.named = out.title != 0 && out.host != 0 && informative(&self.scratch);
        out.form = title_form(out.title, doc.title, &self.scratch);
        // The normalized title is the scratch buffer's text: the two
        // buffers trade places (both are cleared before they are written),
        // so it is not copied.
        std::mem::swap(&mut out.title_text, &mut self.scratch);
        out.title_text.truncate(out.form.len);
        out.evidence = fill_codes(
            &mut self.extractor,
            &mut self.blocks,
            &mut self.normalized,
            doc.snippet,
            s,
            &mut out.codes,
        );
        sort::sort_codes(&mut out.codes);
        crate::clip::cap_repeats(&mut out.codes);
    }

    /// Bytes of titles and snippets read so far (after [`crate::clip`]).
    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Deduper, UrlFilter, Verdict};

    /// DuReader's results as three engines' lists under 30 queries: shared
    /// and copied links, equal and cut titles, site descriptions.
    fn records() -> Vec<(String, String, String, String, &'static str)> {
        let mut out = Vec::new();
        for (i, (title, snippet)) in crate::test_data::dureader_results().into_iter().enumerate() {
            for (e, engine) in ["baidu", "bing", ""].into_iter().enumerate() {
                if (i + e) % 4 == 3 {
                    continue;
                }
                let url = format!("https://s{}.example/{}", (i + e) % 3, i / 2);
                let q = format!("q{}", i / 50);
                // Bing cuts long titles ("…"): the cut-title rules.
                let title = match title.char_indices().nth(14) {
                    Some((at, _)) if engine == "bing" => format!("{}…", &title[..at]),
                    _ => title.clone(),
                };
                out.push((q, url, title, snippet.clone(), engine));
            }
        }
        out
    }

    fn key(v: &Verdict) -> (usize, Option<crate::Stage>, Option<u64>) {
        (v.cluster, v.stage, v.similarity.map(f64::to_bits))
    }

    /// Prepared by 1–3 preparers taking turns over batches (as the stream's
    /// workers do), the verdicts are `push_query`'s, for every method and
    /// both URL filters.
    #[test]
    fn prepared_records_get_the_verdicts_of_push_query() {
        let recs = records();
        for method in Method::ALL {
            for filter in [
                UrlFilter::Exact,
                UrlFilter::Bloom {
                    fpr: 0.01,
                    expected: 1000,
                },
            ] {
                let s = Settings {
                    method,
                    ..Settings::default()
                };
                let mut d = Deduper::new(&s).url_filter(filter);
                let want: Vec<_> = recs
                    .iter()
                    .map(|(q, u, t, sn, e)| {
                        key(&d.push_query(Some(q), Doc::new(u, t, sn).with_source(e)))
                    })
                    .collect();
                assert!(want.iter().any(|v| v.1.is_none()));
                for workers in [1, 2, 3] {
                    let mut preparers: Vec<_> = (0..workers).map(|_| Preparer::new(&s)).collect();
                    let mut d = Deduper::new(&s).url_filter(filter);
                    let mut p = Prepared::default();
                    let got: Vec<_> = recs
                        .iter()
                        .enumerate()
                        .map(|(i, (q, u, t, sn, e))| {
                            let doc = Doc::new(u, t, sn).with_source(e);
                            preparers[(i / 37) % workers].prepare_in_order(Some(q), doc, &mut p);
                            key(&d.push_prepared(&p))
                        })
                        .collect();
                    assert_eq!(got, want, "{method}, {filter:?}, {workers} preparers");
                    // And fully prepared records, in any case.
                    let mut d = Deduper::new(&s).url_filter(filter);
                    let got: Vec<_> = recs
                        .iter()
                        .map(|(q, u, t, sn, e)| {
                            preparers[0].prepare(
                                Some(q),
                                Doc::new(u, t, sn).with_source(e),
                                &mut p,
                            );
                            key(&d.push_prepared(&p))
                        })
                        .collect();
                    assert_eq!(got, want, "{method}, {filter:?}, prepared in full");
                }
            }
        }
    }
}
