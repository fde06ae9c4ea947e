//! What the cache holds: [`Cacheable`] values with their weight for the
//! memory bound, and the in-process store (moka) that keeps each entry for
//! its own time with the one rendering made from it ([`Renders`]).

use std::any::Any;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::SearchResponse;

/// Approximate heap bytes of a value, for the memory bound: its JSON
/// size (counted, not built) plus a fixed share for the struct headers,
/// allocator overhead and moka's bookkeeping, which on real answers comes
/// to about twice the JSON. `strings` is the number of separately
/// allocated strings it holds.
pub(crate) fn json_weight<T: Serialize>(value: &T, strings: usize) -> u32 {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    u32::try_from(count.0 * 2 + strings * 32 + 512).unwrap_or(u32::MAX)
}

/// Whether a response is worth remembering: at least one engine answered.
pub(crate) fn cacheable(r: &SearchResponse) -> bool {
    r.engines.iter().any(|e| e.failure.is_none())
}

/// A value the cache can hold: a fused page ([`SearchResponse`]) or the
/// engine answers of a fan-out (the search layer's `Gathered`, which
/// implements this where it is defined, so the cache never names it). Each
/// kind has keys of its own, so a key always names values of one type.
pub(crate) trait Cacheable:
    Clone + Serialize + DeserializeOwned + Send + Sync + 'static
{
    /// Whether it is worth storing at all (an outage is not).
    fn worth_storing(&self) -> bool;
    /// Marks a value as served from the cache.
    fn mark_cached(&mut self);
    /// Approximate heap bytes, for the memory bound.
    fn weight(&self) -> u32;
    /// Approximate bytes of the one rendering kept with the entry
    /// ([`Renders`]); 0 for values never rendered from the cache.
    fn render_weight(&self) -> u32 {
        0
    }
    /// When the value was made, in milliseconds since the Unix epoch, for
    /// values that may be served stale (`[cache] stale_s`): such a value
    /// is kept past the TTL, and is stale once older than it. `None`: kept
    /// for the TTL at most, never stale.
    fn made_at_ms(&self) -> Option<u64> {
        None
    }
}

impl Cacheable for SearchResponse {
    fn worth_storing(&self) -> bool {
        cacheable(self)
    }

    fn mark_cached(&mut self) {
        self.cached = true;
    }

    fn weight(&self) -> u32 {
        json_weight(self, self.results.len() * 8 + self.engines.len() * 2)
    }

    /// SearXNG's JSON of a page is about as long as the page's own JSON,
    /// which [`json_weight`] counts twice.
    fn render_weight(&self) -> u32 {
        self.weight() / 2
    }
}

/// A value in the memory backend, with how long it may stay.
#[derive(Clone)]
pub(super) struct Stored {
    value: Arc<dyn Any + Send + Sync>,
    weight: u32,
    keep_for: Duration,
    renders: Renders,
}

/// The bytes of a response rendered from one cached value, kept with its
/// entry so that the next hits send them instead of rendering the value
/// again; they leave the cache with it. Only for a rendering that is a pure
/// function of the value and its `tag` (the web layer names the format and
/// its options in the tag): SearXNG's JSON of a page, not the HTML page,
/// which also depends on the reader's language and preferences. At most
/// one rendering per entry, whose bytes the entry's weight counts
/// ([`Cacheable::render_weight`]); a value rendered under another tag is
/// rendered each time.
#[derive(Clone, Default)]
pub struct Renders(Arc<Mutex<Option<(u64, bytes::Bytes)>>>);

impl Renders {
    /// The bytes rendered under `tag`: kept ones, or `render`'s, which are
    /// kept when no other rendering is. An error is returned, not kept.
    pub fn get_or_render<E>(
        &self,
        tag: u64,
        render: impl FnOnce() -> Result<bytes::Bytes, E>,
    ) -> Result<bytes::Bytes, E> {
        if let Some((t, bytes)) = &*self.0.lock().unwrap_or_else(|p| p.into_inner())
            && *t == tag
        {
            return Ok(bytes.clone());
        }
        // Rendered outside the lock: two hits at once may both render; the
        // first to finish is kept.
        let bytes = render()?;
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some((tag, bytes.clone()));
        }
        Ok(bytes)
    }
}

/// Each entry expires after its own `keep_for` (the TTL, or less for a
/// page fused from answers that were already cached for a while).
struct PerEntry;

impl moka::Expiry<String, Stored> for PerEntry {
    fn expire_after_create(
        &self,
        _key: &String,
        value: &Stored,
        _created_at: std::time::Instant,
    ) -> Option<Duration> {
        Some(value.keep_for)
    }
}

pub(super) type Memory = moka::future::Cache<String, Stored>;

/// A memory cache holding about `max_bytes` of values.
pub(super) fn memory_cache(max_bytes: u64) -> Memory {
    moka::future::Cache::builder()
        .max_capacity(max_bytes.max(1))
        .weigher(|_k: &String, v: &Stored| v.weight)
        .expire_after(PerEntry)
        .build()
}

pub(super) async fn memory_get<V: Cacheable>(
    cache: &Memory,
    key: &str,
) -> Option<(Arc<V>, Renders)> {
    let stored = cache.get(key).await?;
    let value = stored.value.downcast::<V>().ok()?;
    Some((value, stored.renders))
}

/// Stores a copy of `value` marked as cached; gives the entry's
/// [`Renders`].
pub(super) async fn memory_put<V: Cacheable>(
    cache: &Memory,
    key: &str,
    value: &V,
    keep_for: Duration,
) -> Renders {
    let mut stored = value.clone();
    stored.mark_cached();
    let weight = stored.weight().saturating_add(stored.render_weight());
    let renders = Renders::default();
    let stored = Stored {
        value: Arc::new(stored),
        weight,
        keep_for,
        renders: renders.clone(),
    };
    cache.insert(key.to_string(), stored).await;
    renders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_keep_one_rendering_by_its_tag() {
        let renders = Renders::default();
        let calls = std::cell::Cell::new(0);
        let render = |text: &'static str| {
            calls.set(calls.get() + 1);
            Ok::<_, ()>(bytes::Bytes::from_static(text.as_bytes()))
        };
        assert_eq!(renders.get_or_render(1, || render("json")).unwrap(), "json");
        assert_eq!(
            renders.get_or_render(1, || render("again")).unwrap(),
            "json"
        );
        assert_eq!(calls.get(), 1, "kept");
        // Another tag is rendered each time, never served the kept bytes.
        assert_eq!(renders.get_or_render(2, || render("csv")).unwrap(), "csv");
        assert_eq!(renders.get_or_render(2, || render("csv")).unwrap(), "csv");
        assert_eq!(calls.get(), 3);
        assert_eq!(renders.get_or_render(1, || render("x")).unwrap(), "json");
        // An error is returned, not kept.
        let fresh = Renders::default();
        assert_eq!(
            fresh.get_or_render(1, || Err::<bytes::Bytes, _>("no")),
            Err("no")
        );
        assert_eq!(fresh.get_or_render(1, || render("ok")).unwrap(), "ok");
    }
}
