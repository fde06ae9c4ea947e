//! Answers this team writes in the documented shapes of the API presets of
//! `engines.toml` (arXiv's Atom, Crossref's `work-list`, PubMed's
//! E-utilities XML, the JSON of the others): the same field names and
//! nesting as the real answers of the team's data folder (`api/`) and the
//! APIs' documentation, our own text and made-up identifiers. Part of
//! [`super`] (`own_pages.rs`): `results`, `no_results` and `generic` there
//! call these for the API presets. Standard library only.

use std::fmt::Write as _;

use super::{Hit, Page, esc, hit, json_str, pct};

/// The API presets we write answers for.
pub const API_ENGINES: [&str; 21] = [
    "arxiv",
    "crossref",
    "semantic_scholar",
    "pubmed",
    "openalex",
    "github",
    "stackexchange",
    "crates",
    "npm",
    "hackernews",
    "brave_images",
    "wikimedia_commons",
    "openverse",
    "brave_videos",
    "peertube",
    "brave_news",
    "nominatim",
    "wikipedia_summary",
    "wikipedia_summary_zh",
    "wikidata",
    "duckduckgo_instant",
];

/// The presets that give boxes (and answers), not results.
pub const INFOBOX_ENGINES: [&str; 4] = [
    "wikipedia_summary",
    "wikipedia_summary_zh",
    "wikidata",
    "duckduckgo_instant",
];

/// The presets that make two calls: the first answer names what the
/// second (`<engine>.follow`) gives.
pub const TWO_CALL_ENGINES: [&str; 2] = ["pubmed", "wikidata"];

const JSON: &str = "application/json; charset=utf-8";

/// Whether `engine`'s preset reads a snippet (our hits for the others
/// carry none: the answer has no such text, or the preset does not read it).
pub fn shows_snippet(engine: &str) -> bool {
    !matches!(
        engine,
        "pubmed"
            | "openalex"
            | "stackexchange"
            | "hackernews"
            | "brave_images"
            | "wikimedia_commons"
            | "openverse"
            | "nominatim"
    )
}

/// 64-bit FNV-1a of `text`: stable made-up identifiers.
fn num(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The link of result `i` about `slug` in the form `engine`'s answers give
/// (the presets that build the link from an identifier read it back).
pub fn link(engine: &str, slug: &str, i: usize) -> String {
    let n = num(&format!("{engine}/{slug}/{i}"));
    match engine {
        "arxiv" => format!(
            "https://arxiv.org/abs/26{:02}.{:05}v{}",
            1 + n % 12,
            n % 100_000,
            1 + i % 2
        ),
        "crossref" | "openalex" => format!("https://doi.org/10.5555/{slug}.{i}"),
        "semantic_scholar" => format!(
            "https://www.semanticscholar.org/paper/{n:016x}{:024x}",
            u128::from(n) * 7
        ),
        "pubmed" => format!(
            "https://pubmed.ncbi.nlm.nih.gov/{}/",
            30_000_000 + n % 9_000_000
        ),
        "github" => format!("https://github.com/example-{i}/{slug}"),
        "stackexchange" => format!(
            "https://stackoverflow.com/questions/{}/{slug}",
            70_000_000 + n % 9_000_000
        ),
        "crates" => format!("https://crates.io/crates/{slug}-{i}"),
        "npm" => format!("https://www.npmjs.com/package/{slug}-{i}"),
        "nominatim" => format!(
            "https://www.openstreetmap.org/{}/{}",
            ["node", "way", "relation"][i % 3],
            1_000_000 + n % 90_000_000
        ),
        _ => format!("https://{engine}-{i}.example.org/{slug}/{i}"),
    }
}

/// A few results for any query on an API preset (none for the box presets).
pub fn generic(engine: &str, query: &str) -> Vec<Hit> {
    if INFOBOX_ENGINES.contains(&engine) {
        return Vec::new();
    }
    let slug: String = query
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    (1..=5)
        .map(|i| {
            let url = link(engine, &slug, i);
            let title = match engine {
                "github" => format!("example-{i}/{slug}"),
                "crates" | "npm" => format!("{slug}-{i}"),
                _ => format!("{query}: item {i} of {engine}"),
            };
            let snippet = if shows_snippet(engine) {
                format!("What {engine} says about {query}, item {i}, in a sentence of its own.")
            } else {
                String::new()
            };
            hit(&url, &title, &snippet)
        })
        .collect()
}

/// Made-up people (authors, uploaders, maintainers).
const PEOPLE: [(&str, &str); 6] = [
    ("Ada", "Example"),
    ("Lin", "Shiyan"),
    ("Grace", "Sample"),
    ("Kenji", "Placeholder"),
    ("Maria", "Testova"),
    ("Omar", "Demo"),
];

fn authors(h: &Hit) -> Vec<(&'static str, &'static str)> {
    let n = num(&h.url) as usize;
    (0..1 + n % 3)
        .map(|k| PEOPLE[(n / 7 + k) % PEOPLE.len()])
        .collect()
}

/// A date of result `i`: `2025-MM-DD`.
fn day(h: &Hit, i: usize) -> (u32, u32, u32) {
    let n = num(&h.title);
    (
        2025 - (i % 3) as u32,
        1 + (n % 12) as u32,
        1 + (n / 12 % 28) as u32,
    )
}

fn after<'a>(url: &'a str, prefix: &str, engine: &str) -> &'a str {
    url.strip_prefix(prefix).unwrap_or_else(|| {
        panic!("{engine}'s links are {prefix}…, not {url:?} (own_api::link writes them)")
    })
}

