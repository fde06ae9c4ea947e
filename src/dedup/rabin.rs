//! Rabin block fingerprints (skeleton).
