//! Sorting a record's feature codes: a handful of random `u64`s (2–12 on
//! the benchmark's records, rarely more than 32), where `sort_unstable`'s
//! insertion sort mispredicts about one branch per code. Up to 32 codes go
//! through a fixed sorting network instead, padded with `u64::MAX`: every
//! compare-exchange is a `min` and a `max` (conditional moves), so the work
//! is the same whatever the order and no branch depends on the codes.
//!
//! The networks are Batcher's odd–even merge sorts for 4, 8, 16 and 32 inputs
//! (5, 19, 63 and 191 compare-exchanges), and those for 8, 16 and 32 cut
//! down to 6, 12 and 24 inputs (12, 42 and 132: a network padded with the
//! largest value never moves it, so the compare-exchanges on the padding
//! are left out), written out so the compiler keeps the values in
//! registers; a test rebuilds them from Batcher's construction.

use crate::features::FeatureCode;

/// Sorts `codes` ascending, as `codes.sort_unstable()` does.
pub(crate) fn sort_codes(codes: &mut [FeatureCode]) {
    match codes.len() {
        0 | 1 => {}
        2..=4 => padded::<4>(codes, sort4),
        5 | 6 => padded::<6>(codes, sort6),
        7 | 8 => padded::<8>(codes, sort8),
        9..=12 => padded::<12>(codes, sort12),
        13..=16 => padded::<16>(codes, sort16),
        17..=24 => padded::<24>(codes, sort24),
        25..=32 => padded::<32>(codes, sort32),
        _ => codes.sort_unstable(),
    }
}

/// Sorts `codes` (2 to `N` of them) through the network `sort` for `N`
/// inputs, the places past them holding `u64::MAX` (which sorts last, so
/// the first `codes.len()` places end up holding the codes, sorted).
///
/// Copying in and out takes `N` loads and `N` stores whatever the length,
/// and no branch: place `i` reads code `min(i, len - 1)` and keeps it only
/// below `len` (a conditional move); written back from the last place down,
/// places `len - 1` and up all land on code `len - 1`, the last of them
/// being place `len - 1` itself. (A `memcpy` of `len` codes and a fill of
/// the rest cost more than the network on the commonest lengths.)
#[inline(always)]
fn padded<const N: usize>(codes: &mut [FeatureCode], sort: fn(&mut [u64; N])) {
    let last = codes.len() - 1;
    let mut v = [0u64; N];
    for (i, d) in v.iter_mut().enumerate() {
        // A plain `if` (or or-ing in a mask) became a branch around the load.
        let c = codes[i.min(last)].0;
        *d = std::hint::select_unpredictable(i <= last, c, u64::MAX);
    }
    sort(&mut v);
    for (i, &d) in v.iter().enumerate().rev() {
        codes[i.min(last)] = FeatureCode(d);
    }
}

/// A network function `$name` sorting `$n` values: each pair `(a, b)` is a
/// compare-exchange, leaving `v[a] <= v[b]`.
macro_rules! network {
    ($name:ident, $n:literal, [$(($a:literal, $b:literal)),* $(,)?]) => {
        #[inline(always)]
        fn $name(v: &mut [u64; $n]) {
            $(
                let (x, y) = (v[$a], v[$b]);
                v[$a] = x.min(y);
                v[$b] = x.max(y);
            )*
        }
    };
}

#[rustfmt::skip]
network!(
    sort4, 4, [
        (0, 1), (2, 3), (0, 2), (1, 3), (1, 2),
    ]
);

#[rustfmt::skip]
network!(
    sort8, 8, [
        (0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7),
        (1, 2), (5, 6), (0, 4), (1, 5), (2, 6), (3, 7), (2, 4), (3, 5),
        (1, 2), (3, 4), (5, 6),
    ]
);

#[rustfmt::skip]
network!(
    sort16, 16, [
        (0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13), (14, 15),
        (0, 2), (1, 3), (4, 6), (5, 7), (8, 10), (9, 11), (12, 14), (13, 15),
        (1, 2), (5, 6), (9, 10), (13, 14), (0, 4), (1, 5), (2, 6), (3, 7),
        (8, 12), (9, 13), (10, 14), (11, 15), (2, 4), (3, 5), (10, 12), (11, 13),
        (1, 2), (3, 4), (5, 6), (9, 10), (11, 12), (13, 14), (0, 8), (1, 9),
        (2, 10), (3, 11), (4, 12), (5, 13), (6, 14), (7, 15), (4, 8), (5, 9),
        (6, 10), (7, 11), (2, 4), (3, 5), (6, 8), (7, 9), (10, 12), (11, 13),
        (1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14),
    ]
);

