//! The sweep plot: precision, recall and F1 against the threshold.
//!
//! Written as plain SVG by hand — one panel per data set, one colour per
//! method (series), one line style per metric (precision solid, recall
//! dashed, F1 dotted and thicker) — then rasterized to PNG with `resvg`. The
//! font is compiled in (DejaVu Sans Mono, see `assets/fonts/`), so the PNG
//! has its labels on a machine with no fonts installed. A series measured at
//! one point only (the URL-only `none` method) is drawn as a flat reference
//! line across the panel. The y-axis is zoomed to the values the panel holds
//! (a sweep whose precision stays between 0.96 and 1 is not drawn as a flat
//! line at the top of a 0–1 axis), with its range printed on the axis, and
//! the precision floor the best setting is chosen under is drawn as a red
//! dashed line where it falls inside that range.

use std::fmt::Write as _;
#[cfg(feature = "png")]
use std::sync::Arc;

use super::metrics::Confusion;

/// The font used for every label, in the SVG and in the PNG.
#[cfg(feature = "png")]
pub(crate) const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
const FONT_FAMILY: &str = "DejaVu Sans Mono";

const PALETTE: [&str; 10] = [
    "#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22",
];

/// One line family: a method (with its settings) measured along the sweep.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Legend label.
    pub label: String,
    /// (threshold, counts), in any order.
    pub points: Vec<(f64, Confusion)>,
}

/// One data set's panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Heading (the data set name).
    pub title: String,
    /// Its curves.
    pub curves: Vec<Curve>,
}

const WIDTH: f64 = 980.0;
const PANEL_H: f64 = 360.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 300.0;
const TOP: f64 = 44.0;
const BOTTOM: f64 = 52.0;

/// A metric's name, how to read it, its dash pattern and its line width.
type Metric<'a> = (&'a str, fn(&Confusion) -> f64, &'static str, f64);

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The y range and grid step of a panel: the smallest "nice" step (0.01,
/// 0.02, 0.05, 0.1, 0.2) that covers the values in at most 10 steps, the
/// range rounded out to whole steps, inside 0–1.
pub(crate) fn y_range(values: impl IntoIterator<Item = f64>) -> (f64, f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return (0.0, 1.0, 0.1);
    }
    let (lo, hi) = (lo.clamp(0.0, 1.0), hi.clamp(0.0, 1.0));
    for step in [0.01, 0.02, 0.05, 0.1, 0.2] {
        let a = ((lo / step) + 1e-9).floor() * step;
        let mut b = ((hi / step) - 1e-9).ceil() * step;
        if b - a < step - 1e-9 {
            b = a + step;
        }
        let (a, b) = if b > 1.0 {
            (1.0 - (b - a), 1.0)
        } else {
            (a, b)
        };
        if (b - a) / step <= 10.0 + 1e-9 {
            return (a.max(0.0), b, step);
        }
    }
    (0.0, 1.0, 0.1)
}

/// The words of the plot, for a reader of another language (`/lab`); the
/// command line's are English ([`svg`]).
#[derive(Debug, Clone)]
pub(crate) struct Labels {
    /// The x axis.
    pub x: String,
    /// The metrics' names in the line-style key.
    pub precision: String,
    /// Recall.
    pub recall: String,
    /// F1.
    pub f1: String,
    /// Before the floor's value on its line.
    pub floor: String,
}

impl Labels {
    /// English, with `x` on the x axis.
    pub(crate) fn english(x: &str) -> Labels {
        Labels {
            x: x.to_string(),
            precision: "precision".into(),
            recall: "recall".into(),
            f1: "F1".into(),
            floor: "precision floor".into(),
        }
    }
}

/// Renders the panels as one SVG document; `floor` is the precision floor
/// drawn across each panel (when inside its y range).
pub(crate) fn svg(panels: &[Panel], x_label: &str, floor: Option<f64>) -> String {
    svg_with(panels, &Labels::english(x_label), floor)
}

/// [`svg`] with its words given.
pub(crate) fn svg_with(panels: &[Panel], labels: &Labels, floor: Option<f64>) -> String {
    let height = PANEL_H * panels.len().max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="{FONT_FAMILY}, monospace" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="white"/>"#
    );
    for (i, panel) in panels.iter().enumerate() {
        panel_svg(&mut out, panel, labels, floor, i as f64 * PANEL_H);
    }
    out.push_str("</svg>\n");
    out
}

