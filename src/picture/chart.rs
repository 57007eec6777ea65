//! The VP chart: every power's Victory Points over the campaign so far,
//! one line a power in its colour on the map, as a small SVG and a PNG
//! of a few KB (flat fills in an indexed palette) for the turn reports
//! (`vp-<phase>.png`; the SVG goes only to the archive and the site).
//!
//! Pure: the series come in (`report::standings` reads them from the
//! history), the picture goes out.

use super::PictureError;
use super::svg::{colours, esc};
use crate::ids::PowerId;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The picture's size in pixels: a phone's width.
pub const WIDTH: u32 = 480;
pub const HEIGHT: u32 = 200;

/// The plot area inside the picture: room for the y labels on the left,
/// the title on top, the first and last phase below and the legend on the
/// right.
const LEFT: f64 = 40.0;
const TOP: f64 = 24.0;
const RIGHT: f64 = 330.0;
const BOTTOM: f64 = 178.0;

/// VP of every power after each point of the campaign.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VpChart {
    /// The phase each point follows (`start` for the first), one per point.
    pub phases: Vec<String>,
    /// Each power's VP at each point (as many as `phases`).
    pub series: BTreeMap<PowerId, Vec<i64>>,
}

/// The y axis: VP from `low` at the bottom of the plot to `high` at its
/// top.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub low: i64,
    pub high: i64,
}

impl Axis {
    /// The pixel row of `vp`.
    pub fn y(self, vp: i64) -> f64 {
        BOTTOM - (vp - self.low) as f64 * (BOTTOM - TOP) / (self.high - self.low) as f64
    }

    /// The VP a pixel row stands for (the inverse of [`Axis::y`]).
    pub fn vp(self, y: f64) -> f64 {
        self.low as f64 + (BOTTOM - y) * (self.high - self.low) as f64 / (BOTTOM - TOP)
    }

    /// The grid step: 10, 20, 50, 100, … VP, for at most 5 lines.
    fn step(self) -> i64 {
        let span = self.high - self.low;
        [10, 20, 50, 100, 200, 500, 1000]
            .into_iter()
            .find(|s| span / s <= 5)
            .unwrap_or(1000)
    }
}

impl VpChart {
    /// The y axis: every value in, on grid lines a step apart.
    pub fn axis(&self) -> Axis {
        let values = self.series.values().flatten();
        let lo = values.clone().copied().min().unwrap_or(0);
        let hi = values.copied().max().unwrap_or(0);
        let mut a = Axis {
            low: lo.div_euclid(10) * 10,
            high: (hi.div_euclid(10) + 1) * 10,
        };
        let step = a.step();
        a.low = lo.div_euclid(step) * step;
        a.high = (hi.div_euclid(step) + 1) * step;
        a
    }

    /// The pixel column of point `i`.
    pub fn x(&self, i: usize) -> f64 {
        let n = self.phases.len().max(2) - 1;
        LEFT + i as f64 * (RIGHT - LEFT) / n as f64
    }

    /// The chart as SVG text: one `<polyline data-power="<id>">` a power.
    pub fn svg(&self) -> String {
        let axis = self.axis();
        let mut s = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Serif" font-weight="bold" font-stretch="condensed" font-size="11" text-rendering="optimizeSpeed">"#
        );
        s.push_str(r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
        s.push_str(r##"<text x="8" y="15" font-size="13" fill="#1d1d1d">Victory Points</text>"##);
        // Grid lines and their values.
        let mut grid = String::new();
        let mut v = axis.low;
        while v <= axis.high {
            let y = axis.y(v);
            let _ = write!(grid, "M{LEFT},{y:.1}H{RIGHT}");
            let _ = write!(
                s,
                r##"<text x="{:.0}" y="{:.1}" text-anchor="end" fill="#555555">{v}</text>"##,
                LEFT - 4.0,
                y + 4.0
            );
            v += axis.step();
        }
        let _ = write!(
            s,
            r##"<path d="{grid}" stroke="#cccccc" stroke-width="1" fill="none" shape-rendering="crispEdges"/>"##
        );
        if let (Some(first), Some(last)) = (self.phases.first(), self.phases.last()) {
            let _ = write!(
                s,
                r##"<text x="{LEFT}" y="{:.0}" fill="#555555">{}</text>"##,
                BOTTOM + 16.0,
                esc(first)
            );
            if self.phases.len() > 1 {
                let _ = write!(
                    s,
                    r##"<text x="{RIGHT}" y="{:.0}" text-anchor="end" fill="#555555">{}</text>"##,
                    BOTTOM + 16.0,
                    esc(last)
                );
            }
        }
        for (p, vps) in &self.series {
            let points: Vec<String> = vps
                .iter()
                .enumerate()
                .map(|(i, v)| format!("{:.1},{:.1}", self.x(i), axis.y(*v)))
                .collect();
            let _ = write!(
                s,
                r#"<polyline data-power="{}" points="{}" fill="none" stroke="{}" stroke-width="2" stroke-linejoin="round"/>"#,
                p.id(),
                points.join(" "),
                colours(*p).1
            );
        }
        // The legend, best first: name and VP now, in the line's colour.
        let mut last: Vec<(PowerId, i64)> = self
            .series
            .iter()
            .filter_map(|(p, v)| v.last().map(|l| (*p, *l)))
            .collect();
        last.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (k, (p, v)) in last.iter().enumerate() {
            let y = TOP + 8.0 + k as f64 * 21.0;
            let _ = write!(
                s,
                r#"<rect x="{:.0}" y="{:.0}" width="12" height="4" fill="{}"/><text x="{:.0}" y="{:.0}" fill="{}">{} {v}</text>"#,
                RIGHT + 10.0,
                y - 6.0,
                colours(*p).1,
                RIGHT + 26.0,
                y,
                colours(*p).1,
                p.name()
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// The chart as an indexed PNG, [`WIDTH`] x [`HEIGHT`], compressed
    /// harder than the map (zlib's default level): it is small enough
    /// for that to cost nothing, and it goes with every report.
    pub fn png(&self) -> Result<Vec<u8>, PictureError> {
        let tree = super::tree(&self.svg())?;
        let mut pixmap = super::canvas(&tree)?;
        super::paint(&tree, &mut pixmap);
        super::encode_indexed(&pixmap, super::Effort::Balanced)
    }
}