#[rustfmt::skip]
network!(
    sort32, 32, [
        (0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13), (14, 15),
        (16, 17), (18, 19), (20, 21), (22, 23), (24, 25), (26, 27), (28, 29), (30, 31),
        (0, 2), (1, 3), (4, 6), (5, 7), (8, 10), (9, 11), (12, 14), (13, 15),
        (16, 18), (17, 19), (20, 22), (21, 23), (24, 26), (25, 27), (28, 30), (29, 31),
        (1, 2), (5, 6), (9, 10), (13, 14), (17, 18), (21, 22), (25, 26), (29, 30),
        (0, 4), (1, 5), (2, 6), (3, 7), (8, 12), (9, 13), (10, 14), (11, 15),
        (16, 20), (17, 21), (18, 22), (19, 23), (24, 28), (25, 29), (26, 30), (27, 31),
        (2, 4), (3, 5), (10, 12), (11, 13), (18, 20), (19, 21), (26, 28), (27, 29),
        (1, 2), (3, 4), (5, 6), (9, 10), (11, 12), (13, 14), (17, 18), (19, 20),
        (21, 22), (25, 26), (27, 28), (29, 30), (0, 8), (1, 9), (2, 10), (3, 11),
        (4, 12), (5, 13), (6, 14), (7, 15), (16, 24), (17, 25), (18, 26), (19, 27),
        (20, 28), (21, 29), (22, 30), (23, 31), (4, 8), (5, 9), (6, 10), (7, 11),
        (20, 24), (21, 25), (22, 26), (23, 27), (2, 4), (3, 5), (6, 8), (7, 9),
        (10, 12), (11, 13), (18, 20), (19, 21), (22, 24), (23, 25), (26, 28), (27, 29),
        (1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14), (17, 18),
        (19, 20), (21, 22), (23, 24), (25, 26), (27, 28), (29, 30), (0, 16), (1, 17),
        (2, 18), (3, 19), (4, 20), (5, 21), (6, 22), (7, 23), (8, 24), (9, 25),
        (10, 26), (11, 27), (12, 28), (13, 29), (14, 30), (15, 31), (8, 16), (9, 17),
        (10, 18), (11, 19), (12, 20), (13, 21), (14, 22), (15, 23), (4, 8), (5, 9),
        (6, 10), (7, 11), (12, 16), (13, 17), (14, 18), (15, 19), (20, 24), (21, 25),
        (22, 26), (23, 27), (2, 4), (3, 5), (6, 8), (7, 9), (10, 12), (11, 13),
        (14, 16), (15, 17), (18, 20), (19, 21), (22, 24), (23, 25), (26, 28), (27, 29),
        (1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14), (15, 16),
        (17, 18), (19, 20), (21, 22), (23, 24), (25, 26), (27, 28), (29, 30),
    ]
);

// Batcher's networks for 8, 16 and 32 inputs with every compare-exchange
// that touches a place from 6, 12 or 24 on left out: padded with
// `u64::MAX` there, those places hold `u64::MAX` throughout (a
// compare-exchange with one moves nothing), so the rest sorts the first
// places alone — with 12 of 19, 42 of 63 and 132 of 191 compare-exchanges.
#[rustfmt::skip]
network!(
    sort6, 6, [
        (0, 1), (2, 3), (4, 5), (0, 2), (1, 3), (1, 2), (0, 4), (1, 5),
        (2, 4), (3, 5), (1, 2), (3, 4),
    ]
);

