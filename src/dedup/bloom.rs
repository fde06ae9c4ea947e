//! A Bloom filter for URL keys of very large streams (skeleton).