fn json_list(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

fn json_page(body: String) -> Page {
    Page {
        body,
        content_type: JSON,
    }
}

/// The answer `engine` gives listing `hits` for `query` — of a two-call
/// preset, the second answer (the one its results are read from) — or
/// `None` for a preset that is not an API preset. A box preset's answer is
/// the box [`Entity::about`] the query.
pub fn results(engine: &str, query: &str, hits: &[Hit]) -> Option<Page> {
    if INFOBOX_ENGINES.contains(&engine) {
        return Some(entity_answer(engine, &Entity::about(query)));
    }
    let items: Vec<String> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| item(engine, i, h))
        .collect::<Option<_>>()?;
    let n = items.len();
    let total = if n == 0 { 0 } else { 40 * n + 3 };
    let q = json_str(query);
    let page = match engine {
        "arxiv" => return Some(arxiv(query, &items, total)),
        "pubmed" => {
            return Some(Page {
                body: format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<!DOCTYPE eSummaryResult PUBLIC \"-//NLM//DTD esummary v1 20041029//EN\" \"https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20041029/esummary-v1.dtd\">\n<eSummaryResult>\n{}</eSummaryResult>\n",
                    items.join("\n")
                ),
                content_type: "text/xml; charset=UTF-8",
            });
        }
        "crossref" => format!(
            "{{\"status\":\"ok\",\"message-type\":\"work-list\",\"message-version\":\"1.0.0\",\"message\":{{\"facets\":{{}},\"total-results\":{total},\"items\":{},\"items-per-page\":10,\"query\":{{\"start-index\":0,\"search-terms\":{q}}}}}}}",
            json_list(&items)
        ),
        "semantic_scholar" if n == 0 => "{\"total\": 0, \"offset\": 0}".to_string(),
        "semantic_scholar" => format!(
            "{{\"total\": {total}, \"offset\": 0, \"next\": 10, \"data\": {}}}",
            json_list(&items)
        ),
        "openalex" => format!(
            "{{\"meta\":{{\"count\":{total},\"db_response_time_ms\":23,\"page\":1,\"per_page\":10,\"groups_count\":null}},\"results\":{},\"group_by\":[]}}",
            json_list(&items)
        ),
        "github" => format!(
            "{{\"total_count\":{total},\"incomplete_results\":false,\"items\":{}}}",
            json_list(&items)
        ),
        "stackexchange" => format!(
            "{{\"items\":{},\"has_more\":{},\"quota_max\":300,\"quota_remaining\":287}}",
            json_list(&items),
            n > 0
        ),
        "crates" => format!(
            "{{\"crates\":{},\"meta\":{{\"total\":{total},\"next_page\":null,\"prev_page\":null}}}}",
            json_list(&items)
        ),
        "npm" => format!(
            "{{\"objects\":{},\"total\":{total},\"time\":\"Sat Nov 28 2026 04:00:00 GMT+0000 (Coordinated Universal Time)\"}}",
            json_list(&items)
        ),
        "hackernews" => format!(
            "{{\"hits\":{},\"nbHits\":{total},\"page\":0,\"nbPages\":{},\"hitsPerPage\":10,\"exhaustiveNbHits\":true,\"query\":{q},\"params\":\"query={}&tags=story&page=0&hitsPerPage=10\",\"processingTimeMS\":3}}",
            json_list(&items),
            total.div_ceil(10),
            pct(query)
        ),
        "brave_images" => format!(
            "{{\"type\":\"images\",\"query\":{{\"original\":{q},\"spellcheck_off\":false,\"show_strict_warning\":false}},\"results\":{}}}",
            json_list(&items)
        ),
        "brave_videos" => format!(
            "{{\"type\":\"videos\",\"query\":{{\"original\":{q},\"spellcheck_off\":false,\"show_strict_warning\":false}},\"results\":{}}}",
            json_list(&items)
        ),
        "brave_news" => format!(
            "{{\"type\":\"news\",\"query\":{{\"original\":{q},\"spellcheck_off\":false}},\"results\":{}}}",
            json_list(&items)
        ),
        "wikimedia_commons" if n == 0 => "{\"batchcomplete\":true}".to_string(),
        "wikimedia_commons" => format!(
            "{{\"batchcomplete\":true,\"continue\":{{\"gsroffset\":20,\"continue\":\"gsroffset||\"}},\"query\":{{\"pages\":{}}}}}",
            json_list(&items)
        ),
        "openverse" => format!(
            "{{\"result_count\":{total},\"page_count\":{},\"page_size\":20,\"page\":1,\"results\":{}}}",
            total.div_ceil(20),
            json_list(&items)
        ),
        "peertube" => format!("{{\"total\":{total},\"data\":{}}}", json_list(&items)),
        "nominatim" => json_list(&items),
        _ => return None,
    };
    Some(json_page(page))
}

/// The answer of `engine` when nothing matches `query`, for the API presets.
pub fn no_results(engine: &str, query: &str) -> Option<Page> {
    match engine {
        "wikipedia_summary" | "wikipedia_summary_zh" => {
            let host = if engine == "wikipedia_summary" { "en" } else { "zh" };
            Some(json_page(format!(
                "{{\"batchcomplete\":true,\"query\":{{\"pages\":[{{\"ns\":0,\"title\":{},\"missing\":true,\"fullurl\":{}}}]}}}}",
                json_str(query),
                json_str(&format!("https://{host}.wikipedia.org/wiki/{}", pct(&query.replace(' ', "_"))))
            )))
        }
        // The first call finds nothing: no follow-up, no box.
        "wikidata" => Some(json_page(format!(
            "{{\"searchinfo\":{{\"search\":{}}},\"search\":[],\"success\":1}}",
            json_str(query)
        ))),
        "duckduckgo_instant" => Some(json_page(
            "{\"Abstract\":\"\",\"AbstractSource\":\"\",\"AbstractText\":\"\",\"AbstractURL\":\"\",\"Answer\":\"\",\"AnswerType\":\"\",\"Definition\":\"\",\"DefinitionSource\":\"\",\"DefinitionURL\":\"\",\"Entity\":\"\",\"Heading\":\"\",\"Image\":\"\",\"ImageHeight\":\"\",\"ImageIsLogo\":\"\",\"ImageWidth\":\"\",\"Infobox\":\"\",\"Redirect\":\"\",\"RelatedTopics\":[],\"Results\":[],\"Type\":\"\",\"meta\":null}".into(),
        )),
        // The first call finds no ids: no follow-up, no results.
        "pubmed" => first_answer(engine, query, &[]),
        e if API_ENGINES.contains(&e) => results(e, query, &[]),
        _ => None,
    }
}