#[rustfmt::skip]
network!(
    sort12, 12, [
        (0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (0, 2), (1, 3),
        (4, 6), (5, 7), (8, 10), (9, 11), (1, 2), (5, 6), (9, 10), (0, 4),
        (1, 5), (2, 6), (3, 7), (2, 4), (3, 5), (1, 2), (3, 4), (5, 6),
        (9, 10), (0, 8), (1, 9), (2, 10), (3, 11), (4, 8), (5, 9), (6, 10),
        (7, 11), (2, 4), (3, 5), (6, 8), (7, 9), (1, 2), (3, 4), (5, 6),
        (7, 8), (9, 10),
    ]
);

#[rustfmt::skip]
network!(
    sort24, 24, [
        (0, 1), (2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13), (14, 15),
        (16, 17), (18, 19), (20, 21), (22, 23), (0, 2), (1, 3), (4, 6), (5, 7),
        (8, 10), (9, 11), (12, 14), (13, 15), (16, 18), (17, 19), (20, 22), (21, 23),
        (1, 2), (5, 6), (9, 10), (13, 14), (17, 18), (21, 22), (0, 4), (1, 5),
        (2, 6), (3, 7), (8, 12), (9, 13), (10, 14), (11, 15), (16, 20), (17, 21),
        (18, 22), (19, 23), (2, 4), (3, 5), (10, 12), (11, 13), (18, 20), (19, 21),
        (1, 2), (3, 4), (5, 6), (9, 10), (11, 12), (13, 14), (17, 18), (19, 20),
        (21, 22), (0, 8), (1, 9), (2, 10), (3, 11), (4, 12), (5, 13), (6, 14),
        (7, 15), (4, 8), (5, 9), (6, 10), (7, 11), (2, 4), (3, 5), (6, 8),
        (7, 9), (10, 12), (11, 13), (18, 20), (19, 21), (1, 2), (3, 4), (5, 6),
        (7, 8), (9, 10), (11, 12), (13, 14), (17, 18), (19, 20), (21, 22), (0, 16),
        (1, 17), (2, 18), (3, 19), (4, 20), (5, 21), (6, 22), (7, 23), (8, 16),
        (9, 17), (10, 18), (11, 19), (12, 20), (13, 21), (14, 22), (15, 23), (4, 8),
        (5, 9), (6, 10), (7, 11), (12, 16), (13, 17), (14, 18), (15, 19), (2, 4),
        (3, 5), (6, 8), (7, 9), (10, 12), (11, 13), (14, 16), (15, 17), (18, 20),
        (19, 21), (1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12), (13, 14),
        (15, 16), (17, 18), (19, 20), (21, 22),
    ]
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Batcher's odd–even merge sort for `n` (a power of two) inputs.
    fn batcher(n: usize) -> Vec<(usize, usize)> {
        let mut pairs = Vec::new();
        let mut p = 1;
        while p < n {
            let mut k = p;
            while k >= 1 {
                for j in (k % p..n - k).step_by(2 * k) {
                    for i in 0..k.min(n - j - k) {
                        if (i + j) / (p * 2) == (i + j + k) / (p * 2) {
                            pairs.push((i + j, i + j + k));
                        }
                    }
                }
                k /= 2;
            }
            p *= 2;
        }
        pairs
    }

    /// `sort` sorts (every 0/1 input of up to 16 places) and is Batcher's
    /// network for `N` inputs (agrees with it step for step, on random
    /// inputs with repeats).
    fn networks_are_batchers<const N: usize>(sort: fn(&mut [u64; N])) {
        // 0-1 principle: a network sorting every 0/1 input sorts every input.
        if N <= 16 {
            for bits in 0u32..1 << N {
                let mut v = [0u64; N];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = u64::from(bits >> i & 1);
                }
                sort(&mut v);
                assert!(v.is_sorted(), "{N}: {bits:b}");
            }
        }
        // And the literal lists are Batcher's: the same network applied
        // by hand agrees with `sort` on random inputs with repeats.
        let pairs = batcher(N);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let mut v = [0u64; N];
            for x in &mut v {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *x = (state >> 33) % 7;
            }
            let mut by_hand = v;
            for &(a, b) in &pairs {
                if by_hand[a] > by_hand[b] {
                    by_hand.swap(a, b);
                }
            }
            sort(&mut v);
            assert_eq!(v, by_hand);
            assert!(v.is_sorted());
        }
    }

    #[test]
    fn networks_sort() {
        assert_eq!(batcher(4).len(), 5);
        assert_eq!(batcher(8).len(), 19);
        assert_eq!(batcher(16).len(), 63);
        assert_eq!(batcher(32).len(), 191);
        networks_are_batchers::<4>(sort4);
        networks_are_batchers::<8>(sort8);
        networks_are_batchers::<16>(sort16);
        networks_are_batchers::<32>(sort32);
        pruned_networks_are_batchers::<6, 8>(sort6);
        pruned_networks_are_batchers::<12, 16>(sort12);
        pruned_networks_are_batchers::<24, 32>(sort24);
    }

    /// `sort` sorts (every 0/1 input of up to 16 places, random 0/1 inputs
    /// beyond) and is Batcher's network for `N` inputs without the
    /// compare-exchanges touching places `M` and up.
    fn pruned_networks_are_batchers<const M: usize, const N: usize>(sort: fn(&mut [u64; M])) {
        let pairs: Vec<_> = batcher(N).into_iter().filter(|&(_, b)| b < M).collect();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        let inputs = if M <= 16 { 1u64 << M } else { 200_000 };
        for k in 0..inputs {
            let bits = if M <= 16 { k } else { next() | next() << 31 };
            let mut v = [0u64; M];
            for (i, x) in v.iter_mut().enumerate() {
                *x = bits >> i & 1;
            }
            sort(&mut v);
            assert!(v.is_sorted(), "{M}: {bits:b}");
        }
        for _ in 0..2000 {
            let mut v = [0u64; M];
            for x in &mut v {
                *x = next() % 7;
            }
            let mut by_hand = v;
            for &(a, b) in &pairs {
                if by_hand[a] > by_hand[b] {
                    by_hand.swap(a, b);
                }
            }
            sort(&mut v);
            assert_eq!(v, by_hand);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Random lengths 0..=40, random codes and codes with many repeats
        /// (and `u64::MAX`, the padding): the order of `sort_unstable`.
        #[test]
        fn sort_codes_is_sort_unstable(
            codes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::num::u64::ANY,
                    0u64..4,
                    proptest::strategy::Just(u64::MAX),
                ],
                0..=40,
            ),
        ) {
            let mut got: Vec<FeatureCode> = codes.iter().map(|&c| FeatureCode(c)).collect();
            let mut want = got.clone();
            sort_codes(&mut got);
            want.sort_unstable();
            proptest::prop_assert_eq!(got, want);
        }
    }
}
