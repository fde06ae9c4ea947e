//! The tests on the team's real data (saved engine pages, corpora, labeled
//! pairs): one named case per data file, found through `metasift_data`
//! (`METASIFT_DATA=DIR`, else `../shared/data` beside the checkout).
//!
//! A `harness = false` target (`libtest-mimic`): where the folder is absent
//! every case is reported ignored with the reason naming `METASIFT_DATA`
//! (cargo's summary shows "N ignored"), and fails instead under
//! `METASIFT_REQUIRE_SERVICES=1`; where it is there, plain `cargo test`
//! runs them. Run one: `cargo test --test real_data -- parsers::serp/bing`.

#[path = "../support/golden.rs"]
mod golden;
#[path = "../support/lab_cli.rs"]
mod lab_cli;
#[path = "../support/real_data.rs"]
mod real_data;
#[path = "../support/mod.rs"]
mod support;

mod apis;
mod corpus;
mod fast_paths;
mod lab;
mod lists;
mod pages;
mod parsers;
mod quality;

fn main() {
    let mut cases = real_data::Cases::new();
    parsers::cases(&mut cases);
    apis::cases(&mut cases);
    fast_paths::cases(&mut cases);
    pages::cases(&mut cases);
    corpus::cases(&mut cases);
    quality::cases(&mut cases);
    lists::cases(&mut cases);
    lab::cases(&mut cases);
    cases.run()
}
