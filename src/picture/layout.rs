//! Where the map's names go: each province and sea zone name is placed
//! so that no two names overlap and no name covers a unit counter or a
//! capital's star, at the picture's own size, with the widths the
//! shipped font gives (`skrifa`, the font tables resvg itself reads).
//!
//! A name stays on its place's position when that is free; else the
//! nearest free spot of a few rings of candidates around it (above,
//! below, beside, then the corners, each ring farther out), joined to the
//! position by a thin leader line once it is a ring away; else the same
//! at a smaller size (never under [`MIN_SIZE`], to stay legible printed
//! on A4). Deterministic: the names are placed in the map's order,
//! provinces first, each taking the first free candidate.
//!
//! The counters are laid out here too ([`counters`]), so that the names
//! avoid exactly the boxes the units are drawn in. The names avoid each
//! counter's box at its widest (every corps showing its divisions), so a
//! position gives the same names in every power's picture of it.

use super::geometry::Pt;
use crate::ids::Nation;
use crate::map::Map;
use crate::state::{Location, State};
use std::collections::BTreeMap;

/// A box on the page, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    /// Whether the two boxes share an area (touching edges do not).
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    fn area_with(&self, o: &Rect) -> f64 {
        let w = self.x1.min(o.x1) - self.x0.max(o.x0);
        let h = self.y1.min(o.y1) - self.y0.max(o.y0);
        if w > 0.0 && h > 0.0 { w * h } else { 0.0 }
    }

    fn inside(&self, o: &Rect) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }

    /// The point of the box nearest to `p`.
    fn nearest(&self, p: Pt) -> Pt {
        (p.0.clamp(self.x0, self.x1), p.1.clamp(self.y0, self.y1))
    }
}

/// Province names' size in pixels.
pub const PROVINCE_SIZE: f64 = 11.0;
/// Sea zone names' size.
pub const SEA_SIZE: f64 = 13.0;
/// The smallest a name is drawn: 10 px of a 1600 px map printed across
/// A4 (190 mm) is 3.4 pt, a map's smallest legible lettering.
pub const MIN_SIZE: f64 = 10.0;
/// The halo each province name is drawn with (half its stroke).
const HALO: f64 = 1.3;
/// Sea names' letter spacing, in pixels.
pub const SEA_SPACING: f64 = 1.0;

/// Height of a unit counter, and the row pitch.
pub const COUNTER_H: f64 = 13.0;
const ROW_PITCH: f64 = 15.0;
pub const COUNTER_FONT: f64 = 10.5;

/// Width of `s` at `size` pixels in the shipped font, with `spacing`
/// pixels between letters: the sum of the glyphs' advances (no kerning,
/// which only narrows).
pub fn text_width(s: &str, size: f64, spacing: f64) -> f64 {
    use skrifa::MetadataProvider;
    use skrifa::instance::{LocationRef, Size};
    let Ok(font) = skrifa::FontRef::new(super::FONT) else {
        return s.chars().count() as f64 * size * 0.7;
    };
    let map = font.charmap();
    let metrics = font.glyph_metrics(Size::new(size as f32), LocationRef::default());
    s.chars()
        .map(|c| {
            map.map(c)
                .and_then(|g| metrics.advance_width(g))
                .map_or(size * 0.7, f64::from)
                + spacing
        })
        .sum()
}

/// The box a capital's star covers, above its place's position.
pub fn star_rect((x, y): Pt) -> Rect {
    let (cx, cy) = star_centre((x, y));
    Rect {
        x0: cx - STAR_R - 0.5,
        y0: cy - STAR_R - 0.5,
        x1: cx + STAR_R + 0.5,
        y1: cy + STAR_R * 0.81 + 0.5,
    }
}

/// A capital's star: its centre, above the position (clear of a name
/// left on it), and its radius.
pub fn star_centre((x, y): Pt) -> Pt {
    (x, y - 13.0)
}
pub const STAR_R: f64 = 6.0;

/// A name as placed.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub text: String,
    pub sea: bool,
    /// The place's position.
    pub anchor: Pt,
    /// The text's centre line and baseline.
    pub x: f64,
    pub baseline: f64,
    pub size: f64,
    /// What the name covers: the text with its halo (and a port's anchor
    /// dot after it).
    pub rect: Rect,
    /// Whether a port's dot follows the name.
    pub port: bool,
    /// Whether a leader line joins the name to its place's position.
    pub leader: bool,
}

impl Label {
    /// Where the leader line ends on the name's box.
    pub fn leader_end(&self) -> Pt {
        self.rect.nearest(self.anchor)
    }

