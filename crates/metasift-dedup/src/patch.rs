//! Values laid over [`Settings`]: what a request, a preferences cookie or a
//! command line changes of the configured `[dedup]`.

use crate::{Method, Settings, Unit};

/// Each `Some` replaces its field of the [`Settings`] it is applied to;
/// `None` keeps it. The one overlay every place that lays values over
/// `[dedup]` uses, so a knob added to [`Settings`] is added here once.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SettingsPatch {
    /// [`Settings::method`].
    pub method: Option<Method>,
    /// [`Settings::os1`].
    pub os1: Option<f64>,
    /// [`Settings::os2`].
    pub os2: Option<f64>,
    /// [`Settings::window`].
    pub window: Option<usize>,
    /// [`Settings::unit`].
    pub unit: Option<Unit>,
    /// [`Settings::max_distance`].
    pub max_distance: Option<u32>,
    /// [`Settings::block_threshold`].
    pub block_threshold: Option<f64>,
    /// [`Settings::min_codes`].
    pub min_codes: Option<usize>,
    /// [`Settings::boilerplate_titles`].
    pub boilerplate_titles: Option<u32>,
    /// [`Settings::word_anchors`].
    pub word_anchors: Option<usize>,
}

impl SettingsPatch {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == SettingsPatch::default()
    }

    /// Lays the values it holds over `settings`.
    pub fn apply(&self, settings: &mut Settings) {
        fn set<T: Copy>(field: &mut T, value: Option<T>) {
            if let Some(v) = value {
                *field = v;
            }
        }
        set(&mut settings.method, self.method);
        set(&mut settings.os1, self.os1);
        set(&mut settings.os2, self.os2);
        set(&mut settings.window, self.window);
        set(&mut settings.unit, self.unit);
        set(&mut settings.max_distance, self.max_distance);
        set(&mut settings.block_threshold, self.block_threshold);
        set(&mut settings.min_codes, self.min_codes);
        set(&mut settings.boilerplate_titles, self.boilerplate_titles);
        set(&mut settings.word_anchors, self.word_anchors);
    }

    /// `base` with these values laid over it.
    pub fn over(&self, base: &Settings) -> Settings {
        let mut settings = base.clone();
        self.apply(&mut settings);
        settings
    }

    /// This patch, its unset values taken from `fallback` (a request's own
    /// values over the preferences' defaults).
    pub fn or(self, fallback: SettingsPatch) -> SettingsPatch {
        SettingsPatch {
            method: self.method.or(fallback.method),
            os1: self.os1.or(fallback.os1),
            os2: self.os2.or(fallback.os2),
            window: self.window.or(fallback.window),
            unit: self.unit.or(fallback.unit),
            max_distance: self.max_distance.or(fallback.max_distance),
            block_threshold: self.block_threshold.or(fallback.block_threshold),
            min_codes: self.min_codes.or(fallback.min_codes),
            boilerplate_titles: self.boilerplate_titles.or(fallback.boilerplate_titles),
            word_anchors: self.word_anchors.or(fallback.word_anchors),
        }
    }

    /// The values of `settings` that differ from `base`: `base` with this
    /// patch laid over it is `settings` again.
    pub fn between(base: &Settings, settings: &Settings) -> SettingsPatch {
        fn changed<T: Copy + PartialEq>(base: T, value: T) -> Option<T> {
            (base != value).then_some(value)
        }
        SettingsPatch {
            method: changed(base.method, settings.method),
            os1: changed(base.os1, settings.os1),
            os2: changed(base.os2, settings.os2),
            window: changed(base.window, settings.window),
            unit: changed(base.unit, settings.unit),
            max_distance: changed(base.max_distance, settings.max_distance),
            block_threshold: changed(base.block_threshold, settings.block_threshold),
            min_codes: changed(base.min_codes, settings.min_codes),
            boilerplate_titles: changed(base.boilerplate_titles, settings.boilerplate_titles),
            word_anchors: changed(base.word_anchors, settings.word_anchors),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_replace_and_unset_ones_keep() {
        let base = Settings::default();
        let patch = SettingsPatch {
            method: Some(Method::SimHash),
            os2: Some(0.99),
            ..SettingsPatch::default()
        };
        let s = patch.over(&base);
        assert_eq!((s.method, s.os1, s.os2), (Method::SimHash, base.os1, 0.99));
        assert_eq!(SettingsPatch::between(&base, &s), patch);
        assert!(SettingsPatch::default().is_empty());
        assert_eq!(SettingsPatch::default().over(&base), base);
    }

    #[test]
    fn a_patch_wins_over_its_fallback() {
        let request = SettingsPatch {
            os1: Some(0.3),
            ..SettingsPatch::default()
        };
        let cookie = SettingsPatch {
            os1: Some(0.9),
            os2: Some(0.6),
            ..SettingsPatch::default()
        };
        let both = request.or(cookie);
        assert_eq!((both.os1, both.os2), (Some(0.3), Some(0.6)));
    }

    #[test]
    fn every_field_is_laid_over() {
        // A patch of every field set to a value other than the default's
        // must change every field: a knob added to `Settings` and not here
        // is caught by `between` giving back the same patch.
        let base = Settings::default();
        let other = Settings {
            method: Method::Rabin,
            os1: 0.11,
            os2: 0.22,
            window: 5,
            unit: Unit::Word,
            max_distance: 9,
            block_threshold: 0.33,
            min_codes: 7,
            boilerplate_titles: 8,
            word_anchors: 3,
        };
        let patch = SettingsPatch::between(&base, &other);
        assert_eq!(patch.over(&base), other);
    }
}
