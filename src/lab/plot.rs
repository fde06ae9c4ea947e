//! The sweep plot: precision, recall and F1 against the threshold.
//!
//! Written as plain SVG by hand — one panel per data set, one colour per
//! method (series), one line style per metric (precision solid, recall
//! dashed, F1 dotted and thicker) — then rasterized to PNG with `resvg`. The
//! font is compiled in (DejaVu Sans Mono, see `assets/fonts/`), so the PNG
//! has its labels on a machine with no fonts installed. A series measured at
//! one point only (the URL-only `none` method) is drawn as a flat reference
//! line across the panel.

use std::fmt::Write as _;
use std::sync::Arc;

use super::metrics::Confusion;

/// The font used for every label, in the SVG and in the PNG.
pub const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSansMono.ttf");
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
type Metric = (&'static str, fn(&Confusion) -> f64, &'static str, f64);

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Renders the panels as one SVG document.
pub fn svg(panels: &[Panel], x_label: &str) -> String {
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
        panel_svg(&mut out, panel, x_label, i as f64 * PANEL_H);
    }
    out.push_str("</svg>\n");
    out
}

fn panel_svg(out: &mut String, panel: &Panel, x_label: &str, y0: f64) {
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
    let sy = |y: f64| y0 + TOP + (1.0 - y.clamp(0.0, 1.0)) * ph;
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="{:.1}" font-size="15">{}</text>"#,
        y0 + 24.0,
        esc(&panel.title)
    );
    // Grid and axes.
    for k in 0..=10 {
        let v = k as f64 / 10.0;
        let y = sy(v);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e4e4e4"/>"##,
            LEFT + pw
        );
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{v:.1}</text>"#,
            LEFT - 6.0,
            y + 4.0
        );
        let xv = lo + (hi - lo) * v;
        let x = sx(xv);
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#e4e4e4"/>"##,
            sy(1.0),
            sy(0.0)
        );
        if k % 2 == 0 {
            let _ = writeln!(
                out,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{xv:.2}</text>"#,
                sy(0.0) + 16.0
            );
        }
    }
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{:.1}" width="{pw:.1}" height="{ph:.1}" fill="none" stroke="#333"/>"##,
        sy(1.0)
    );
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        sy(0.0) + 36.0,
        esc(x_label)
    );
    // Curves.
    let metrics: [Metric; 3] = [
        ("precision", Confusion::precision, "", 1.6),
        ("recall", Confusion::recall, "7,4", 1.6),
        ("F1", Confusion::f1, "2,3", 2.6),
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
            r#"<text x="{:.1}" y="{ly:.1}">{name}</text>"#,
            lx + 36.0
        );
    }
}

/// Rasterizes an SVG document to PNG bytes, with the compiled-in font.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
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

#[cfg(test)]
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
        let s = svg(&[panel(), panel()], "threshold");
        let doc = resvg::usvg::roxmltree::Document::parse(&s).expect("valid XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert!(s.contains("set &lt;1&gt; &amp; co"));
        // 2 panels × 2 curves × 3 metrics.
        assert_eq!(s.matches("<polyline").count(), 12);
    }

    #[test]
    fn png_has_the_svg_size_and_draws_text() {
        let s = svg(&[panel()], "threshold");
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
