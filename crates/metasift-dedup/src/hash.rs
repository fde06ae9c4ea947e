//! The shared hashing: a 64-bit mixer, a map for keys that are already
//! hashes, and the byte hash of texts.
//!
//! Feature codes, URL keys, query keys and SimHash units are all uniform
//! 64-bit hashes already, so the maps keyed by them need no SipHash: one
//! [`mix`] spreads the bits (SipHash showed up in profiles of the stream).
//! Texts (normalized titles, URL keys, queries) are hashed with xxh3.

/// Finalizer of splitmix64: spreads every input bit over the output.
#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Hasher for maps keyed by values that are already 64-bit hashes (codes,
/// URL keys, query hashes): one [`mix`] instead of SipHash, which showed up
/// in profiles of the stream.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        mix(self.0)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 ^= x;
    }
}

/// A `HashMap` keyed by 64-bit hashes.
pub(crate) type HashMap64<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<MixHasher>>;

/// The 64-bit xxh3 hash of `bytes`: normalized URL keys, normalized titles
/// and query texts.
#[inline]
pub(crate) fn xxh3(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}
