//! Measures of a ranked list against graded judgements, and the paired
//! randomisation test between two systems' per-query scores.
//!
//! A ranked list is given as the grade of each of its places (0 for a
//! document not judged relevant), best place first; the *ideal* grades are
//! every judged document's grade.
//!
//! - **nDCG@k** (Järvelin & Kekäläinen 2002, the gain `2^g − 1` and the
//!   discount `log2(i + 1)` of Burges et al. 2005): DCG@k of the list over
//!   DCG@k of the ideal list; 0 when nothing is relevant.
//! - **P@k**: the share of the first `k` places holding a document of grade
//!   ≥ 1 (places past the list's end count as not relevant).
//! - **AP** (MAP is its mean over queries): Σ over the places `i` holding a
//!   relevant document of P@i, over the number of relevant judged
//!   documents; the whole list counts, not only its first `k`.

/// Gain of a grade.
fn gain(grade: u8) -> f64 {
    f64::from((1u32 << grade.min(16)) - 1)
}

fn dcg(grades: &[u8], k: usize) -> f64 {
    grades
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| gain(g) / ((i + 2) as f64).log2())
        .sum()
}

/// nDCG@k of `grades` (the list's) against `ideal` (every judged grade, any
/// order).
pub fn ndcg(grades: &[u8], ideal: &[u8], k: usize) -> f64 {
    let mut best = ideal.to_vec();
    best.sort_unstable_by(|a, b| b.cmp(a));
    let top = dcg(&best, k);
    if top <= 0.0 {
        return 0.0;
    }
    (dcg(grades, k) / top).min(1.0)
}

/// P@k of `grades`.
pub fn precision(grades: &[u8], k: usize) -> f64 {
    if k == 0 {
        return 0.0;
    }
    grades.iter().take(k).filter(|&&g| g > 0).count() as f64 / k as f64
}

/// Average precision of `grades` when `relevant` judged documents are
/// relevant.
pub fn average_precision(grades: &[u8], relevant: usize) -> f64 {
    if relevant == 0 {
        return 0.0;
    }
    let mut hits = 0usize;
    let mut sum = 0.0;
    for (i, &g) in grades.iter().enumerate() {
        if g > 0 {
            hits += 1;
            sum += hits as f64 / (i + 1) as f64;
        }
    }
    (sum / relevant as f64).min(1.0)
}

/// A small seeded generator (SplitMix64): the test's permutations are the
/// same on every machine and every run with one seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The outcome of a paired randomisation test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// Mean of `a − b` over the queries.
    pub mean_difference: f64,
    /// Two-sided p-value: (permutations whose |mean difference| reaches the
    /// observed one + 1) / (permutations + 1).
    pub p_value: f64,
}

/// Paired randomisation (permutation) test of `a` against `b`, two
/// per-query score lists of one length (Fisher's test as Smucker, Allan &
/// Carterette 2007 recommend for IR): under the null hypothesis the two
/// systems are exchangeable, so each query's difference is as likely
/// negated; `permutations` random sign flips, seeded by `seed`.
pub fn randomisation_test(a: &[f64], b: &[f64], permutations: usize, seed: u64) -> Paired {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    if d.is_empty() {
        return Paired {
            mean_difference: 0.0,
            p_value: 1.0,
        };
    }
    let n = d.len() as f64;
    let observed = d.iter().sum::<f64>() / n;
    // A permuted mean this close to the observed one counts as reaching
    // it: sums of the same terms in another order differ by rounding.
    let tolerance = 1e-12 * d.iter().map(|x| x.abs()).sum::<f64>().max(1.0);
    let mut rng = SplitMix64::new(seed);
    let mut reached = 0usize;
    for _ in 0..permutations {
        let mut sum = 0.0;
        let mut bits = 0u64;
        for (i, x) in d.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            sum += if bits & 1 == 1 { -x } else { *x };
            bits >>= 1;
        }
        if (sum / n).abs() >= observed.abs() - tolerance {
            reached += 1;
        }
    }
    Paired {
        mean_difference: observed,
        p_value: (reached + 1) as f64 / (permutations + 1) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn ndcg_is_one_for_the_ideal_order_and_falls_as_it_worsens() {
        let ideal = [2, 1, 0, 0];
        assert!(close(ndcg(&[2, 1, 0], &ideal, 10), 1.0));
        let swapped = ndcg(&[1, 2, 0], &ideal, 10);
        // (1 + 3/log2 3) / (3 + 1/log2 3)
        let want = (1.0 + 3.0 / 3f64.log2()) / (3.0 + 1.0 / 3f64.log2());
        assert!(close(swapped, want), "{swapped}");
        assert!(ndcg(&[0, 0, 2], &ideal, 10) < swapped);
        assert!(close(ndcg(&[0, 2], &ideal, 1), 0.0), "cut at k");
        assert!(close(ndcg(&[], &[0, 0], 10), 0.0), "nothing relevant");
    }

    #[test]
    fn precision_and_average_precision() {
        assert!(close(precision(&[2, 0, 1], 10), 0.2));
        assert!(close(precision(&[2, 0, 1], 2), 0.5));
        // Relevant at 1 and 3 of 3 relevant: (1 + 2/3) / 3.
        assert!(close(
            average_precision(&[1, 0, 2], 3),
            (1.0 + 2.0 / 3.0) / 3.0
        ));
        assert!(close(average_precision(&[0, 0], 0), 0.0));
    }

    #[test]
    fn the_randomisation_test_is_repeatable_and_tells_a_real_difference() {
        let a: Vec<f64> = (0..30).map(|i| 0.8 + f64::from(i % 3) * 0.01).collect();
        let b: Vec<f64> = (0..30).map(|i| 0.5 + f64::from(i % 5) * 0.01).collect();
        let t = randomisation_test(&a, &b, 10_000, 7);
        assert!(t.p_value < 0.001, "{t:?}");
        assert_eq!(t, randomisation_test(&a, &b, 10_000, 7), "seeded");
        // Differences that cancel out: no evidence either way.
        let c: Vec<f64> = (0..30)
            .map(|i| if i % 2 == 0 { 0.9 } else { 0.1 })
            .collect();
        let d: Vec<f64> = (0..30)
            .map(|i| if i % 2 == 0 { 0.1 } else { 0.9 })
            .collect();
        let t = randomisation_test(&c, &d, 10_000, 7);
        assert!(close(t.mean_difference, 0.0));
        assert!(t.p_value > 0.99, "{t:?}");
        // Equal systems.
        assert!(close(randomisation_test(&a, &a, 100, 1).p_value, 1.0));
    }
}
