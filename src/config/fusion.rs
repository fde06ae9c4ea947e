//! `[fusion]`: how the engines' ranked lists become one — the method and
//! its parameter. A search may ask for another method (`fusion=`); the
//! scoring itself is [`crate::fusion::methods`].

use serde::{Deserialize, Serialize};

/// How a duplicate group's score is made from its members' places in the
/// engines' lists (see [`crate::fusion::methods`] for the formulas).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FusionMethod {
    /// Σ weight / position.
    Position,
    /// Reciprocal rank fusion: Σ weight / (k + position).
    #[default]
    Rrf,
    /// Σ weight × the engine's normalised score of the position.
    CombSum,
    /// CombSum × the number of engines that found the group.
    CombMnz,
    /// Σ weight × Borda points (the longest list's length − position + 1).
    Borda,
}

impl FusionMethod {
    /// Every method, in the order tables list them.
    pub const ALL: [FusionMethod; 5] = [
        FusionMethod::Position,
        FusionMethod::Rrf,
        FusionMethod::CombSum,
        FusionMethod::CombMnz,
        FusionMethod::Borda,
    ];

    /// The name in `engines.toml`, `fusion=` and the lab's tables.
    pub fn as_str(self) -> &'static str {
        match self {
            FusionMethod::Position => "position",
            FusionMethod::Rrf => "rrf",
            FusionMethod::CombSum => "combsum",
            FusionMethod::CombMnz => "combmnz",
            FusionMethod::Borda => "borda",
        }
    }
}

impl std::fmt::Display for FusionMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for FusionMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FusionMethod::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                format!(
                    "unknown fusion method {s:?} (expected position, rrf, combsum, combmnz or borda)"
                )
            })
    }
}

/// RRF's `k` unless `[fusion] k` says otherwise: the value of Cormack,
/// Clarke and Büttcher (2009), which their runs found flat around it.
pub const DEFAULT_RRF_K: f64 = 60.0;

/// The largest `k` accepted: far past where RRF becomes a plain vote count.
pub const MAX_RRF_K: f64 = 1.0e6;

/// `[fusion]`
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FusionSettings {
    /// The method (default: `rrf`, chosen by measurement on the judged
    /// set — see docs/decisions.md).
    pub method: FusionMethod,
    /// RRF's `k` (`rrf` only); finite, 0 to [`MAX_RRF_K`].
    pub k: f64,
}

impl Default for FusionSettings {
    fn default() -> Self {
        FusionSettings {
            method: FusionMethod::default(),
            k: DEFAULT_RRF_K,
        }
    }
}

impl FusionSettings {
    /// These settings with another method.
    pub fn with_method(self, method: FusionMethod) -> FusionSettings {
        FusionSettings { method, ..self }
    }

    /// A short stable name: the method, and `k` for RRF (`rrf k=60`).
    pub fn label(&self) -> String {
        match self.method {
            FusionMethod::Rrf => format!("rrf k={}", self.k),
            m => m.as_str().to_string(),
        }
    }

    /// What is wrong with the table, as (key, message).
    pub(crate) fn problems(&self) -> Vec<(&'static str, String)> {
        let k = self.k;
        if k.is_finite() && (0.0..=MAX_RRF_K).contains(&k) {
            Vec::new()
        } else {
            vec![(
                "k",
                format!("fusion.k: must be a number from 0 to {MAX_RRF_K}, got {k}"),
            )]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_say_what_is_accepted() {
        for m in FusionMethod::ALL {
            assert_eq!(m.as_str().parse::<FusionMethod>(), Ok(m));
        }
        assert_eq!("RRF".parse::<FusionMethod>(), Ok(FusionMethod::Rrf));
        let e = "magic".parse::<FusionMethod>().unwrap_err();
        assert!(e.contains("combmnz"), "{e}");
    }

    #[test]
    fn k_must_be_finite_and_in_range() {
        let ok = FusionSettings::default();
        assert!(ok.problems().is_empty());
        for bad in [-1.0, f64::NAN, f64::INFINITY, 2.0e6] {
            let s = FusionSettings { k: bad, ..ok };
            assert_eq!(s.problems()[0].0, "k", "{bad}");
        }
    }
}
