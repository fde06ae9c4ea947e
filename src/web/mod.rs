//! The axum router, handlers, output formats and page structs.
//! (Skeleton: completed by the web issue.)
