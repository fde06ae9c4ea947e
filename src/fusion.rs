//! Scoring and merging of duplicate groups. (Skeleton: completed by the engines issue.)
