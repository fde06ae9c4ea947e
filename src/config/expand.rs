//! What the environment and `[server]` fill in after the file is read:
//! `${VAR}` in engine headers, `{contact}` in engine URLs.

use super::{Config, Problem, layers, with_contact};

impl Config {
    /// Replaces `${VAR}` in every engine's header values. An unset variable
    /// is a problem of an enabled engine that asks the network; a disabled
    /// or replaying engine keeps the header as written and is marked (see
    /// [`EngineConfig::unset_env`]), so a shipped preset that needs a
    /// secret does not stop every configuration without it.
    pub(super) fn expand_header_vars(
        &mut self,
        env: &dyn Fn(&str) -> Option<String>,
        out: &mut Vec<Problem>,
    ) {
        for (i, engine) in self.engines.iter_mut().enumerate() {
            let mut expanded = engine.headers.clone();
            let mut missing = None;
            for (header, value) in expanded.iter_mut() {
                match layers::expand_vars(value, env) {
                    Ok(v) => *value = v,
                    Err(layers::UnsetVar(var)) => {
                        missing = Some(format!(
                            "header {header:?} needs the environment variable {var}, which is not set"
                        ));
                        break;
                    }
                }
            }
            match missing {
                None => engine.headers = expanded,
                // An engine that says it needs a key is off without it.
                Some(what) if engine.needs_env => {
                    if engine.replay.is_none() {
                        engine.enabled = false;
                    }
                    engine.unset_env = Some(what);
                }
                Some(what) if engine.enabled && engine.replay.is_none() => {
                    out.push(Problem::engine(
                        i,
                        "headers",
                        format!("engine.headers of {:?}: {what}", engine.name),
                    ))
                }
                Some(what) => engine.unset_env = Some(what),
            }
        }
    }

    /// Fills `{contact}` in every engine's URLs with `[server] contact`,
    /// form-encoded; without one, a query parameter whose value is
    /// `{contact}` is left out (`&mailto={contact}`).
    pub(super) fn fill_contact(&mut self) {
        let contact = self.server.contact.clone().unwrap_or_default();
        for e in &mut self.engines {
            e.url = with_contact(&e.url, contact.trim());
            if let Some(f) = &mut e.follow {
                f.url = with_contact(&f.url, contact.trim());
            }
        }
    }
}
