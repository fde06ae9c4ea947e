//! The canonical identifier rules: data only (the matcher is the parent
//! module). docs/dedup.md, "Canonical identifiers", says how to add one.
//!
//! Each row: the identifier's namespace, the link form's name, the hosts
//! (as the URL key writes them: lower-case, `www.` / `m.` / `mobile.`
//! already gone; `*.x.y` is one or more labels before `x.y`, `*` any host),
//! the path pattern (`/`-separated segments: a literal, `a|b` for any of
//! several, `*` for any one segment, `{id}` for one captured segment and
//! `{id+}` for the rest of the path; a capture may end in a literal suffix,
//! `{id}.git`; every capture joins the identifier, in order), the query
//! parameter holding the identifier if any, which other parameters the
//! form allows, how the identifier is checked and normalised, what of the
//! host is part of the identity, and the form's rank (the link shown for a
//! group is the highest-ranked one: the abstract page over the PDF, the
//! watch page over the embed). Rows are tried in order: a more specific
//! form comes before a general one.

use super::{Id, Query, Rule, Scope};

const fn rule(ns: &'static str, form: &'static str, hosts: &'static [&'static str]) -> Rule {
    Rule {
        ns,
        form,
        hosts,
        path: "",
        param: None,
        query: Query::Any,
        id: Id::Digits,
        scope: Scope::Global,
        rank: 2,
    }
}

impl Rule {
    const fn path(mut self, path: &'static str) -> Self {
        self.path = path;
        self
    }
    const fn param(mut self, name: &'static str) -> Self {
        self.param = Some(name);
        self
    }
    const fn query(mut self, query: Query) -> Self {
        self.query = query;
        self
    }
    const fn id(mut self, id: Id) -> Self {
        self.id = id;
        self
    }
    const fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }
    const fn rank(mut self, rank: u8) -> Self {
        self.rank = rank;
        self
    }
}

const ARXIV: &[&str] = &["arxiv.org", "export.arxiv.org"];
const DOI_ORG: &[&str] = &["doi.org", "dx.doi.org"];
const YOUTUBE: &[&str] = &["youtube.com", "music.youtube.com"];
const GITHUB: &[&str] = &["github.com"];
/// The Stack Exchange network: each site is its own namespace (the host
/// is part of the identity).
const STACK_EXCHANGE: &[&str] = &[
    "stackoverflow.com",
    "*.stackoverflow.com",
    "*.stackexchange.com",
    "superuser.com",
    "*.superuser.com",
    "serverfault.com",
    "*.serverfault.com",
    "askubuntu.com",
    "*.askubuntu.com",
    "mathoverflow.net",
    "*.mathoverflow.net",
    "stackapps.com",
];
const REDDIT: &[&str] = &[
    "reddit.com",
    "old.reddit.com",
    "new.reddit.com",
    "np.reddit.com",
];
/// `mobile.twitter.com` is already `twitter.com` in the URL key; the
/// others are the embed fixers people share status links through.
const TWITTER: &[&str] = &[
    "twitter.com",
    "x.com",
    "fxtwitter.com",
    "vxtwitter.com",
    "fixupx.com",
];
const WIKIPEDIA: &[&str] = &["*.wikipedia.org"];
const PMC_NEW: &[&str] = &["pmc.ncbi.nlm.nih.gov"];
const NCBI: &[&str] = &["ncbi.nlm.nih.gov"];
const EUROPE_PMC: &[&str] = &["europepmc.org"];

/// Any query: the identifier alone names the item (a YouTube link's `t=`,
/// `list=`, `si=` say where and how it plays).
const ANY: Query = Query::Any;
/// No query parameter but the identifier's: another one makes another
/// view (`?oldid=` on Wikipedia, `?tab=` on a doi.org link is unheard of).
const NONE: Query = Query::None;

