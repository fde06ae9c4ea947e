//! The harness of the real-data tests (`harness = false` targets, run by
//! `libtest-mimic`): one named case per file of the team's data folder.
//!
//! The folder is found by `metasift_data` only (`METASIFT_DATA`, else
//! `../shared/data`). When it is absent each case is reported *ignored*
//! with the reason naming `METASIFT_DATA` (so cargo's summary shows
//! "N ignored", not a silent pass), and one loud line says so; under
//! `METASIFT_REQUIRE_SERVICES=1` (CI) each case fails instead. When it is
//! there, plain `cargo test` runs them. The case names come from
//! `metasift_data::FILES`, so a clone without the folder still lists them.
//!
//! Include it from a test file with
//!
//! ```ignore
//! #[path = "support/real_data.rs"]
//! mod real_data;
//! ```

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// The cases of one test target.
pub struct Cases {
    root: Option<PathBuf>,
    trials: Vec<Trial>,
    absent: usize,
}

impl Default for Cases {
    fn default() -> Self {
        Cases::new()
    }
}

impl Cases {
    /// No cases yet; the data folder looked up once.
    pub fn new() -> Cases {
        Cases {
            root: metasift_data::root(),
            trials: Vec::new(),
            absent: 0,
        }
    }

    /// The data folder, when it is there.
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// A case named `name` that needs the data folder: `run` gets its path.
    /// A panic in `run` fails the case.
    pub fn add(&mut self, name: impl Into<String>, run: impl FnOnce(&Path) + Send + 'static) {
        let name = name.into();
        let trial = match &self.root {
            Some(root) => {
                let root = root.clone();
                Trial::test(name, move || {
                    run(&root);
                    Ok(())
                })
            }
            None if metasift_data::required() => {
                self.absent += 1;
                Trial::test(name, || {
                    Err(Failed::from(format!(
                        "{}, and METASIFT_REQUIRE_SERVICES=1 requires it",
                        metasift_data::ABSENT
                    )))
                })
            }
            None => {
                self.absent += 1;
                Trial::ignorable_test(name, || Ok(Completion::ignored_with(metasift_data::ABSENT)))
            }
        };
        self.trials.push(trial);
    }

    /// A case on the data file `rel` (a path of `metasift_data::FILES`),
    /// named `{prefix}::{rel}`: `run` gets the file's path. A file listed but
    /// missing from a present folder fails the case, naming it.
    pub fn file(&mut self, prefix: &str, rel: &str, run: impl FnOnce(&Path) + Send + 'static) {
        let owned = rel.to_string();
        self.add(format!("{prefix}::{rel}"), move |root| {
            let path = root.join(&owned);
            assert!(
                path.is_file(),
                "{} is not in the data folder {}",
                owned,
                root.display()
            );
            run(&path)
        });
    }

    /// A case that needs no data (it runs everywhere).
    pub fn own(&mut self, name: impl Into<String>, run: impl FnOnce() + Send + 'static) {
        self.trials.push(Trial::test(name, move || {
            run();
            Ok(())
        }));
    }

    /// Runs the cases selected by the command line and exits with the
    /// outcome. With the folder there, a first case checks that it holds
    /// the files `metasift_data::FILES` lists, and no others.
    pub fn run(mut self) -> ! {
        self.add("data_folder::holds_the_listed_files", |root| {
            let diff = metasift_data::unlisted(root);
            assert!(diff.is_empty(), "{}", diff.join("\n"));
        });
        let args = Arguments::from_args();
        if self.absent > 0 && !args.list {
            let verb = if metasift_data::required() {
                "FAIL"
            } else {
                "are IGNORED"
            };
            eprintln!(
                "\n*** {} real-data cases {verb}: {} ***\n",
                self.absent,
                metasift_data::ABSENT
            );
        }
        libtest_mimic::run(&args, self.trials).exit()
    }
}