/// The first answer of a two-call preset (PubMed's esearch with the ids of
/// `hits`, Wikidata's wbsearchentities with the entity about `query`).
pub fn first_answer(engine: &str, query: &str, hits: &[Hit]) -> Option<Page> {
    match engine {
        "pubmed" => {
            let ids: String = hits
                .iter()
                .map(|h| {
                    let id = after(&h.url, "https://pubmed.ncbi.nlm.nih.gov/", engine);
                    format!("<Id>{}</Id>\n", id.trim_end_matches('/'))
                })
                .collect();
            let errors = if hits.is_empty() {
                format!(
                    "<ErrorList><PhraseNotFound>{}</PhraseNotFound></ErrorList><WarningList><OutputMessage>No items found.</OutputMessage></WarningList>",
                    esc(query)
                )
            } else {
                String::new()
            };
            Some(Page {
                body: format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<!DOCTYPE eSearchResult PUBLIC \"-//NLM//DTD esearch 20060628//EN\" \"https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd\">\n<eSearchResult><Count>{}</Count><RetMax>{}</RetMax><RetStart>0</RetStart><IdList>\n{ids}</IdList><TranslationSet/><QueryTranslation>{}[All Fields]</QueryTranslation>{errors}</eSearchResult>\n",
                    if hits.is_empty() {
                        0
                    } else {
                        17 * hits.len() + 2
                    },
                    hits.len(),
                    esc(&format!("\"{query}\""))
                ),
                content_type: "text/xml; charset=UTF-8",
            })
        }
        "wikidata" => Some(wikidata_search(query, &Entity::about(query))),
        _ => None,
    }
}

