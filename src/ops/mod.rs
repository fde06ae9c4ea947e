//! Running the service, apart from answering a query: what keeps it up
//! under load and tells the operator how it is doing.
//!
//! - [`cache`]: fused pages and engine answers (memory or Redis), and the
//!   coalescing of identical searches in flight;
//! - [`budget`]: the outbound budget of each engine, shared by the
//!   instances on one Redis;
//! - [`limit`]: the per-client rate limit and the cap on searches in flight;
//! - [`health`]: what each member engine did lately, and its suspension;
//! - [`shared_health`]: block and 429 suspensions shared by the instances
//!   on one Redis;
//! - [`metrics`]: the Prometheus text of `/metrics`;
//! - `redis`: the one Redis connection (one node, Sentinel or Cluster)
//!   every user above goes through.
//!
//! These are mechanisms, not steps of a search: they take the numbers of
//! [`crate::config`] and the records of [`crate::model`], and know nothing
//! of engines, the fan-out or HTTP handlers (so `search` and `web` use them,
//! never the other way round).

pub mod budget;
pub mod cache;
pub mod health;
pub mod limit;
pub mod metrics;
mod redis;
pub mod shared_health;