    /// Where a port's dot goes: after the name, 6 px on.
    pub fn port_dot(&self) -> Pt {
        (self.rect.x1 - 6.0 - HALO, self.baseline - 4.0)
    }
}

/// One unit counter as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Counter {
    pub nation: Nation,
    pub label: String,
    pub boat: bool,
    /// Left edge, top, width of the counter's body.
    pub x: f64,
    pub y: f64,
    pub w: f64,
}

impl Counter {
    /// The box the counter covers, its stroke (and a boat's wider deck)
    /// included.
    pub fn rect(&self) -> Rect {
        let side = if self.boat { 2.5 } else { 0.5 };
        Rect {
            x0: self.x - side,
            y0: self.y - 0.5,
            x1: self.x + self.w + side,
            y1: self.y + COUNTER_H + 0.5,
        }
    }
}

/// The unit counters of `state`, under their place's position, four to a
/// row: corps (number·divisions) then squadrons (boats). `widest`: each
/// corps as wide as it is with its divisions shown, whatever the view
/// hides (the boxes the names avoid, the same for every view).
pub fn counters(state: &State, province: &BTreeMap<&str, Pt>, sea: &BTreeMap<&str, Pt>, widest: bool) -> Vec<Counter> {
    let mut at: BTreeMap<String, Vec<(Nation, String, bool)>> = BTreeMap::new();
    for c in &state.corps {
        let Some(loc) = &c.location else { continue };
        let label = if c.divisions.is_empty() && !widest {
            c.number.to_string()
        } else {
            // a corps holds at most three divisions (2.22): one digit
            format!("{}·{}", c.number, if widest { 3 } else { c.divisions.len() })
        };
        at.entry(format!("p:{loc}"))
            .or_default()
            .push((c.nation.clone(), label, false));
    }
    for q in &state.squadrons {
        let key = match &q.location {
            Location::Port(p) => format!("p:{p}"),
            Location::Sea(z) => format!("z:{z}"),
        };
        at.entry(key)
            .or_default()
            .push((q.nation.clone(), q.number.to_string(), true));
    }
    let mut out = Vec::new();
    for (key, units) in &at {
        let base = match key.split_once(':') {
            Some(("p", p)) => province.get(p),
            Some((_, z)) => sea.get(z),
            None => None,
        };
        let Some(&(x0, y)) = base else { continue };
        let y0 = y + 9.0;
        for (r, row) in units.chunks(4).enumerate() {
            let widths: Vec<f64> = row
                .iter()
                .map(|u| super::svg::text_w(&u.1, COUNTER_FONT) + 8.0)
                .collect();
            let total: f64 = widths.iter().sum::<f64>() + 2.0 * (row.len() as f64 - 1.0);
            let mut x = x0 - total / 2.0;
            for (u, w) in row.iter().zip(&widths) {
                out.push(Counter {
                    nation: u.0.clone(),
                    label: u.1.clone(),
                    boat: u.2,
                    x,
                    y: y0 + r as f64 * ROW_PITCH,
                    w: *w,
                });
                x += w + 2.0;
            }
        }
    }
    out
}

/// One name to place, and its width at each size [`place_one`] tries.
struct Wanted<'a> {
    text: &'a str,
    sea: bool,
    anchor: Pt,
    port: bool,
    widths: [f64; 3],
}

/// The sizes a name is tried at, largest first: its own, a pixel less,
/// the least.
fn sizes(sea: bool) -> [f64; 3] {
    let full = if sea { SEA_SIZE } else { PROVINCE_SIZE };
    [full, (full - 1.0).max(MIN_SIZE), MIN_SIZE]
}

/// Every province and sea zone name of a map, measured once at each
/// size: pictures of one map place the same names around other units.
pub struct Names<'a> {
    wanted: Vec<Wanted<'a>>,
}

impl<'a> Names<'a> {
    /// The names of `map` at `province` and `sea` positions.
    pub fn new(map: &'a Map, province: &BTreeMap<&str, Pt>, sea: &BTreeMap<&str, Pt>) -> Names<'a> {
        let mut wanted: Vec<Wanted<'a>> = Vec::new();
        let mut want = |text: &'a str, is_sea: bool, anchor: Pt, port: bool| {
            let spacing = if is_sea { SEA_SPACING } else { 0.0 };
            let widths = sizes(is_sea).map(|size| text_width(text, size, spacing));
            wanted.push(Wanted {
                text,
                sea: is_sea,
                anchor,
                port,
                widths,
            });
        };
        for p in &map.provinces {
            if let Some(&a) = province.get(p.id.as_str()) {
                want(&p.name, false, a, p.port);
            }
        }
        for z in &map.seas {
            if let Some(&a) = sea.get(z.id.as_str()) {
                want(&z.name, true, a, false);
            }
        }
        Names { wanted }
    }