/// One result of `engine`'s answer, or `None` for an engine not written here.
fn item(engine: &str, i: usize, h: &Hit) -> Option<String> {
    let (y, m, d) = day(h, i);
    let date = format!("{y}-{m:02}-{d:02}");
    let people = authors(h);
    let n = num(&h.url);
    let title = json_str(&h.title);
    let url = json_str(&h.url);
    let snippet = json_str(&h.snippet);
    let (host, _) = super::display(&h.url);
    let out = match engine {
        "arxiv" => {
            let id = after(&h.url, "https://arxiv.org/abs/", engine);
            let mut e = format!(
                "  <entry>\n    <id>http://arxiv.org/abs/{id}</id>\n    <title>{}</title>\n    <updated>{date}T10:00:00Z</updated>\n    \
                 <link href=\"https://arxiv.org/abs/{id}\" rel=\"alternate\" type=\"text/html\"/>\n    \
                 <link href=\"https://arxiv.org/pdf/{id}\" rel=\"related\" type=\"application/pdf\" title=\"pdf\"/>\n    \
                 <summary>{}</summary>\n    <category term=\"cs.IR\" scheme=\"http://arxiv.org/schemas/atom\"/>\n    \
                 <category term=\"cs.DS\" scheme=\"http://arxiv.org/schemas/atom\"/>\n    <published>{date}T10:00:00Z</published>\n",
                esc(&h.title),
                esc(&h.snippet)
            );
            for (g, f) in &people {
                let _ = writeln!(e, "    <author>\n      <name>{g} {f}</name>\n    </author>");
            }
            if i % 2 == 1 {
                let _ = writeln!(
                    e,
                    "    <arxiv:journal_ref>Journal of Search Examples {} ({y})</arxiv:journal_ref>\n    <arxiv:doi>10.5555/jse.{}</arxiv:doi>",
                    10 + i,
                    n % 10_000
                );
            }
            e.push_str("    <arxiv:primary_category term=\"cs.IR\"/>\n  </entry>");
            e
        }
        "crossref" => {
            let doi = after(&h.url, "https://doi.org/", engine);
            let author: Vec<String> = people
                .iter()
                .enumerate()
                .map(|(k, (g, f))| {
                    format!(
                        "{{\"given\":{},\"family\":{},\"sequence\":\"{}\",\"affiliation\":[]}}",
                        json_str(g),
                        json_str(f),
                        if k == 0 { "first" } else { "additional" }
                    )
                })
                .collect();
            format!(
                "{{\"indexed\":{{\"date-parts\":[[2026,11,1]],\"date-time\":\"2026-11-01T00:00:00Z\",\"timestamp\":1793491200000}},\"reference-count\":{},\"publisher\":\"Example Press\",\
                 \"abstract\":{},\"DOI\":{},\"type\":\"journal-article\",\"created\":{{\"date-parts\":[[{y},{m},{d}]],\"date-time\":\"{date}T08:00:00Z\",\"timestamp\":0}},\
                 \"source\":\"Crossref\",\"is-referenced-by-count\":{},\"title\":[{title}],\"prefix\":\"10.5555\",\"volume\":\"{}\",\"author\":{},\"member\":\"7777\",\
                 \"published\":{{\"date-parts\":[[{y},{m},{d}]]}},\"container-title\":[\"Journal of Search Examples\"],\"language\":\"en\",\"score\":{}.5,\"URL\":{url}}}",
                10 + n % 40,
                json_str(&format!("<jats:p>{}</jats:p>", esc(&h.snippet))),
                json_str(doi),
                n % 90,
                1 + i,
                json_list(&author),
                20 - i
            )
        }
        "semantic_scholar" => {
            let id = after(&h.url, "https://www.semanticscholar.org/paper/", engine);
            let author: Vec<String> = people
                .iter()
                .enumerate()
                .map(|(k, (g, f))| {
                    format!(
                        "{{\"authorId\": \"{}\", \"name\": {}}}",
                        1000 + n % 9000 + k as u64,
                        json_str(&format!("{g} {f}"))
                    )
                })
                .collect();
            format!(
                "{{\"paperId\": \"{id}\", \"externalIds\": {{\"DOI\": \"10.5555/s2.{}\", \"CorpusId\": {}}}, \"url\": {url}, \"title\": {title}, \"abstract\": {snippet}, \
                 \"venue\": \"Conference on Search Examples\", \"journal\": {{\"name\": \"Journal of Search Examples\", \"volume\": \"{}\"}}, \"publicationDate\": \"{date}\", \
                 \"openAccessPdf\": {{\"url\": \"https://papers.example.org/{id}.pdf\", \"status\": \"GREEN\"}}, \"authors\": {}}}",
                n % 100_000,
                n % 200_000_000,
                1 + i,
                json_list(&author)
            )
        }
        "pubmed" => {
            let id =
                after(&h.url, "https://pubmed.ncbi.nlm.nih.gov/", engine).trim_end_matches('/');
            let names: String = people
                .iter()
                .map(|(g, f)| {
                    format!(
                        "\t\t<Item Name=\"Author\" Type=\"String\">{f} {}</Item>\n",
                        &g[..1]
                    )
                })
                .collect();
            let last = people
                .last()
                .map_or(String::new(), |(g, f)| format!("{f} {}", &g[..1]));
            format!(
                "<DocSum>\n\t<Id>{id}</Id>\n\t<Item Name=\"PubDate\" Type=\"Date\">{y} {}</Item>\n\t<Item Name=\"EPubDate\" Type=\"Date\"></Item>\n\
                 \t<Item Name=\"Source\" Type=\"String\">J Search Ex</Item>\n\t<Item Name=\"AuthorList\" Type=\"List\">\n{names}\t</Item>\n\
                 \t<Item Name=\"LastAuthor\" Type=\"String\">{last}</Item>\n\t<Item Name=\"Title\" Type=\"String\">{}</Item>\n\
                 \t<Item Name=\"Volume\" Type=\"String\">{}</Item>\n\t<Item Name=\"Issue\" Type=\"String\">{}</Item>\n\t<Item Name=\"Pages\" Type=\"String\">{}-{}</Item>\n\
                 \t<Item Name=\"LangList\" Type=\"List\">\n\t\t<Item Name=\"Lang\" Type=\"String\">English</Item>\n\t</Item>\n\
                 \t<Item Name=\"ArticleIds\" Type=\"List\">\n\t\t<Item Name=\"pubmed\" Type=\"String\">{id}</Item>\n\t\t<Item Name=\"doi\" Type=\"String\">10.5555/jse.{id}</Item>\n\t</Item>\n\
                 \t<Item Name=\"DOI\" Type=\"String\">10.5555/jse.{id}</Item>\n\t<Item Name=\"HasAbstract\" Type=\"Integer\">1</Item>\n\
                 \t<Item Name=\"FullJournalName\" Type=\"String\">Journal of search examples</Item>\n\t<Item Name=\"SO\" Type=\"String\">{y} {};{}({}):{}-{}</Item>\n</DocSum>",
                [
                    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                    "Dec"
                ][(m - 1) as usize],
                esc(&h.title),
                10 + i,
                1 + i % 4,
                100 + 10 * i,
                109 + 10 * i,
                [
                    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                    "Dec"
                ][(m - 1) as usize],
                10 + i,
                1 + i % 4,
                100 + 10 * i,
                109 + 10 * i,
            )
        }
        "openalex" => {
            let doi = after(&h.url, "https://doi.org/", engine);
            let author: Vec<String> = people
                .iter()
                .enumerate()
                .map(|(k, (g, f))| {
                    format!(
                        "{{\"author_position\":\"{}\",\"author\":{{\"id\":\"https://openalex.org/A{}\",\"display_name\":{}}}}}",
                        if k == 0 { "first" } else { "middle" },
                        5_000_000 + n % 1_000_000 + k as u64,
                        json_str(&format!("{g} {f}"))
                    )
                })
                .collect();
            format!(
                "{{\"id\":\"https://openalex.org/W{}\",\"doi\":{url},\"title\":{title},\"display_name\":{title},\"publication_year\":{y},\"publication_date\":\"{date}\",\
                 \"ids\":{{\"openalex\":\"https://openalex.org/W{}\",\"doi\":{url}}},\"authorships\":{},\
                 \"primary_location\":{{\"landing_page_url\":\"https://journal.example.org/{doi}\",\"pdf_url\":null,\"source\":{{\"display_name\":\"Journal of Search Examples\",\"host_organization_name\":\"Example Press\"}}}},\
                 \"best_oa_location\":{{\"pdf_url\":\"https://repo.example.org/{}.pdf\"}},\"biblio\":{{\"volume\":\"{}\",\"issue\":\"{}\",\"first_page\":\"1\",\"last_page\":\"12\"}},\"cited_by_count\":{}}}",
                4_000_000_000 + n % 100_000_000,
                4_000_000_000 + n % 100_000_000,
                json_list(&author),
                n % 100_000,
                10 + i,
                1 + i % 4,
                n % 300
            )
        }
        "github" => {
            let full = after(&h.url, "https://github.com/", engine);
            let (owner, _) = full.split_once('/').unwrap_or((full, ""));
            format!(
                "{{\"id\":{},\"node_id\":\"R_kgDO{:08x}\",\"name\":{},\"full_name\":{title},\"private\":false,\"owner\":{{\"login\":{},\"id\":{},\"type\":\"User\",\"html_url\":\"https://github.com/{owner}\",\"site_admin\":false}},\
                 \"html_url\":{url},\"description\":{snippet},\"fork\":false,\"url\":\"https://api.github.com/repos/{full}\",\"created_at\":\"2023-01-0{}T09:00:00Z\",\"updated_at\":\"{date}T12:00:00Z\",\"pushed_at\":\"{date}T11:00:00Z\",\
                 \"homepage\":\"https://{}.example.org/\",\"size\":{},\"stargazers_count\":{},\"watchers_count\":{},\"language\":\"Rust\",\"forks_count\":{},\"open_issues_count\":{},\
                 \"license\":{{\"key\":\"mit\",\"name\":\"MIT License\",\"spdx_id\":\"MIT\"}},\"topics\":[\"search\",\"rust\"],\"visibility\":\"public\",\"default_branch\":\"main\",\"score\":1.0}}",
                600_000_000 + n % 100_000_000,
                n as u32,
                json_str(full.split_once('/').map_or(full, |(_, r)| r)),
                json_str(owner),
                1_000_000 + n % 9_000_000,
                1 + i % 9,
                owner,
                1000 + n % 50_000,
                n % 5000,
                n % 5000,
                n % 300,
                n % 40
            )
        }
        "stackexchange" => {
            // The question's number from its link, else a made-up one.
            let id = h
                .url
                .split("/questions/")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .filter(|id| id.bytes().all(|b| b.is_ascii_digit()) && !id.is_empty())
                .map_or_else(|| (70_000_000 + n % 9_000_000).to_string(), str::to_string);
            format!(
                "{{\"tags\":[\"rust\",\"search\"],\"owner\":{{\"account_id\":{},\"reputation\":{},\"user_id\":{},\"user_type\":\"registered\",\"display_name\":{},\"link\":\"https://stackoverflow.com/users/{}\"}},\
                 \"is_answered\":true,\"view_count\":{},\"answer_count\":{},\"score\":{},\"last_activity_date\":{},\"creation_date\":{},\"question_id\":{id},\"content_license\":\"CC BY-SA 4.0\",\"link\":{url},\"title\":{}}}",
                n % 9_000_000,
                100 + n % 9000,
                n % 20_000_000,
                json_str(&format!("{} {}", people[0].0, people[0].1).to_lowercase()),
                n % 20_000_000,
                100 + n % 9000,
                1 + i % 4,
                n % 60,
                1_760_000_000 + i * 86_400,
                1_700_000_000 + (n % 50_000_000),
                // The API sends titles HTML-escaped.
                json_str(&esc(&h.title).replace('\'', "&#39;"))
            )
        }
        "crates" => {
            let id = after(&h.url, "https://crates.io/crates/", engine);
            format!(
                "{{\"id\":{},\"name\":{},\"description\":{snippet},\"max_version\":\"0.{}.0\",\"max_stable_version\":\"0.{}.0\",\"newest_version\":\"0.{}.0\",\"downloads\":{},\"recent_downloads\":{},\
                 \"created_at\":\"2024-02-0{}T10:00:00.000000+00:00\",\"updated_at\":\"{date}T10:00:00.000000+00:00\",\"homepage\":\"https://{id}.example.org/\",\"repository\":\"https://git.example.org/{id}\",\"documentation\":null,\"exact_match\":{}}}",
                json_str(id),
                json_str(id),
                1 + i,
                1 + i,
                1 + i,
                n % 900_000,
                n % 9_000,
                1 + i % 9,
                i == 0
            )
        }
        "npm" => {
            let name = h.title.as_str();
            format!(
                "{{\"package\":{{\"name\":{title},\"version\":\"1.{i}.0\",\"description\":{snippet},\"keywords\":[\"search\",\"example\"],\"date\":\"{date}T10:11:12.000Z\",\"license\":\"MIT\",\
                 \"links\":{{\"npm\":{url},\"homepage\":\"https://{}.example.org/\",\"repository\":\"https://git.example.org/{}\"}},\"publisher\":{{\"username\":{},\"email\":\"maintainer@example.org\"}}}},\
                 \"score\":{{\"final\":0.{},\"detail\":{{\"quality\":0.8,\"popularity\":0.1,\"maintenance\":0.9}}}},\"searchScore\":{}.5}}",
                pct(name),
                pct(name),
                json_str(&people[0].0.to_lowercase()),
                9 - i.min(8),
                100 - i
            )
        }
        "hackernews" => format!(
            "{{\"created_at\":\"{date}T10:00:00.000Z\",\"title\":{title},\"url\":{url},\"author\":{},\"points\":{},\"story_text\":null,\"comment_text\":null,\"num_comments\":{},\
             \"story_id\":null,\"story_title\":null,\"story_url\":null,\"parent_id\":null,\"created_at_i\":{},\"_tags\":[\"story\",\"author_x\",\"story_{}\"],\"objectID\":\"{}\"}}",
            json_str(&people[0].0.to_lowercase()),
            n % 900,
            n % 300,
            1_700_000_000 + n % 50_000_000,
            40_000_000 + n % 1_000_000,
            40_000_000 + n % 1_000_000
        ),
        "brave_images" => {
            let id = super::tag(&h.url, 32);
            format!(
                "{{\"type\":\"image_result\",\"title\":{title},\"url\":{url},\"source\":{},\"page_fetched\":\"{date}T08:05:53Z\",\
                 \"thumbnail\":{{\"src\":\"https://imgs.search.brave.com/{id}/rs:fit:500:0:0:0/g:ce/\"}},\
                 \"properties\":{{\"url\":\"https://img.{host}/{id}.jpg\",\"placeholder\":\"https://imgs.search.brave.com/{id}/rs:fit:32:32:1:0/g:ce/\",\"width\":{},\"height\":{}}},\
                 \"meta_url\":{{\"scheme\":\"https\",\"netloc\":\"{host}\",\"hostname\":\"{host}\",\"path\":\"\"}}}}",
                json_str(&super::site(&h.url)),
                800 + 100 * (n % 8),
                600 + 50 * (n % 8)
            )
        }
        "brave_videos" => format!(
            "{{\"type\":\"video_result\",\"url\":{url},\"title\":{title},\"description\":{snippet},\"age\":\"{date}\",\"page_age\":\"{date}T17:57:36\",\
             \"video\":{{\"duration\":\"{:02}:{:02}\",\"views\":{},\"creator\":{},\"publisher\":\"Example Video\"}},\
             \"meta_url\":{{\"scheme\":\"https\",\"netloc\":\"{host}\",\"hostname\":\"{host}\",\"path\":\"\"}},\
             \"thumbnail\":{{\"src\":\"https://imgs.search.brave.com/{}/rs:fit:200:200:1:0/g:ce/\",\"original\":\"https://img.{host}/{}.jpg\"}}}}",
            1 + n % 40,
            n % 60,
            n % 9_000_000,
            json_str(&format!("{} {}", people[0].0, people[0].1)),
            super::tag(&h.url, 40),
            super::tag(&h.url, 12)
        ),
        "brave_news" => format!(
            "{{\"type\":\"news_result\",\"title\":{title},\"url\":{url},\"description\":{snippet},\"age\":\"{} hours ago\",\"page_age\":\"{date}T09:00:00\",\
             \"breaking\":false,\"meta_url\":{{\"scheme\":\"https\",\"netloc\":\"{host}\",\"hostname\":\"{host}\",\"path\":\"\"}},\"thumbnail\":{{\"src\":\"https://imgs.search.brave.com/{}/rs:fit:200:200:1:0/g:ce/\"}}}}",
            1 + i,
            super::tag(&h.url, 40)
        ),
        "wikimedia_commons" => {
            let name = h
                .title
                .strip_prefix("File:")
                .unwrap_or(&h.title)
                .replace(' ', "_");
            let hash = super::tag(&name, 2);
            format!(
                "{{\"pageid\":{},\"ns\":6,\"title\":{title},\"index\":{},\"imagerepository\":\"local\",\"imageinfo\":[{{\"size\":{},\"width\":{},\"height\":{},\
                 \"thumburl\":\"https://upload.wikimedia.org/wikipedia/commons/thumb/{}/{hash}/{}/320px-{}\",\"thumbwidth\":320,\"thumbheight\":213,\
                 \"url\":\"https://upload.wikimedia.org/wikipedia/commons/{}/{hash}/{}\",\"descriptionurl\":{url},\"descriptionshorturl\":\"https://commons.wikimedia.org/w/index.php?curid={}\",\
                 \"extmetadata\":{{\"Artist\":{{\"value\":{},\"source\":\"commons-desc-page\"}},\"LicenseShortName\":{{\"value\":\"CC BY-SA 4.0\",\"source\":\"commons-desc-page\"}}}}}}]}}",
                100_000 + n % 9_000_000,
                i + 1,
                50_000 + n % 900_000,
                1200 + 100 * (n % 6),
                800 + 100 * (n % 4),
                &hash[..1],
                pct(&name),
                pct(&name),
                &hash[..1],
                pct(&name),
                100_000 + n % 9_000_000,
                json_str(&format!(
                    "<a href=\"//commons.wikimedia.org/wiki/User:{}\" title=\"User:{}\">{} {}</a>",
                    people[0].0, people[0].0, people[0].0, people[0].1
                ))
            )
        }
        "openverse" => {
            let id = format!("{:08x}-0000-4000-8000-{:012x}", n as u32, n >> 16);
            format!(
                "{{\"id\":\"{id}\",\"title\":{title},\"indexed_on\":\"{date}T00:00:00Z\",\"foreign_landing_url\":{url},\"url\":\"https://img.{host}/{id}.jpg\",\
                 \"creator\":{},\"creator_url\":null,\"license\":\"by\",\"license_version\":\"4.0\",\"license_url\":\"https://creativecommons.org/licenses/by/4.0/\",\
                 \"provider\":\"exampleprovider\",\"source\":\"examplesource\",\"category\":\"photograph\",\"filesize\":null,\"filetype\":\"jpg\",\"tags\":[],\
                 \"attribution\":\"our own example\",\"mature\":false,\"height\":{},\"width\":{},\"thumbnail\":\"https://api.openverse.org/v1/images/{id}/thumb/\",\
                 \"detail_url\":\"https://api.openverse.org/v1/images/{id}/\",\"related_url\":\"https://api.openverse.org/v1/images/{id}/related/\",\"unstable__sensitivity\":[]}}",
                json_str(&format!("{} {}", people[0].0, people[0].1)),
                2000 + 100 * (n % 10),
                3000 + 100 * (n % 10)
            )
        }
        "peertube" => {
            let uuid = format!(
                "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
                n as u32,
                (n >> 32) as u16,
                (n >> 20) & 0xfff,
                (n >> 8) & 0xfff,
                n >> 12
            );
            format!(
                "{{\"id\":{},\"uuid\":\"{uuid}\",\"shortUUID\":\"{}\",\"name\":{title},\"description\":{snippet},\"duration\":{},\"publishedAt\":\"{date}T07:08:09.000Z\",\
                 \"url\":{url},\"embedUrl\":\"https://{host}/videos/embed/{uuid}\",\"embedPath\":\"/videos/embed/{uuid}\",\"thumbnailUrl\":\"https://{host}/lazy-static/thumbnails/{uuid}.jpg\",\
                 \"thumbnailPath\":\"/lazy-static/thumbnails/{uuid}.jpg\",\"views\":{},\"likes\":{},\"isLocal\":false,\
                 \"channel\":{{\"name\":\"example_talks\",\"displayName\":\"Example Talks\",\"host\":\"{host}\"}},\"account\":{{\"name\":{},\"displayName\":{},\"host\":\"{host}\"}}}}",
                n % 900_000,
                super::tag(&h.url, 22),
                60 + n % 3600,
                n % 90_000,
                n % 900,
                json_str(&people[0].0.to_lowercase()),
                json_str(&format!("{} {}", people[0].0, people[0].1))
            )
        }
        "nominatim" => {
            let rest = after(&h.url, "https://www.openstreetmap.org/", engine);
            let (kind, id) = rest.split_once('/').unwrap_or((rest, "1"));
            // Nominatim gives no snippet: a hit's snippet, when it is
            // `lat, lon`, places it (the demo's real places).
            let (lat, lon) = h
                .snippet
                .split_once(',')
                .and_then(|(a, b)| {
                    Some((a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?))
                })
                .unwrap_or((
                    30.0 + (n % 2_000_000) as f64 / 100_000.0,
                    -(70.0 + (n / 7 % 2_000_000) as f64 / 100_000.0),
                ));
            // The address from the display name: place, …, state, country.
            let parts: Vec<&str> = h.title.split(", ").collect();
            let place = parts[0];
            let country = if parts.len() > 1 {
                parts[parts.len() - 1]
            } else {
                "Exampleland"
            };
            let state = if parts.len() > 2 {
                parts[parts.len() - 2]
            } else {
                "Example State"
            };
            format!(
                "{{\"place_id\":{},\"licence\":\"Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright\",\"osm_type\":\"{kind}\",\"osm_id\":{id},\
                 \"lat\":\"{lat:.7}\",\"lon\":\"{lon:.7}\",\"category\":\"place\",\"type\":\"town\",\"place_rank\":16,\"importance\":0.{},\"addresstype\":\"town\",\
                 \"name\":{},\"display_name\":{title},\"address\":{{\"town\":{},\"state\":{},\"country\":{}}},\
                 \"boundingbox\":[\"{:.7}\",\"{:.7}\",\"{:.7}\",\"{:.7}\"]}}",
                100_000_000 + n % 100_000_000,
                5 + n % 4,
                json_str(place),
                json_str(place),
                json_str(state),
                json_str(country),
                lat - 0.05,
                lat + 0.05,
                lon - 0.05,
                lon + 0.05
            )
        }
        _ => return None,
    };
    Some(out)
}

