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
//! | [`search`] | the query (bangs, engine choice), fan-out under deadlines, recording |
//! | [`fusion`] | scoring and merging of duplicate groups; [`fusion::compare`]: which groups formed or split between two fusions |
//! | [`output`] | SearXNG JSON, CSV, RSS, OpenSearch, terminal text of a response |
//! | [`web`] | axum router, handlers, pages |
//! | [`lab`] | threshold sweeps, metrics, plots |
//! | [`files`] | input files read with a size cap |
//! | [`hosts`] | hostname rules: host suffixes or anchored regexes to remove, replace, boost, lower |
//! | [`ops`] | cache (memory, Redis), limits, engine health, metrics |
//! | [`jsonl`] | `metasift dedup`: JSON Lines through the dedup crate |
//! | [`mcp`] | the MCP server: `search` and `engines` tools over stdio and Streamable HTTP |

#![warn(unreachable_pub)]

pub mod config;
pub mod engines;
pub mod files;
pub mod fusion;
pub mod hosts;
pub mod jsonl;
pub mod lab;
pub mod mcp;
pub mod model;
pub mod ops;
pub mod output;
pub mod search;
pub mod web;