/// A horizontal bar chart: one bar per `(label, value in 0–1, palette
/// index)`, its value printed at its end, the 0–1 axis gridded by tenths
/// (the judged lab's mean nDCG per run).
pub(crate) fn bars_svg(title: &str, bars: &[(String, f64, usize)]) -> String {
    const BAR: f64 = 22.0;
    let label_w = 8.0 * bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(4) as f64 + 16.0;
    let (left, right, top) = (label_w, 70.0, 40.0);
    let height = top + BAR * bars.len() as f64 + 30.0;
    let pw = WIDTH - left - right;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="{FONT_FAMILY}, monospace" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        out,
        r#"<text x="{left}" y="20" font-size="14">{}</text>"#,
        esc(title)
    );
    let bottom = top + BAR * bars.len() as f64;
    for t in 0..=10 {
        let x = left + pw * f64::from(t) / 10.0;
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{bottom}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" fill="#555">{:.1}</text>"##,
            bottom + 16.0,
            f64::from(t) / 10.0
        );
    }
    for (i, (label, value, colour)) in bars.iter().enumerate() {
        let y = top + BAR * i as f64;
        let v = if value.is_finite() {
            value.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect x="{left}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/><text x="{:.1}" y="{:.1}">{v:.4}</text>"#,
            left - 6.0,
            y + BAR * 0.65,
            esc(label),
            y + 3.0,
            pw * v,
            BAR - 6.0,
            PALETTE[colour % PALETTE.len()],
            left + pw * v + 4.0,
            y + BAR * 0.65,
        );
    }
    out.push_str("</svg>\n");
    out
}

fn panel_svg(out: &mut String, panel: &Panel, labels: &Labels, floor: Option<f64>, y0: f64) {
    let x_label = labels.x.as_str();
    let (pw, ph) = (WIDTH - LEFT - RIGHT, PANEL_H - TOP - BOTTOM);
    let xs = panel
        .curves
        .iter()
        .filter(|c| c.points.len() > 1)
        .flat_map(|c| c.points.iter().map(|p| p.0));
    let (mut lo, mut hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if !lo.is_finite() || !hi.is_finite() || hi - lo < 1e-9 {
        (lo, hi) = (0.0, 1.0);
    }
    let sx = |x: f64| LEFT + (x - lo) / (hi - lo) * pw;
    let (ylo, yhi, ystep) = y_range(panel.curves.iter().flat_map(|c| {
        c.points
            .iter()
            .flat_map(|(_, m)| [m.precision(), m.recall(), m.f1()])
    }));
    let sy = |y: f64| y0 + TOP + (yhi - y.clamp(ylo, yhi)) / (yhi - ylo) * ph;
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="{:.1}" font-size="15">{}</text>"#,
        y0 + 24.0,
        esc(&panel.title)
    );
    // Grid and axes.
    let ticks = ((yhi - ylo) / ystep).round() as usize;
    let digits = if ystep < 0.1 { 2 } else { 1 };
    for k in 0..=ticks {
        let v = ylo + k as f64 * ystep;
        let y = sy(v);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e4e4e4"/>"##,
            LEFT + pw
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{v:.digits$}</text>"#,
            LEFT - 6.0,
            y + 4.0
        );
    }
    for k in 0..=10 {
        let v = k as f64 / 10.0;
        let xv = lo + (hi - lo) * v;
        let x = sx(xv);
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#e4e4e4"/>"##,
            sy(yhi),
            sy(ylo)
        );
        if k % 2 == 0 {
            let _ = writeln!(
                out,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{xv:.2}</text>"#,
                sy(ylo) + 16.0
            );
        }
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{:.1}" width="{pw:.1}" height="{ph:.1}" fill="none" stroke="#333"/>"##,
        sy(yhi)
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        sy(ylo) + 36.0,
        esc(x_label)
    );
    if let Some(f) = floor.filter(|f| (ylo..=yhi).contains(f)) {
        let y = sy(f);
        let _ = writeln!(
            out,
            r##"<line class="floor" x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#c00000" stroke-width="1.2" stroke-dasharray="5,3"/>"##,
            LEFT + pw
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#c00000">{} {f}</text>"##,
            LEFT + pw - 4.0,
            y - 4.0,
            esc(&labels.floor)
        );
    }
    // Curves.
    let metrics: [Metric; 3] = [
        (&labels.precision, Confusion::precision, "", 1.6),
        (&labels.recall, Confusion::recall, "7,4", 1.6),
        (&labels.f1, Confusion::f1, "2,3", 2.6),
    ];
    for (ci, curve) in panel.curves.iter().enumerate() {
        let colour = PALETTE[ci % PALETTE.len()];
        let mut pts = curve.points.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (_, value, dash, width) in metrics {
            let coords: Vec<(f64, f64)> = if pts.len() == 1 {
                let y = sy(value(&pts[0].1));
                vec![(sx(lo), y), (sx(hi), y)]
            } else {
                pts.iter().map(|(x, c)| (sx(*x), sy(value(c)))).collect()
            };
            let path: Vec<String> = coords
                .iter()
                .map(|(x, y)| format!("{x:.1},{y:.1}"))
                .collect();
            let dash = if dash.is_empty() {
                String::new()
            } else {
                format!(r#" stroke-dasharray="{dash}""#)
            };
            let _ = writeln!(
                out,
                r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="{width}"{dash}/>"#,
                path.join(" ")
            );
        }
        // Legend entry.
        let ly = y0 + TOP + 10.0 + ci as f64 * 18.0;
        let lx = LEFT + pw + 16.0;
        let _ = writeln!(
            out,
            r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="10" fill="{colour}"/>"#,
            ly - 9.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{ly:.1}">{}</text>"#,
            lx + 20.0,
            esc(&curve.label)
        );
    }
    // Line-style key.
    let base = y0 + TOP + 10.0 + panel.curves.len() as f64 * 18.0 + 14.0;
    for (k, (name, _, dash, width)) in metrics.iter().enumerate() {
        let ly = base + k as f64 * 18.0;
        let lx = LEFT + pw + 16.0;
        let dash = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let _ = writeln!(
            out,
            r##"<line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#333" stroke-width="{width}"{dash}/>"##,
            ly - 4.0,
            lx + 30.0,
            ly - 4.0
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{ly:.1}">{}</text>"#,
            lx + 36.0,
            esc(name)
        );
    }
}