fn arxiv(query: &str, entries: &[String], total: usize) -> Page {
    let q = esc(&pct(query));
    Page {
        body: format!(
            "<?xml version='1.0' encoding='UTF-8'?>\n<feed xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:arxiv=\"http://arxiv.org/schemas/atom\" xmlns=\"http://www.w3.org/2005/Atom\">\n  \
             <id>https://arxiv.org/api/{}</id>\n  <title>arXiv Query: search_query=all:{q}&amp;id_list=&amp;start=0&amp;max_results=10</title>\n  <updated>2026-11-28T04:00:00Z</updated>\n  \
             <link href=\"https://arxiv.org/api/query?search_query=all:{q}&amp;start=0&amp;max_results=10&amp;id_list=\" type=\"application/atom+xml\"/>\n  \
             <opensearch:itemsPerPage>10</opensearch:itemsPerPage>\n  <opensearch:totalResults>{total}</opensearch:totalResults>\n  <opensearch:startIndex>0</opensearch:startIndex>\n{}{}</feed>\n",
            super::tag(query, 27),
            entries.join("\n"),
            if entries.is_empty() { "" } else { "\n" }
        ),
        content_type: "application/atom+xml; charset=UTF-8",
    }
}

/// An entity a box is about, in our words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    /// Its name (the article's title).
    pub title: String,
    /// A short description (Wikidata's, Wikipedia's `description`).
    pub description: String,
    /// The article's first sentences.
    pub extract: String,
    /// Its English Wikipedia article (the box's id).
    pub article: String,
    /// Its Chinese name and article, where it has one.
    pub zh: Option<(String, String)>,
    /// The Chinese article's description and first sentences.
    pub zh_text: Option<(String, String)>,
    /// When it began (Wikidata's `P571`, `+YYYY-MM-DDT00:00:00Z`).
    pub inception: Option<String>,
    /// Its official site.
    pub website: Option<String>,
    /// A picture's file name on Wikimedia Commons.
    pub image: Option<String>,
    /// Its Wikidata item number.
    pub qid: u64,
}

