//! `--sweep FROM:TO:STEP` and `/lab`'s from/to/step: the thresholds of a
//! sweep, counted before anything is allocated, the same way for both.

use super::LabError;

/// Most thresholds `metasift lab --sweep` runs: each is a dedup run over
/// every data set and method, so more is a mistyped step, not a plan.
pub const MAX_SWEEP_POINTS: usize = 1000;

/// Thresholds are rounded to this many per unit (6 decimals).
const SWEEP_RESOLUTION: f64 = 1e6;

/// The thresholds from `from` to `to` by `step`, rounded to 6 decimals so
/// `0.1 + …` lands on `0.3`, not `0.30000000000000004`; at most `max` of
/// them. The count is the count of what would be produced — the same
/// rounding (`0:1:0.0204` is 50 thresholds) — and is known before anything
/// is allocated, so `0:1:1e-9` is a refusal, not an 80 GB allocation. The
/// CLI and `/lab` both count here. `Err` is the reason, without the
/// caller's prefix.
pub fn sweep_points(from: f64, to: f64, step: f64, max: usize) -> Result<Vec<f64>, String> {
    if !(from.is_finite() && to.is_finite() && step.is_finite()) {
        return Err("FROM, TO and STEP must be numbers".into());
    }
    if !(0.0..=1.0).contains(&from) || !(0.0..=1.0).contains(&to) || from > to || step <= 0.0 {
        return Err("need 0 ≤ FROM ≤ TO ≤ 1 and STEP > 0".into());
    }
    if step < 1.0 / SWEEP_RESOLUTION {
        return Err(format!(
            "step {step} is below 0.000001, the resolution thresholds are rounded to"
        ));
    }
    // The last index whose threshold is ≤ TO (a hair of slack for
    // `0.1 * 3`), in floating point: it cannot overflow, however small
    // the step.
    let last = ((to - from) / step + 1e-9).floor();
    if last + 1.0 > max as f64 {
        return Err(format!(
            "from {from} to {to} by {step} is {} thresholds; at most {max} — take a larger step",
            last + 1.0
        ));
    }
    let mut points: Vec<f64> = (0..=last as usize)
        .map(|i| ((from + i as f64 * step) * SWEEP_RESOLUTION).round() / SWEEP_RESOLUTION)
        .collect();
    points.dedup();
    Ok(points)
}

/// Parses `FROM:TO:STEP` into the thresholds (see [`sweep_points`]), at
/// most [`MAX_SWEEP_POINTS`].
pub fn parse_sweep(s: &str) -> Result<Vec<f64>, LabError> {
    let bad = || {
        LabError::BadArgument(format!(
            "--sweep {s:?}: expected FROM:TO:STEP, e.g. 0.1:1:0.05"
        ))
    };
    let parts: Vec<f64> = s
        .split(':')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    let [from, to, step] = parts[..] else {
        return Err(bad());
    };
    sweep_points(from, to, step, MAX_SWEEP_POINTS)
        .map_err(|why| LabError::BadArgument(format!("--sweep {s:?}: {why}")))
}
