//! # metasift
//!
//! A meta-search engine: one query fans out to several member engines, their
//! title / URL / snippet records are merged, duplicates are removed — by
//! normalized URL, then by title, then by the similarity of
//! punctuation-anchored snippet *feature codes* — and one fused, ranked list is
//! rendered.
//!
//! | module | what |
//! | --- | --- |
//! | [`config`] | `engines.toml`: one type per table, defaults, validation |
//! | [`model`] | plain records shared by the layers |
//! | [`metasift_dedup`] | the method — its own crate: pure, no async, no HTTP |
//! | [`engines`] | one `Engine` trait, one file per kind; builds (and so checks) every `[[engine]]` |
//! | [`search`] | fan-out under deadlines, engine health, cache |
//! | [`fusion`] | scoring and merging of duplicate groups; [`fusion::compare`]: which groups formed or split between two fusions |
//! | [`output`] | SearXNG JSON, CSV, RSS, OpenSearch, terminal text of a response |
//! | [`web`] | axum router, handlers, pages |
//! | [`lab`] | threshold sweeps, metrics, plots |
//! | [`recording`] | saved engine answers for offline replay |
//! | [`health`] | per-engine health, suspension, `/stats` and `/metrics` |
//! | [`cache`] | fused-result and engine-answer cache (memory or Redis), coalescing |
//! | [`limit`] | per-client rate limit, cap on searches in flight |

pub mod cache;
pub mod config;
pub mod engines;
pub mod fusion;
pub mod health;
pub mod lab;
pub mod limit;
pub mod model;
pub mod output;
pub mod recording;
pub mod search;
pub mod stream;
pub mod web;