    /// The names placed inside `area`, clear of `fixed` boxes (counters,
    /// stars) and of each other.
    pub fn place(&self, fixed: &[Rect], area: Rect) -> Vec<Label> {
        let mut taken: Vec<Rect> = Vec::with_capacity(fixed.len() + self.wanted.len());
        taken.extend_from_slice(fixed);
        let mut out = Vec::with_capacity(self.wanted.len());
        for n in &self.wanted {
            let label = place_one(n, &taken, area);
            taken.push(label.rect);
            out.push(label);
        }
        out
    }
}

/// The box of a name `w` wide at `size`, centred on `x`, on `baseline`.
fn text_rect(x: f64, baseline: f64, w: f64, size: f64, sea: bool, port: bool) -> Rect {
    // DejaVu's ascent over capitals and ascenders, and its descent; an
    // italic sea name leans right by about a fifth of its size
    let (lean, halo) = if sea { (0.2 * size, 0.5) } else { (0.0, HALO) };
    Rect {
        x0: x - w / 2.0 - halo,
        y0: baseline - 0.78 * size - halo,
        x1: x + w / 2.0 + halo + lean + if port { 12.0 } else { 0.0 },
        y1: baseline + 0.24 * size + halo,
    }
}

/// Place every province and sea name of `map` at `anchors`, inside
/// `area`, clear of `fixed` boxes (counters, stars) and of each other.
pub fn place(
    map: &Map,
    province: &BTreeMap<&str, Pt>,
    sea: &BTreeMap<&str, Pt>,
    fixed: &[Rect],
    area: Rect,
) -> Vec<Label> {
    Names::new(map, province, sea).place(fixed, area)
}

/// The first free spot for one name: its position, then rings of
/// candidates around it, at its size and then smaller; else the spot
/// that overlaps least.
fn place_one(n: &Wanted<'_>, taken: &[Rect], area: Rect) -> Label {
    let full = if n.sea { SEA_SIZE } else { PROVINCE_SIZE };
    let label = |x: f64, baseline: f64, size: f64, rect: Rect, leader: bool| Label {
        text: n.text.to_string(),
        sea: n.sea,
        anchor: n.anchor,
        x,
        baseline,
        size,
        rect,
        port: n.port,
        leader,
    };
    // (overlap, x, baseline, size, box, leader) of the best spot so far
    let mut best: Option<(f64, f64, f64, f64, Rect, bool)> = None;
    for (size, w) in sizes(n.sea).into_iter().zip(n.widths) {
        let (ax, ay) = n.anchor;
        let h = size + 2.0;
        // a port's dot follows the name: a name beside the position
        // keeps clear of it
        let dot = if n.port { 12.0 } else { 0.0 };
        let mut candidates = [(0.0, 0.0, false); 33];
        for ring in 1..=4 {
            let k = ring as f64;
            let dy = k * h;
            let dx = w / 2.0 + dot + 4.0 + (k - 1.0) * 10.0;
            let leader = ring >= 2;
            for (i, (cx, cy)) in [
                (0.0, -dy),
                (0.0, dy),
                (dx, 0.0),
                (-dx, 0.0),
                (dx, -dy),
                (-dx, -dy),
                (dx, dy),
                (-dx, dy),
            ]
            .into_iter()
            .enumerate()
            {
                candidates[1 + (ring - 1) * 8 + i] = (cx, cy, leader);
            }
        }
        for (cx, cy, leader) in candidates {
            let x = ax + cx;
            let baseline = ay + 4.0 + cy;
            let rect = text_rect(x, baseline, w, size, n.sea, n.port);
            if !rect.inside(&area) {
                continue;
            }
            // the overlap with every box taken, summed no further than
            // the best spot's (a sum of areas only grows)
            let bound = best.as_ref().map_or(f64::INFINITY, |b| b.0);
            let mut cost = 0.0;
            for t in taken {
                cost += t.area_with(&rect);
                if cost >= bound {
                    break;
                }
            }
            if cost == 0.0 {
                return label(x, baseline, size, rect, leader);
            }
            if cost < bound {
                best = Some((cost, x, baseline, size, rect, leader));
            }
        }
    }
    match best {
        Some((_, x, baseline, size, rect, leader)) => label(x, baseline, size, rect, leader),
        None => {
            let w = text_width(n.text, full, 0.0);
            let rect = text_rect(n.anchor.0, n.anchor.1 + 4.0, w, full, n.sea, n.port);
            label(n.anchor.0, n.anchor.1 + 4.0, full, rect, false)
        }
    }
}