#[rustfmt::skip]
pub(super) static RULES: &[Rule] = &[
    // arXiv: the abstract page first; versions fold (`v2` is the same
    // paper), old-style IDs (`hep-th/9901001`) span two segments.
    rule("arxiv", "abs", ARXIV).path("/abs/{id+}").id(Id::Arxiv).rank(4),
    rule("arxiv", "html", ARXIV).path("/html/{id+}").id(Id::Arxiv).rank(3),
    rule("arxiv", "pdf", ARXIV).path("/pdf/{id+}.pdf").id(Id::Arxiv).rank(1),
    rule("arxiv", "pdf", ARXIV).path("/pdf/{id+}").id(Id::Arxiv).rank(1),
    rule("arxiv", "doi", DOI_ORG).path("/10.48550/{id+}").query(NONE).id(Id::ArxivDoi).rank(2),
    // DOIs: case-insensitive; the resolver, then publishers' paths.
    rule("doi", "doi.org", DOI_ORG).path("/{id+}").query(NONE).id(Id::Doi("")).rank(3),
    rule("doi", "publisher-pdf", &["*"]).path("/doi/pdf|epdf|pdfdirect|pdfplus/{id+}").id(Id::DoiPath).rank(1),
    rule("doi", "publisher", &["*"]).path("/doi/abs|full|fullHtml|book|reader/{id+}").id(Id::DoiPath).rank(3),
    rule("doi", "publisher", &["*"]).path("/doi/{id+}").id(Id::DoiPath).rank(3),
    rule("doi", "springer-pdf", &["link.springer.com"]).path("/content/pdf/{id+}.pdf").id(Id::Doi("")).rank(1),
    rule("doi", "springer", &["link.springer.com"]).path("/article|chapter|book|referenceworkentry/{id+}").id(Id::Doi("")).rank(3),
    rule("doi", "nature-pdf", &["nature.com"]).path("/articles/{id}.pdf").id(Id::Doi("10.1038/")).rank(1),
    rule("doi", "nature", &["nature.com"]).path("/articles/{id}").id(Id::Doi("10.1038/")).rank(3),
    rule("doi", "plos", &["journals.plos.org"]).path("/*/article").param("id").id(Id::Doi("")).rank(3),
    rule("doi", "plos-file", &["journals.plos.org"]).path("/*/article/file").param("id").id(Id::Doi("")).rank(1),
    rule("doi", "preprint", &["biorxiv.org", "medrxiv.org"]).path("/content/{id+}").id(Id::PreprintDoi).rank(3),
    // PubMed and PubMed Central: old and new hosts, Europe PMC's mirror.
    rule("pubmed", "pubmed", &["pubmed.ncbi.nlm.nih.gov"]).path("/{id}").rank(3),
    rule("pubmed", "ncbi", NCBI).path("/pubmed/{id}").rank(2),
    rule("pubmed", "europepmc", EUROPE_PMC).path("/article|abstract/MED/{id}").rank(1),
    rule("pmc", "pmc", PMC_NEW).path("/articles/{id}").id(Id::Pmc).rank(3),
    rule("pmc", "pmc-pdf", PMC_NEW).path("/articles/{id}/pdf").id(Id::Pmc).rank(1),
    rule("pmc", "pmc-pdf", PMC_NEW).path("/articles/{id}/pdf/*").id(Id::Pmc).rank(1),
    rule("pmc", "ncbi", NCBI).path("/pmc/articles/{id}").id(Id::Pmc).rank(2),
    rule("pmc", "ncbi-pdf", NCBI).path("/pmc/articles/{id}/pdf").id(Id::Pmc).rank(1),
    rule("pmc", "ncbi-pdf", NCBI).path("/pmc/articles/{id}/pdf/*").id(Id::Pmc).rank(1),
    rule("pmc", "europepmc", EUROPE_PMC).path("/article/PMC/{id}").id(Id::Pmc).rank(1),
    // YouTube: the watch page first, then the short link, the embeds last.
    rule("youtube", "watch", YOUTUBE).path("/watch").param("v").query(ANY).id(Id::YouTube).rank(4),
    rule("youtube", "shorts", YOUTUBE).path("/shorts|live/{id}").query(ANY).id(Id::YouTube).rank(3),
    rule("youtube", "youtu.be", &["youtu.be"]).path("/{id}").query(ANY).id(Id::YouTube).rank(2),
    rule("youtube", "embed", YOUTUBE).path("/embed|v/{id}").query(ANY).id(Id::YouTube).rank(1),
    rule("youtube", "nocookie", &["youtube-nocookie.com"]).path("/embed|v/{id}").query(ANY).id(Id::YouTube).rank(1),
    // GitHub: the repository root and its plain views only (its README
    // tab, the usual default branches' root); issues, pulls, files and
    // other branches are other items.
    rule("github", "git", GITHUB).path("/{id}/{id}.git").query(NONE).id(Id::GitHubRepo).rank(1),
    rule("github", "repo", GITHUB).path("/{id}/{id}").query(Query::Only(&["tab"])).id(Id::GitHubRepo).rank(3),
    rule("github", "tree", GITHUB).path("/{id}/{id}/tree/main|master").query(NONE).id(Id::GitHubRepo).rank(2),
    // Stack Exchange: questions, and answers apart (an answer is not its
    // question); each site its own namespace.
    rule("stackexchange", "question", STACK_EXCHANGE).path("/questions/{id}/*").scope(Scope::Host).rank(3),
    rule("stackexchange", "question", STACK_EXCHANGE).path("/questions/{id}").scope(Scope::Host).rank(2),
    rule("stackexchange", "share", STACK_EXCHANGE).path("/q/{id}").scope(Scope::Host).rank(1),
    rule("stackexchange", "share", STACK_EXCHANGE).path("/q/{id}/*").scope(Scope::Host).rank(1),
    rule("stackexchange-answer", "answer", STACK_EXCHANGE).path("/questions/*/*/{id}").scope(Scope::Host).rank(3),
    rule("stackexchange-answer", "share", STACK_EXCHANGE).path("/a/{id}").scope(Scope::Host).rank(1),
    rule("stackexchange-answer", "share", STACK_EXCHANGE).path("/a/{id}/*").scope(Scope::Host).rank(1),
    // Reddit: a post by its ID, whatever the subreddit or slug (a
    // comment's permalink, one segment more, is not the post).
    rule("reddit", "post", REDDIT).path("/r/*/comments/{id}/*").id(Id::Base36).rank(3),
    rule("reddit", "post", REDDIT).path("/r/*/comments/{id}").id(Id::Base36).rank(2),
    rule("reddit", "post", REDDIT).path("/user|u/*/comments/{id}/*").id(Id::Base36).rank(2),
    rule("reddit", "comments", REDDIT).path("/comments/{id}").id(Id::Base36).rank(1),
    rule("reddit", "comments", REDDIT).path("/comments/{id}/*").id(Id::Base36).rank(1),
    rule("reddit", "redd.it", &["redd.it"]).path("/{id}").id(Id::Base36).rank(1),
    // Twitter / X: the status ID alone names the post.
    rule("twitter", "status", TWITTER).path("/*/status|statuses/{id}").rank(3),
    rule("twitter", "web", TWITTER).path("/i/web/status/{id}").rank(2),
    // Wikipedia: the language is part of the identity.
    rule("wikipedia", "wiki", WIKIPEDIA).path("/wiki/{id+}").query(NONE).id(Id::Wiki).scope(Scope::Label).rank(3),
    rule("wikipedia", "index.php", WIKIPEDIA).path("/w/index.php").param("title").query(NONE).id(Id::Wiki).scope(Scope::Label).rank(2),
    rule("wikipedia", "variant", &["zh.wikipedia.org"]).path("/zh|zh-hans|zh-hant|zh-cn|zh-tw|zh-hk|zh-sg|zh-mo|zh-my/{id+}").query(NONE).id(Id::Wiki).scope(Scope::Label).rank(3),
    // Package pages. docs.rs is a crate's documentation, not its page:
    // no rule.
    rule("npm", "package", &["npmjs.com"]).path("/package/{id}").query(Query::Only(&["activeTab=readme"])).id(Id::Npm).rank(3),
    rule("npm", "package", &["npmjs.com"]).path("/package/{id}/{id}").query(Query::Only(&["activeTab=readme"])).id(Id::Npm).rank(3),
    rule("crates", "crates.io", &["crates.io"]).path("/crates/{id}").query(NONE).id(Id::Crate).rank(3),
    rule("crates", "lib.rs", &["lib.rs"]).path("/crates/{id}").query(NONE).id(Id::Crate).rank(2),
];