/// Rasterizes an SVG document to PNG bytes, with the compiled-in font
/// (cargo feature `png`).
#[cfg(feature = "png")]
pub(crate) fn png(svg: &str) -> Result<Vec<u8>, String> {
    let mut opt = resvg::usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        ..resvg::usvg::Options::default()
    };
    Arc::make_mut(&mut opt.fontdb).load_font_data(FONT.to_vec());
    let tree = resvg::usvg::Tree::from_str(svg, &opt).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "the plot has no area".to_string())?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| e.to_string())
}

// Every test reads the SVG with resvg's XML parser or renders it.
#[cfg(all(test, feature = "png"))]
mod tests {
    use super::*;

    fn panel() -> Panel {
        let c = |tp, fp| Confusion {
            tp,
            fp,
            fn_: 10 - tp,
            tn: 10 - fp,
        };
        Panel {
            title: "set <1> & co".into(),
            curves: vec![
                Curve {
                    label: "feature-code".into(),
                    points: vec![(0.5, c(9, 3)), (0.1, c(10, 8)), (0.9, c(5, 0))],
                },
                Curve {
                    label: "none".into(),
                    points: vec![(0.0, c(2, 0))],
                },
            ],
        }
    }

    #[test]
    fn svg_is_well_formed_and_escapes_labels() {
        let s = svg(&[panel(), panel()], "threshold", None);
        let doc = resvg::usvg::roxmltree::Document::parse(&s).expect("valid XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert!(s.contains("set &lt;1&gt; &amp; co"));
        // 2 panels × 2 curves × 3 metrics.
        assert_eq!(s.matches("<polyline").count(), 12);
    }

    #[test]
    fn the_y_axis_is_zoomed_to_the_data() {
        assert_eq!(y_range([0.0, 1.0]), (0.0, 1.0, 0.1));
        let (lo, hi, step) = y_range([0.962, 0.991, 1.0]);
        assert!(
            (lo - 0.96).abs() < 1e-9 && (hi - 1.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert!((step - 0.01).abs() < 1e-9);
        let (lo, hi, _) = y_range([0.43, 0.98, 0.6]);
        assert!(lo <= 0.43 && lo > 0.3 && hi >= 0.98, "{lo} {hi}");
        // One value still gets an axis of one step.
        let (lo, hi, step) = y_range([1.0]);
        assert!(hi - lo >= step - 1e-9 && hi <= 1.0);
        assert_eq!(y_range(std::iter::empty()), (0.0, 1.0, 0.1));
        // The floor is drawn when it is inside the range.
        let c = |tp, fp| Confusion {
            tp,
            fp,
            fn_: 1,
            tn: 100,
        };
        let p = Panel {
            title: "t".into(),
            curves: vec![Curve {
                label: "x".into(),
                points: vec![(0.5, c(90, 1)), (0.9, c(95, 0))],
            }],
        };
        let s = svg(std::slice::from_ref(&p), "t", Some(0.98));
        assert!(s.contains("precision floor 0.98"), "{s}");
        assert!(!s.contains(">0.0<"), "the axis does not start at 0");
    }

    #[test]
    fn png_has_the_svg_size_and_draws_text() {
        let s = svg(&[panel()], "threshold", Some(0.98));
        let bytes = png(&s).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // The text must really be drawn: the same plot without text differs.
        let no_text: String = s
            .lines()
            .filter(|l| !l.starts_with("<text"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_ne!(png(&no_text).unwrap(), bytes);
    }
}
