//! The map in `ARCHITECTURE.md` is the code's map: this test reads the table
//! "Who may import whom" and every `crate::…` path under `src/`, and fails
//! when a top-level module reaches one the table does not allow, when a
//! module is missing from the table, or when the table itself has a cycle.
//! It also keeps the dedup crate's manifest free of web and async crates and
//! `anyhow` in the binary only (issue #11), and the files of `src/web/` from
//! importing each other in a circle (issue #26).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `module → modules it may import`, read from ARCHITECTURE.md's table.
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md at the top level");
    let section = text
        .split("## Who may import whom")
        .nth(1)
        .expect("ARCHITECTURE.md has a \"## Who may import whom\" section");
    let mut table = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [module, imports, ..] = cells.as_slice() else {
            continue;
        };
        // Rows name a module as `name`; the header and the rule line do not.
        let Some(name) = backticked(module).into_iter().next() else {
            continue;
        };
        table.insert(name, backticked(imports).into_iter().collect());
    }
    assert!(!table.is_empty(), "no rows read from the import table");
    table
}

/// The words written in backticks in a table cell.
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/search/fetch.rs` →
/// `search`); `None` for `lib.rs` and `main.rs`.
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).expect("file below src");
    let first = rel.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" => None,
        name => Some(name.trim_end_matches(".rs").to_string()),
    }
}

/// The top-level modules a file names as `crate::name`, outside comments.
fn crate_imports(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            // `metasift_dedup::…` or `some_crate::` are not this crate.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn modules_import_only_what_architecture_md_allows() {
    let table = allowed();
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();

    let mut modules = BTreeSet::new();
    let mut wrong = Vec::new();
    for file in &files {
        let Some(module) = top_module(&src, file) else {
            continue;
        };
        modules.insert(module.clone());
        let Some(may) = table.get(&module) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable source");
        for used in crate_imports(&text) {
            if used != module && !may.contains(&used) {
                wrong.push(format!(
                    "{} (module `{module}`) imports `crate::{used}`; ARCHITECTURE.md allows {:?}",
                    file.strip_prefix(ROOT).unwrap_or(file).display(),
                    may
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports the table forbids:\n{}",
        wrong.join("\n")
    );

    let listed: BTreeSet<String> = table.keys().cloned().collect();
    let missing: Vec<_> = modules.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "modules of src/ missing from ARCHITECTURE.md's table: {missing:?}"
    );
    let stale: Vec<_> = listed
        .iter()
        .filter(|m| !modules.contains(*m) && !m.ends_with(".rs"))
        .collect();
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md lists modules src/ does not have: {stale:?}"
    );
}

#[test]
fn the_import_table_has_no_cycle() {
    let table = allowed();
    // Depth-first search with colours; the table is small.
    fn visit<'a>(
        node: &'a str,
        table: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) {
        match state.get(node) {
            Some(true) => return,
            Some(false) => panic!(
                "import cycle in ARCHITECTURE.md: {} → {node}",
                path.join(" → ")
            ),
            None => {}
        }
        state.insert(node, false);
        path.push(node);
        for next in table.get(node).into_iter().flatten() {
            if table.contains_key(next) {
                visit(next, table, state, path);
            }
        }
        path.pop();
        state.insert(node, true);
    }
    let mut state = BTreeMap::new();
    for node in table.keys() {
        visit(node, &table, &mut state, &mut Vec::new());
    }
}

/// The sibling files a file of a module folder names through `super::`
/// (`super::pages::X`, `use super::{i18n::Tr, ops}`); a name the folder's
/// `mod.rs` re-exports (`pub use error::AppError`) counts as its file.
fn sibling_imports(
    text: &str,
    siblings: &BTreeSet<String>,
    reexported: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    let mut name = |n: String| {
        if siblings.contains(&n) {
            found.insert(n);
        } else if let Some(file) = reexported.get(&n) {
            found.insert(file.clone());
        }
    };
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "super::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        match rest.strip_prefix('{') {
            Some(group) => {
                // Top-level entries of the group only.
                let mut depth = 0;
                let mut entry = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            name(ident(&entry));
                            entry.clear();
                            continue;
                        }
                        _ => {}
                    }
                    if depth == 0 || c != '{' {
                        entry.push(c);
                    }
                }
                name(ident(&entry));
            }
            None => name(ident(rest)),
        }
    }
    found
}

#[test]
fn the_files_of_web_import_each_other_without_a_circle() {
    let dir = Path::new(ROOT).join("src/web");
    // A folder (`lab/`) is one node: its files' code, read as seen from `src/web/`.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("src/web")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs") || p.is_dir())
        .collect();
    files.sort();
    let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
    let siblings: BTreeSet<String> = files
        .iter()
        .map(|p| stem(p))
        .filter(|s| s != "mod")
        .collect();
    let root = std::fs::read_to_string(dir.join("mod.rs")).expect("src/web/mod.rs");
    // `pub use file::{A, B as C};` in mod.rs: the names it re-exports.
    let mut reexported = BTreeMap::new();
    for line in root.lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((file, items)) = path.split_once("::") else {
            continue;
        };
        if !siblings.contains(file) {
            continue;
        }
        for item in items.trim_matches(|c| "{};".contains(c)).split(',') {
            let item = item.split(" as ").last().unwrap_or("").trim();
            if !item.is_empty() {
                reexported.insert(item.to_string(), file.to_string());
            }
        }
    }
    let graph: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .filter(|p| stem(p) != "mod")
        .map(|p| {
            let text = if p.is_dir() {
                folder_as_web_file(p)
            } else {
                read(p)
            };
            let mut uses = sibling_imports(&text, &siblings, &reexported);
            uses.remove(&stem(p));
            (stem(p), uses)
        })
        .collect();
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) {
        match state.get(node) {
            Some(true) => return,
            Some(false) => panic!(
                "files of src/web/ import each other in a circle: {} → {node}",
                path.join(" → ")
            ),
            None => {}
        }
        state.insert(node, false);
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, state, path);
        }
        path.pop();
        state.insert(node, true);
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        visit(node, &graph, &mut state, &mut Vec::new());
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).expect("readable source")
}

/// The code of a folder module of `src/web/`, with each file's paths to the
/// other files of `src/web/` written as from a file of `src/web/` itself:
/// in its `mod.rs` `super::` already is; in the others `super::super::` is,
/// and `super::` names the folder's own files.
fn folder_as_web_file(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let p = entry.expect("directory entry").path();
        if p.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let code = read(&p);
        if p.file_stem().is_some_and(|s| s == "mod") {
            text.push_str(&code);
        } else {
            let code = code
                .replace("super::super::", "\u{1}")
                .replace("super::", "own::")
                .replace('\u{1}', "super::");
            text.push_str(&code);
        }
        text.push('\n');
    }
    text
}

#[test]
fn sibling_imports_reads_groups_and_reexports() {
    let siblings: BTreeSet<String> = ["pages", "ui", "i18n", "error"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let reexported: BTreeMap<String, String> =
        [("AppError".to_string(), "error".to_string())].into();
    let text = "use super::{AppState, i18n::{Tr, locales}, ui::Format};\n\
                // super::pages is only in a comment\n\
                let x = super::super::config;\n\
                fn f() -> super::AppError {}\n";
    let found = sibling_imports(text, &siblings, &reexported);
    let expected: BTreeSet<String> = ["i18n", "ui", "error"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn the_dedup_crate_names_no_web_or_async_crate() {
    let manifest =
        std::fs::read_to_string(Path::new(ROOT).join("crates/metasift-dedup/Cargo.toml"))
            .expect("crates/metasift-dedup/Cargo.toml");
    let manifest: toml::Table = manifest.parse().expect("a TOML manifest");
    for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
        let Some(deps) = manifest.get(table).and_then(|t| t.as_table()) else {
            continue;
        };
        for name in deps.keys() {
            for forbidden in [
                "axum", "askama", "reqwest", "tokio", "tower", "hyper", "redis",
            ] {
                assert!(
                    !name.starts_with(forbidden),
                    "crates/metasift-dedup [{table}] names `{name}`: the method stays pure"
                );
            }
        }
    }
}

#[test]
fn anyhow_lives_in_the_binary_only() {
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    rust_files(&Path::new(ROOT).join("crates"), &mut files);
    for file in files {
        if file.ends_with("src/main.rs") && file.starts_with(&src) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        assert!(
            !text.contains("anyhow::") && !text.contains("use anyhow"),
            "{} uses anyhow; libraries have typed errors (thiserror)",
            file.display()
        );
    }
}

#[test]
fn crate_imports_reads_paths_not_comments_or_other_crates() {
    let text = "use crate::search::{Searcher, x};\n\
                let a = crate::ops::cache::key();\n\
                // crate::web is only mentioned\n\
                use metasift_dedup::crate_like;\n\
                let b = my_crate::thing;";
    let found: Vec<_> = crate_imports(text).into_iter().collect();
    assert_eq!(found, ["ops", "search"]);
    assert_eq!(
        backticked("`config`, `model` (for `Stage`)"),
        ["config", "model", "Stage"]
    );
}

/// Lines of a file before its `#[cfg(test)] mod … {` block.
fn lines_before_tests(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .position(|w| {
            w[0].trim() == "#[cfg(test)]" && w[1].starts_with("mod ") && w[1].ends_with('{')
        })
        .unwrap_or(lines.len())
}

#[test]
fn at_most_two_source_files_exceed_800_lines_before_their_tests() {
    let mut files = Vec::new();
    rust_files(&Path::new(ROOT).join("src"), &mut files);
    rust_files(&Path::new(ROOT).join("crates"), &mut files);
    let mut long: Vec<(usize, String)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("readable source");
            let shown = f.strip_prefix(ROOT).unwrap_or(f).display().to_string();
            (lines_before_tests(&text), shown)
        })
        .filter(|(n, _)| *n > 800)
        .collect();
    long.sort();
    assert!(
        long.len() <= 2,
        "files over 800 lines before their tests: {long:?}"
    );
}