impl Entity {
    /// A made-up entity named by `query`.
    pub fn about(query: &str) -> Entity {
        let title: String = {
            let mut c = query.trim().chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        };
        let slug = pct(&title.replace(' ', "_"));
        Entity {
            description: format!("subject of our own example about {query}"),
            extract: format!(
                "{title} is the subject of a short article written for metasift's tests. It says two things about it, in our own words."
            ),
            article: format!("https://en.wikipedia.org/wiki/{slug}"),
            zh: Some((
                format!("{title}（示例）"),
                format!("https://zh.wikipedia.org/wiki/{slug}"),
            )),
            zh_text: None,
            inception: Some(format!(
                "+20{:02}-0{}-1{}T00:00:00Z",
                num(query) % 25,
                1 + num(query) % 9,
                num(query) % 10
            )),
            website: Some(format!("https://{}.example.org/", super::tag(query, 8))),
            image: Some(format!("{title} example.png")),
            qid: 100_000 + num(query) % 90_000_000,
            title,
        }
    }
}

/// The answer of box preset `engine` about `e` (Wikidata's second call).
pub fn entity_answer(engine: &str, e: &Entity) -> Page {
    let image_url = |width: u32| {
        e.image.as_ref().map(|f| {
            let f = pct(&f.replace(' ', "_"));
            format!("https://upload.wikimedia.org/wikipedia/commons/thumb/{0}/{0}{1}/{f}/{width}px-{f}.png", &super::tag(&f, 1), &super::tag(&f, 2)[1..])
        })
    };
    let body = match engine {
        "wikipedia_summary" | "wikipedia_summary_zh" => {
            let (title, url, extract, description) = if engine == "wikipedia_summary" {
                (
                    e.title.clone(),
                    e.article.clone(),
                    e.extract.clone(),
                    e.description.clone(),
                )
            } else {
                let (t, u) = e.zh.clone().unwrap_or((e.title.clone(), e.article.clone()));
                let (description, extract) = e.zh_text.clone().unwrap_or_else(|| {
                    (
                        "我们自己写的示例".to_string(),
                        format!("{t}是为 metasift 的测试写的一篇短文的主题。"),
                    )
                });
                (t.clone(), u, extract, description)
            };
            let thumb = image_url(320).map_or(String::new(), |u| {
                format!(",\"thumbnail\":{{\"source\":{},\"width\":320,\"height\":240}},\"pageimage\":{}", json_str(&u), json_str(&e.image.clone().unwrap_or_default().replace(' ', "_")))
            });
            format!(
                "{{\"batchcomplete\":true,\"query\":{{\"pages\":[{{\"pageid\":{},\"ns\":0,\"title\":{},\"extract\":{}{thumb},\"contentmodel\":\"wikitext\",\"pagelanguage\":\"{}\",\
                 \"touched\":\"2026-11-01T00:00:00Z\",\"lastrevid\":{},\"length\":{},\"fullurl\":{},\"editurl\":{},\"canonicalurl\":{},\
                 \"pageprops\":{{\"wikibase_item\":\"Q{}\"}},\"description\":{},\"descriptionsource\":\"local\"}}]}}}}",
                e.qid % 70_000_000,
                json_str(&title),
                json_str(&extract),
                if engine == "wikipedia_summary" {
                    "en"
                } else {
                    "zh"
                },
                1_200_000_000 + e.qid,
                20_000 + e.qid % 90_000,
                json_str(&url),
                json_str(&format!("{url}?action=edit")),
                json_str(&url),
                e.qid,
                json_str(&description)
            )
        }
        "wikidata" => {
            let mut claims = Vec::new();
            if let Some(site) = &e.website {
                claims.push(format!(
                    "\"P856\":[{{\"mainsnak\":{{\"snaktype\":\"value\",\"property\":\"P856\",\"datavalue\":{{\"value\":{},\"type\":\"string\"}},\"datatype\":\"url\"}},\"type\":\"statement\",\"rank\":\"normal\"}}]",
                    json_str(site)
                ));
            }
            if let Some(image) = &e.image {
                claims.push(format!(
                    "\"P18\":[{{\"mainsnak\":{{\"snaktype\":\"value\",\"property\":\"P18\",\"datavalue\":{{\"value\":{},\"type\":\"string\"}},\"datatype\":\"commonsMedia\"}},\"type\":\"statement\",\"rank\":\"normal\"}}]",
                    json_str(image)
                ));
            }
            if let Some(time) = &e.inception {
                claims.push(format!(
                    "\"P571\":[{{\"mainsnak\":{{\"snaktype\":\"value\",\"property\":\"P571\",\"datavalue\":{{\"value\":{{\"time\":{},\"timezone\":0,\"before\":0,\"after\":0,\"precision\":11,\"calendarmodel\":\"http://www.wikidata.org/entity/Q1985727\"}},\"type\":\"time\"}},\"datatype\":\"time\"}},\"type\":\"statement\",\"rank\":\"normal\"}}]",
                    json_str(time)
                ));
            }
            let (zh_label, zh_site) = match &e.zh {
                Some((t, u)) => (
                    format!(",\"zh\":{{\"language\":\"zh\",\"value\":{}}}", json_str(t)),
                    format!(
                        ",\"zhwiki\":{{\"site\":\"zhwiki\",\"title\":{},\"badges\":[],\"url\":{}}}",
                        json_str(t),
                        json_str(u)
                    ),
                ),
                None => (String::new(), String::new()),
            };
            format!(
                "{{\"entities\":{{\"Q{0}\":{{\"type\":\"item\",\"id\":\"Q{0}\",\"labels\":{{\"en\":{{\"language\":\"en\",\"value\":{1}}}{2}}},\
                 \"descriptions\":{{\"en\":{{\"language\":\"en\",\"value\":{3}}}}},\"claims\":{{{4}}},\
                 \"sitelinks\":{{\"enwiki\":{{\"site\":\"enwiki\",\"title\":{1},\"badges\":[],\"url\":{5}}}{6}}}}}}},\"success\":1}}",
                e.qid,
                json_str(&e.title),
                zh_label,
                json_str(&e.description),
                claims.join(","),
                json_str(&e.article),
                zh_site
            )
        }
        "duckduckgo_instant" => {
            let image = image_url(320)
                .map(|_| format!("/i/{}.png", super::tag(&e.title, 16)))
                .unwrap_or_default();
            format!(
                "{{\"Abstract\":{0},\"AbstractSource\":\"Wikipedia\",\"AbstractText\":{0},\"AbstractURL\":{1},\"Answer\":\"\",\"AnswerType\":\"\",\"Definition\":\"\",\"DefinitionSource\":\"\",\"DefinitionURL\":\"\",\
                 \"Entity\":\"\",\"Heading\":{2},\"Image\":{3},\"ImageHeight\":240,\"ImageIsLogo\":0,\"ImageWidth\":320,\"Infobox\":\"\",\"Redirect\":\"\",\
                 \"RelatedTopics\":[{{\"FirstURL\":\"https://duckduckgo.com/c/Examples\",\"Icon\":{{\"Height\":\"\",\"URL\":\"\",\"Width\":\"\"}},\"Result\":\"<a href=\\\"https://duckduckgo.com/c/Examples\\\">Examples</a>\",\"Text\":\"Examples\"}}],\
                 \"Results\":[],\"Type\":\"A\",\"meta\":{{\"id\":\"wikipedia_fathead\",\"name\":\"Wikipedia\",\"src_domain\":\"en.wikipedia.org\"}}}}",
                json_str(&e.extract),
                json_str(&e.article),
                json_str(&e.title),
                json_str(&image)
            )
        }
        other => panic!("no box answer written for {other:?}"),
    };
    json_page(body)
}

/// Wikidata's first answer (wbsearchentities) finding `e` for `query`.
pub fn wikidata_search(query: &str, e: &Entity) -> Page {
    json_page(format!(
        "{{\"searchinfo\":{{\"search\":{}}},\"search\":[{{\"id\":\"Q{1}\",\"title\":\"Q{1}\",\"pageid\":{2},\"display\":{{\"label\":{{\"value\":{3},\"language\":\"en\"}},\"description\":{{\"value\":{4},\"language\":\"en\"}}}},\
         \"repository\":\"wikidata\",\"url\":\"//www.wikidata.org/wiki/Q{1}\",\"concepturi\":\"http://www.wikidata.org/entity/Q{1}\",\"label\":{3},\"description\":{4},\
         \"match\":{{\"type\":\"label\",\"language\":\"en\",\"text\":{3}}}}}],\"search-continue\":1,\"success\":1}}",
        json_str(query),
        e.qid,
        e.qid % 90_000_000,
        json_str(&e.title),
        json_str(&e.description)
    ))
}
