//! The SVG of a scene: regions coloured by controller, coasts, sea zones,
//! crossing arrows, names, capitals and ports, this phase's moves, units,
//! battles and sieges, a title and a legend. Few elements (one path per
//! kind of line), so the PNG renders fast.

use super::geometry::{Projection, Pt, Regions, Site};
use super::layout::{self, Label, Rect};
use super::tenths::D1;
use super::{MarkKind, PictureError, Place, Scene};
use crate::ids::{Nation, PowerId};
use std::collections::BTreeMap;
use std::fmt::Write;

const TITLE_H: f64 = 46.0;
const LEGEND_H: f64 = 128.0;
const PAPER: &str = "#f7f3e8";
const SEA: &str = "#c9dfee";
const COAST: &str = "#3d5f78";
const INK: &str = "#1d1d1d";
const NEUTRAL_FILL: &str = "#efebe0";
const MINOR_FILL: &str = "#d8cfa8";
const MINOR_STRONG: &str = "#7a6a3a";

/// Pale fill of a power's provinces and the strong colour of its units.
pub(super) fn colours(p: PowerId) -> (&'static str, &'static str) {
    match p {
        PowerId::France => ("#a7bfe8", "#1f4fa8"),
        PowerId::Britain => ("#eba39c", "#b3201c"),
        PowerId::Russia => ("#a3d4aa", "#1f7a39"),
        PowerId::Austria => ("#f3df8e", "#b88f00"),
        PowerId::Prussia => ("#b9bdc6", "#343a46"),
        PowerId::Spain => ("#f6c38f", "#cc5a00"),
        PowerId::Ottoman => ("#ccb1dc", "#74368f"),
    }
}

fn nation_strong(n: &Nation) -> &'static str {
    match n {
        Nation::Major(p) => colours(*p).1,
        Nation::Minor(_) => MINOR_STRONG,
    }
}

/// Text colour on a unit of this colour.
fn on(strong: &str) -> &'static str {
    if strong == colours(PowerId::Austria).1 {
        INK
    } else {
        "#ffffff"
    }
}

/// `s` as SVG text: borrowed when nothing in it needs escaping (every
/// name of the map, every counter).
pub(super) fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"']) {
        return s.into();
    }
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .into()
}

/// Rough width of a label in pixels (condensed bold serif).
pub(super) fn text_w(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.58
}

fn path_of(points: &[Pt], d: &mut String) {
    for (k, (x, y)) in points.iter().enumerate() {
        let _ = write!(d, "{}{x},{y}", if k == 0 { "M" } else { "L" }, x = D1(*x), y = D1(*y));
    }
    d.push('Z');
}

/// Arrowhead triangle at `tip`, pointing along `dir`.
fn head(tip: Pt, dir: Pt, size: f64) -> String {
    let len = (dir.0 * dir.0 + dir.1 * dir.1).sqrt().max(1e-9);
    let (ux, uy) = (dir.0 / len, dir.1 / len);
    let base = (tip.0 - ux * size, tip.1 - uy * size);
    let (px, py) = (-uy * size * 0.55, ux * size * 0.55);
    format!(
        "M{},{}L{},{}L{},{}Z",
        D1(tip.0),
        D1(tip.1),
        D1(base.0 + px),
        D1(base.1 + py),
        D1(base.0 - px),
        D1(base.1 - py)
    )
}

fn star(c: Pt, r: f64) -> String {
    let mut d = String::new();
    for k in 0..10 {
        let rr = if k % 2 == 0 { r } else { r * 0.45 };
        let t = std::f64::consts::PI * (k as f64 / 5.0 - 0.5);
        let _ = write!(
            d,
            "{}{},{}",
            if k == 0 { "M" } else { "L" },
            D1(c.0 + rr * t.cos()),
            D1(c.1 + rr * t.sin())
        );
    }
    d.push('Z');
    d
}

fn burst(c: Pt, r: f64) -> String {
    let mut d = String::new();
    for k in 0..16 {
        let rr = if k % 2 == 0 { r } else { r * 0.5 };
        let t = std::f64::consts::PI * k as f64 / 8.0;
        let _ = write!(
            d,
            "{}{},{}",
            if k == 0 { "M" } else { "L" },
            D1(c.0 + rr * t.cos()),
            D1(c.1 + rr * t.sin())
        );
    }
    d.push('Z');
    d
}

/// A crenellated tower (siege mark) standing on `c`.
fn tower(c: Pt, s: f64) -> String {
    let (x, y) = (c.0 - s / 2.0, c.1 - s / 2.0);
    let q = s / 5.0;
    format!(
        "M{x},{}L{x},{y}L{},{y}L{},{}L{},{}L{},{y}L{},{y}L{},{}L{},{}L{},{y}L{},{y}L{},{}Z",
        D1(y + s),
        D1(x + q),
        D1(x + q),
        D1(y + q),
        D1(x + 2.0 * q),
        D1(y + q),
        D1(x + 2.0 * q),
        D1(x + 3.0 * q),
        D1(x + 3.0 * q),
        D1(y + q),
        D1(x + 4.0 * q),
        D1(y + q),
        D1(x + 4.0 * q),
        D1(x + s),
        D1(x + s),
        D1(y + s),
        x = D1(x),
        y = D1(y)
    )
}

/// The SVG of a scene and where its layers start: the base (paper, sea,
/// regions filled by controller, this phase's moves), the overlay that every picture of the
/// map shares (borders, coasts, crossing arrows, names, capitals, ports)
/// and the top (units, battles and sieges, title, legend). The PNG
/// renders the overlay once per process (`super::png_of`).
pub struct Layers {
    pub text: String,
    /// End of the `<svg>` start tag.
    open_end: usize,
    /// End of the base, start of the overlay.
    base_end: usize,
    /// End of the overlay, start of the top.
    overlay_end: usize,
    /// Where the title is in `text` (inside the top).
    title: std::ops::Range<usize>,
    width: f64,
    height: f64,
}

const CLOSE: &str = "</svg>\n";

impl Layers {
    fn part(&self, from: usize, to: usize) -> String {
        let mut s = String::with_capacity(self.open_end + (to - from) + CLOSE.len());
        s.push_str(&self.text[..self.open_end]);
        s.push_str(&self.text[from..to]);
        s.push_str(CLOSE);
        s
    }
    /// The base alone, as an SVG document.
    pub fn base(&self) -> String {
        self.part(self.open_end, self.base_end)
    }
    /// The shared overlay alone (transparent elsewhere).
    pub fn overlay(&self) -> String {
        self.part(self.base_end, self.overlay_end)
    }
    /// The top alone (transparent elsewhere).
    pub fn top(&self) -> String {
        self.part(self.overlay_end, self.text.len() - CLOSE.len())
    }
    /// How many rows of pixels the title band covers, from the top: it
    /// is an opaque box painted over anything under it, and nothing
    /// painted after it reaches it (the legend is at the bottom), so
    /// those rows are the title's alone and no other row shows it.
    pub fn title_rows(&self) -> u32 {
        TITLE_H as u32
    }
    /// The picture's height in pixels.
    pub fn height(&self) -> u32 {
        self.height as u32
    }
    /// The title alone, as an SVG document of the title band's size.
    pub fn title(&self) -> String {
        let mut s = open(self.width, TITLE_H);
        s.push_str(&self.text[self.title.clone()]);
        s.push_str(CLOSE);
        s
    }
    /// A digest (SHA-256) of the whole text but the title: of what decides
    /// every row below the title band (pictures of the same view in two
    /// games differ only in the title, which names the game).
    pub fn without_title(&self) -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::new()
            .chain_update(&self.text[..self.title.start])
            .chain_update(&self.text[self.title.end..])
            .finalize()
            .into()
    }
}

/// The `<svg>` start tag of a document `width` x `height`.
fn open(width: f64, height: f64) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Serif" font-weight="bold" font-stretch="condensed">"#
    )
}

/// What every picture of one map at one width shares, drawn once: the
/// ground (paper, sea, the coasts' glow), each province's shape, the
/// lines and crossing arrows over the land, the capitals' stars, and the
/// names as last placed (they move only when the units they avoid do).
/// A site draws a picture for every phase of a game on one `Fixed`
/// (`Scene::svg_on`); each picture is the same text as drawn alone.
pub struct Fixed<'m> {
    map: &'m crate::map::Map,
    width: f64,
    proj: Projection,
    height: f64,
    /// The `<svg>` start tag.
    open: String,
    /// Paper, sea and the coasts' glow: under the land.
    ground: String,
    /// Each land cell's province and its path (`None`: the province is
    /// drawn from its own polygon), then each polygon's province and path,
    /// in the order `draw` fills them.
    cells: Vec<(usize, Option<String>)>,
    polygons: Vec<(usize, String)>,
    /// Sea zone borders, borders, coasts and crossing arrows: over the
    /// land and the moves, under the names.
    lines: String,
    /// The capitals' stars (path data).
    stars: String,
    anchors: Anchors<'m>,
    /// The names to place, measured, and where they may go.
    to_name: layout::Names<'m>,
    area: Rect,
    /// The boxes the names last avoided, the names placed clear of them
    /// and their SVG.
    names: std::sync::Mutex<Option<(Vec<Rect>, Placed)>>,
}

/// Names as placed, and their SVG.
type Placed = std::sync::Arc<(Vec<Label>, String)>;

impl<'m> Fixed<'m> {
    /// Draw what no state changes of the pictures of `scenario`'s map.
    pub fn new(scenario: &'m crate::scenario::Scenario) -> Result<Fixed<'m>, PictureError> {
        Fixed::at(&scenario.map, &scenario.id, super::WIDTH as f64)
    }

    /// The same for pictures `width` pixels wide (`id`: the scenario's,
    /// for the error).
    fn at(map: &'m crate::map::Map, id: &str, width: f64) -> Result<Fixed<'m>, PictureError> {
        let proj = Projection::fit(map, width, TITLE_H).ok_or_else(|| PictureError::NoGeometry(id.to_string()))?;
        if map.provinces.iter().any(|p| p.pos.is_none())
            || map.seas.iter().any(|z| !z.is_off_board() && z.pos.is_none())
        {
            return Err(PictureError::NoGeometry(id.to_string()));
        }
        let regions = Regions::new(map, &proj);
        let height = (TITLE_H + proj.height + LEGEND_H).round();
        let mut ground = String::new();
        let _ = write!(ground, r#"<rect width="100%" height="100%" fill="{PAPER}"/>"#);
        let _ = write!(
            ground,
            r#"<rect x="0" y="{TITLE_H}" width="{width:.0}" height="{}" fill="{SEA}"/>"#,
            D1(proj.height)
        );
        let anchors = Anchors::new(map, &proj);

        // Coast glow under the land, then the land by fill colour. The
        // glow and the sea zones' dashes, pale on the pale sea, are drawn
        // without anti-aliasing (issue 37): side by side no eye sees their
        // steps, and the blends they no longer make were 5 % of the PNG.
        let Edges {
            coast,
            mut borders,
            sea_borders,
        } = Edges::new(&regions);
        let _ = write!(
            ground,
            r##"<path d="{coast}" fill="none" stroke="#a9cbe0" stroke-width="9" stroke-linejoin="round" shape-rendering="crispEdges"/>"##
        );
        let mut cells = Vec::new();
        for cell in &regions.cells {
            if let Site::Land(i) = cell.site {
                let own = map.provinces[i].polygon.is_empty().then(|| {
                    let mut d = String::new();
                    path_of(&cell.points, &mut d);
                    d
                });
                cells.push((i, own));
            }
        }
        let mut polygons = Vec::new();
        for (i, p) in map.provinces.iter().enumerate().filter(|(_, p)| !p.polygon.is_empty()) {
            let pts: Vec<Pt> = p.polygon.iter().map(|ll| proj.xy(*ll)).collect();
            let mut d = String::new();
            path_of(&pts, &mut d);
            // provinces drawn from their own polygon have it as their border
            borders.push_str(&d);
            polygons.push((i, d));
        }
        let mut lines = String::new();
        let _ = write!(
            lines,
            r##"<path d="{sea_borders}" fill="none" stroke="#7fa6c2" stroke-width="1.2" stroke-dasharray="6 4" shape-rendering="crispEdges"/>"##
        );
        let _ = write!(
            lines,
            r##"<path d="{borders}" fill="none" stroke="#6d6a60" stroke-width="0.9" stroke-linejoin="round"/>"##
        );
        let _ = write!(
            lines,
            r#"<path d="{coast}" fill="none" stroke="{COAST}" stroke-width="1.8" stroke-linejoin="round"/>"#
        );
        crossing_arrows(&mut lines, map, &anchors);
        let mut stars = String::new();
        for p in map.provinces.iter().filter(|p| p.capital) {
            if let Some(&a) = anchors.province.get(p.id.as_str()) {
                stars.push_str(&star(layout::star_centre(a), layout::STAR_R));
            }
        }
        Ok(Fixed {
            to_name: layout::Names::new(map, &anchors.province, &anchors.sea),
            area: map_area(&proj, width),
            map,
            width,
            open: open(width, height),
            proj,
            height,
            ground,
            cells,
            polygons,
            lines,
            stars,
            anchors,
            names: Default::default(),
        })
    }

    /// The names placed for `state`'s units and their SVG: placed again
    /// only when the boxes they avoid differ from the last state's.
    fn names(&self, state: &crate::state::State) -> Placed {
        let avoid = self.anchors.avoid(self.map, state);
        if let Some((a, names)) = self.kept().as_ref()
            && *a == avoid
        {
            return names.clone();
        }
        // placed outside the lock: other threads draw meanwhile
        let labels = self.to_name.place(&avoid, self.area);
        let mut text = String::new();
        names(&mut text, &labels, &self.stars);
        let made: Placed = std::sync::Arc::new((labels, text));
        *self.kept() = Some((avoid, made.clone()));
        made
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Option<(Vec<Rect>, Placed)>> {
        // a thread that panicked holding the lock left a whole value
        self.names.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

pub fn draw(scene: &Scene<'_>, width: f64) -> Result<Layers, PictureError> {
    draw_on(scene, &Fixed::at(&scene.scenario.map, &scene.scenario.id, width)?)
}

/// The picture of `scene` drawn on what `fixed` holds of its map (drawn
/// anew if `fixed` is of another map).
pub fn draw_on(scene: &Scene<'_>, fixed: &Fixed<'_>) -> Result<Layers, PictureError> {
    if !std::ptr::eq(fixed.map, &scene.scenario.map) {
        return draw(scene, fixed.width);
    }
    let (width, height) = (fixed.width, fixed.height);
    let anchors = &fixed.anchors;
    let mut s = String::with_capacity(200_000);
    s.push_str(&fixed.open);
    let open_end = s.len();
    s.push_str(&fixed.ground);
    let names = fixed.names(&scene.state);
    land(&mut s, scene, fixed);
    // This phase's moves: curved arrows in the mover's colour, under the
    // borders and names (their halo keeps the names readable) and the units.
    moves(&mut s, scene, anchors);

    let base_end = s.len();
    s.push_str(&fixed.lines);
    s.push_str(&names.1);

    let overlay_end = s.len();
    units(&mut s, scene, anchors);
    marks(&mut s, scene, anchors, &names.0);

    let title_start = s.len();
    title(&mut s, scene, width);
    let title_end = s.len();
    legend(&mut s, scene, width, TITLE_H + fixed.proj.height);
    s.push_str(CLOSE);
    Ok(Layers {
        text: s,
        open_end,
        base_end,
        overlay_end,
        title: title_start..title_end,
        width,
        height,
    })
}

/// The names as `draw` places them on `scene`'s picture `width` pixels
/// wide, and the boxes of the unit counters it draws.
pub(super) fn layout_of(scene: &Scene<'_>, width: f64) -> Result<(Vec<Label>, Vec<Rect>), PictureError> {
    let map = &scene.scenario.map;
    let proj =
        Projection::fit(map, width, TITLE_H).ok_or_else(|| PictureError::NoGeometry(scene.scenario.id.clone()))?;
    let anchors = Anchors::new(map, &proj);
    let labels = anchors.place(map, &anchors.avoid(map, &scene.state), &proj, width);
    let counters = layout::counters(&scene.state, &anchors.province, &anchors.sea, false)
        .iter()
        .map(layout::Counter::rect)
        .collect();
    Ok((labels, counters))
}

/// The map area of a picture `width` wide, between the title and the
/// legend: where the names go.
fn map_area(proj: &Projection, width: f64) -> Rect {
    Rect {
        x0: 0.0,
        y0: TITLE_H,
        x1: width,
        y1: TITLE_H + proj.height,
    }
}

/// Where each province and sea zone is drawn.
pub(super) struct Anchors<'m> {
    pub(super) province: BTreeMap<&'m str, Pt>,
    pub(super) sea: BTreeMap<&'m str, Pt>,
}

impl<'m> Anchors<'m> {
    /// The boxes the names of `map` keep clear of: `state`'s counters at
    /// their widest (`layout`) and the capitals' stars.
    fn avoid(&self, map: &crate::map::Map, state: &crate::state::State) -> Vec<Rect> {
        let mut fixed: Vec<Rect> = layout::counters(state, &self.province, &self.sea, true)
            .iter()
            .map(layout::Counter::rect)
            .collect();
        fixed.extend(
            map.provinces
                .iter()
                .filter(|p| p.capital)
                .filter_map(|p| self.province.get(p.id.as_str()))
                .map(|&a| layout::star_rect(a)),
        );
        fixed
    }

    /// The names of `map` placed clear of each other and of the boxes
    /// `avoid`, inside the map area.
    fn place(&self, map: &crate::map::Map, avoid: &[Rect], proj: &Projection, width: f64) -> Vec<Label> {
        layout::place(map, &self.province, &self.sea, avoid, map_area(proj, width))
    }

    pub(super) fn new(map: &'m crate::map::Map, proj: &Projection) -> Self {
        Anchors {
            province: map
                .provinces
                .iter()
                .filter_map(|p| p.pos.map(|pos| (p.id.as_str(), proj.xy(pos))))
                .collect(),
            sea: map
                .seas
                .iter()
                .filter_map(|z| z.pos.map(|pos| (z.id.as_str(), proj.xy(pos))))
                .collect(),
        }
    }

    fn of(&self, pl: &Place) -> Option<Pt> {
        match pl {
            Place::Province(p) => self.province.get(p.as_str()).copied(),
            Place::Sea(z) => self.sea.get(z.as_str()).copied(),
        }
    }
}

/// The edges of the map's cells, as SVG path data: coasts, borders
/// between provinces, borders between sea zones.
struct Edges {
    coast: String,
    borders: String,
    sea_borders: String,
}

impl Edges {
    fn new(regions: &Regions) -> Edges {
        let mut coast = String::new();
        let mut borders = String::new();
        let mut sea_borders = String::new();
        for (i, cell) in regions.cells.iter().enumerate() {
            let n = cell.points.len();
            for k in 0..n {
                let Some(j) = cell.across[k] else { continue };
                let (a, b) = (cell.points[k], cell.points[(k + 1) % n]);
                let seg = format!("M{},{}L{},{}", D1(a.0), D1(a.1), D1(b.0), D1(b.1));
                match (cell.site, regions.sites[j].0) {
                    (Site::Land(x), Site::Land(y)) if x != y && i < j => borders.push_str(&seg),
                    (Site::Land(_), Site::Sea(_)) => coast.push_str(&seg),
                    (Site::Sea(x), Site::Sea(y)) if x != y && i < j => sea_borders.push_str(&seg),
                    _ => {}
                }
            }
        }
        Edges {
            coast,
            borders,
            sea_borders,
        }
    }
}

/// The land, by fill colour (each province's controller now).
fn land(s: &mut String, scene: &Scene<'_>, fixed: &Fixed<'_>) {
    let map = &scene.scenario.map;
    let state = &scene.state;
    let fill_of = |i: usize| -> &'static str {
        match state
            .provinces
            .get(&map.provinces[i].id)
            .and_then(|ps| ps.controller.as_ref())
        {
            Some(Nation::Major(p)) => colours(*p).0,
            Some(Nation::Minor(m)) => match state.minors.get(m).and_then(|ms| ms.controller) {
                Some(p) => colours(p).0,
                None => MINOR_FILL,
            },
            None => NEUTRAL_FILL,
        }
    };

    let mut by_fill: BTreeMap<&str, String> = BTreeMap::new();
    for (i, d) in &fixed.cells {
        let path = by_fill.entry(fill_of(*i)).or_default();
        if let Some(d) = d {
            path.push_str(d);
        }
    }
    for (i, d) in &fixed.polygons {
        by_fill.entry(fill_of(*i)).or_default().push_str(d);
    }
    for (fill, d) in &by_fill {
        let _ = write!(s, r#"<path d="{d}" fill="{fill}"/>"#);
    }
}

/// This phase's moves: curved arrows in the mover's colour.
fn moves(s: &mut String, scene: &Scene<'_>, anchors: &Anchors<'_>) {
    for m in &scene.moves {
        let (Some(a), Some(b)) = (anchors.of(&m.from), anchors.of(&m.to)) else {
            continue;
        };
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt();
        if len < 1.0 {
            continue;
        }
        let (ux, uy) = (dx / len, dy / len);
        let (a2, b2) = ((a.0 + ux * 8.0, a.1 + uy * 8.0), (b.0 - ux * 12.0, b.1 - uy * 12.0));
        let c = (
            (a2.0 + b2.0) / 2.0 - uy * len * 0.15,
            (a2.1 + b2.1) / 2.0 + ux * len * 0.15,
        );
        let col = nation_strong(&m.nation);
        let d = format!(
            "M{},{}Q{},{} {},{}",
            D1(a2.0),
            D1(a2.1),
            D1(c.0),
            D1(c.1),
            D1(b2.0),
            D1(b2.1)
        );
        let h = head(b2, (b2.0 - c.0, b2.1 - c.1), 13.0);
        let _ = write!(
            s,
            r##"<path d="{d}" fill="none" stroke="#ffffff" stroke-width="6.5" stroke-linecap="round"/><path d="{d}" fill="none" stroke="{col}" stroke-width="3.5" stroke-linecap="round"/><path d="{h}" fill="{col}" stroke="#ffffff" stroke-width="1.2"/>"##
        );
    }
}

/// Crossing arrows (12.2.1): dashed, a head at each end; double arrows wider.
fn crossing_arrows(s: &mut String, map: &crate::map::Map, anchors: &Anchors<'_>) {
    for a in &map.arrows {
        let (Some(p), Some(q)) = (
            anchors.province.get(a.from.as_str()),
            anchors.province.get(a.to.as_str()),
        ) else {
            continue;
        };
        let dir = (q.0 - p.0, q.1 - p.1);
        let len = (dir.0 * dir.0 + dir.1 * dir.1).sqrt().max(1.0);
        let cut = 16.0_f64.min(len / 3.0);
        let (ux, uy) = (dir.0 / len, dir.1 / len);
        let (p2, q2) = ((p.0 + ux * cut, p.1 + uy * cut), (q.0 - ux * cut, q.1 - uy * cut));
        let w = if a.kind >= 2 { 2.6 } else { 1.6 };
        let _ = write!(
            s,
            r##"<path d="M{},{}L{},{}" stroke="#123f63" stroke-width="{w}" stroke-dasharray="5 3" fill="none"/><path d="{}{}" fill="#123f63"/>"##,
            D1(p2.0),
            D1(p2.1),
            D1(q2.0),
            D1(q2.1),
            head(q2, dir, 8.0),
            head(p2, (-dir.0, -dir.1), 8.0)
        );
    }
}

/// Sea zone names; province names (`layout` placed them), leader lines
/// from a name moved off its position, capitals (a star above the
/// position), ports (a dot after the name).
fn names(s: &mut String, labels: &[Label], stars: &str) {
    let mut leaders = String::new();
    for l in labels.iter().filter(|l| l.leader) {
        let (ex, ey) = l.leader_end();
        let _ = write!(
            leaders,
            "M{},{}L{ex},{ey}",
            D1(l.anchor.0),
            D1(l.anchor.1),
            ex = D1(ex),
            ey = D1(ey)
        );
    }
    if !leaders.is_empty() {
        let _ = write!(
            s,
            r#"<path d="{leaders}" fill="none" stroke="{INK}" stroke-width="0.8" stroke-dasharray="2 1.5"/>"#
        );
    }
    let _ = write!(
        s,
        r##"<g font-size="{}" fill="#2b5a7e" text-anchor="middle" font-style="italic" letter-spacing="{}">"##,
        layout::SEA_SIZE,
        layout::SEA_SPACING
    );
    for l in labels.iter().filter(|l| l.sea) {
        let size = if l.size == layout::SEA_SIZE {
            String::new()
        } else {
            format!(r#" font-size="{}""#, l.size)
        };
        let _ = write!(
            s,
            r#"<text x="{}" y="{}"{size}>{}</text>"#,
            D1(l.x),
            D1(l.baseline),
            esc(&l.text)
        );
    }
    s.push_str("</g>");

    let mut ports = String::new();
    // Each province name on a halo of paper, so that it reads over borders
    // and every fill: the halo first, without anti-aliasing (its pale edge
    // on the pale fills shows no steps, and the blends of paper and each
    // fill were 3 % of the PNG), then the names, anti-aliased, on it.
    let mut label_text = String::new();
    for l in labels.iter().filter(|l| !l.sea) {
        let size = if l.size == layout::PROVINCE_SIZE {
            String::new()
        } else {
            format!(r#" font-size="{}""#, l.size)
        };
        let _ = write!(
            label_text,
            r#"<text x="{}" y="{}"{size}>{}</text>"#,
            D1(l.x),
            D1(l.baseline),
            esc(&l.text)
        );
        if l.port {
            let (px, py) = l.port_dot();
            let _ = write!(ports, "M{px},{py}a3,3 0 1,0 0.01,0Z", px = D1(px), py = D1(py));
        }
    }
    let _ = write!(
        s,
        r#"<g font-size="{}" fill="{PAPER}" text-anchor="middle" stroke="{PAPER}" stroke-width="2.6" stroke-linejoin="round" text-rendering="optimizeSpeed">{label_text}</g>"#,
        layout::PROVINCE_SIZE
    );
    let _ = write!(
        s,
        r#"<g font-size="{}" fill="{INK}" text-anchor="middle">{label_text}</g>"#,
        layout::PROVINCE_SIZE
    );
    let _ = write!(
        s,
        r##"<path d="{stars}" fill="#c0392b" stroke="#fff" stroke-width="0.8"/><path d="{ports}" fill="#fff" stroke="#123f63" stroke-width="1.8"/>"##
    );
}

/// Units: corps counters under the position, squadrons (boats) after
/// them (`layout::counters`).
fn units(s: &mut String, scene: &Scene<'_>, anchors: &Anchors<'_>) {
    let _ = write!(s, r#"<g font-size="{}" text-anchor="middle">"#, layout::COUNTER_FONT);
    for u in layout::counters(&scene.state, &anchors.province, &anchors.sea, false) {
        let (x, y, w) = (u.x, u.y, u.w);
        let col = nation_strong(&u.nation);
        if u.boat {
            let _ = write!(
                s,
                r##"<path d="M{},{y}L{},{y}L{},{}L{},{}Z" fill="{col}" stroke="#0b2a40" stroke-width="1"/>"##,
                D1(x - 2.0),
                D1(x + w + 2.0),
                D1(x + w - 2.0),
                D1(y + 13.0),
                D1(x + 2.0),
                D1(y + 13.0),
                y = D1(y)
            );
        } else {
            let _ = write!(
                s,
                r##"<rect x="{x}" y="{y}" width="{w}" height="13" rx="2" fill="{col}" stroke="#111" stroke-width="0.9"/>"##,
                x = D1(x),
                y = D1(y),
                w = D1(w)
            );
        }
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" fill="{}">{}</text>"#,
            D1(x + w / 2.0),
            D1(y + 10.0),
            on(col),
            esc(&u.label)
        );
    }
    s.push_str("</g>");
}

/// Battles and sieges of this phase: above and left of the position,
/// or the first other corner where no name is.
fn marks(s: &mut String, scene: &Scene<'_>, anchors: &Anchors<'_>, labels: &[Label]) {
    for m in &scene.marks {
        let Some((x, y)) = anchors.of(&m.place) else { continue };
        let corners = [(-16.0, -12.0), (16.0, -12.0), (-22.0, 4.0), (22.0, 4.0)];
        let free = |&(dx, dy): &(f64, f64)| {
            let r = Rect {
                x0: x + dx - 10.5,
                y0: y + dy - 10.5,
                x1: x + dx + 10.5,
                y1: y + dy + 10.5,
            };
            !labels.iter().any(|l| l.rect.overlaps(&r))
        };
        let (dx, dy) = corners.iter().copied().find(free).unwrap_or(corners[0]);
        let c = (x + dx, y + dy);
        let d = match m.kind {
            MarkKind::Battle => burst(c, 10.0),
            MarkKind::Siege => tower(c, 13.0),
        };
        let fill = if m.kind == MarkKind::Battle {
            "#e02020"
        } else {
            "#6b3a1e"
        };
        let _ = write!(s, r##"<path d="{d}" fill="{fill}" stroke="#fff" stroke-width="1.5"/>"##);
    }
}

fn title(s: &mut String, scene: &Scene<'_>, width: f64) {
    let who = match scene.viewer {
        Some(p) => format!("as {} sees it", p.name()),
        None => "the moderator's map (everything)".to_string(),
    };
    let what = if scene.after_phase {
        format!(
            "after this phase: {} move(s), {} battle(s), {} siege(s)",
            scene.moves.len(),
            scene.marks.iter().filter(|m| m.kind == MarkKind::Battle).count(),
            scene.marks.iter().filter(|m| m.kind == MarkKind::Siege).count(),
        )
    } else {
        "the position as the phase opens".to_string()
    };
    let _ = write!(
        s,
        r##"<rect width="{width:.0}" height="{TITLE_H}" fill="#22303c"/><text x="16" y="31" font-size="22" fill="#ffffff">{} · {} · {}</text><text x="{:.0}" y="31" font-size="15" fill="#c9d6e0" text-anchor="end">{}</text>"##,
        esc(&format!("Empereur {}", scene.game)),
        esc(&scene.phase),
        esc(&who),
        width - 16.0,
        esc(&what),
    );
}

fn legend(s: &mut String, scene: &Scene<'_>, width: f64, top: f64) {
    let _ = write!(
        s,
        r##"<rect x="0" y="{top}" width="{width:.0}" height="{LEGEND_H}" fill="{PAPER}" stroke="#22303c" stroke-width="2"/><g font-size="14" fill="{INK}">"##,
        top = D1(top)
    );
    legend_controllers(s, top + 26.0);
    legend_symbols(s, scene, top + 62.0);
    legend_phase(s, top + 98.0);
    s.push_str("</g>");
}

/// Legend row 1: who controls what.
fn legend_controllers(s: &mut String, y: f64) {
    let mut x = 16.0;
    let _ = write!(s, r#"<text x="{x}" y="{}">Controller:</text>"#, D1(y + 5.0));
    x += 92.0;
    let swatch = |s: &mut String, x: &mut f64, fill: &str, label: &str| {
        let _ = write!(
            s,
            r##"<rect x="{}" y="{}" width="22" height="15" fill="{fill}" stroke="#6d6a60"/><text x="{}" y="{}">{}</text>"##,
            D1(*x),
            D1(y - 7.0),
            D1(*x + 28.0),
            D1(y + 5.0),
            esc(label)
        );
        *x += 36.0 + text_w(label, 14.0);
    };
    for p in PowerId::ALL {
        swatch(s, &mut x, colours(p).0, p.name());
    }
    swatch(s, &mut x, MINOR_FILL, "minor power");
    swatch(s, &mut x, NEUTRAL_FILL, "uncontrolled");
    let _ = x;
}

/// Legend row 2: symbols.
fn legend_symbols(s: &mut String, scene: &Scene<'_>, y: f64) {
    let mut x = 16.0;
    let _ = write!(
        s,
        r##"<path d="{}" fill="#c0392b"/><text x="{}" y="{}">capital</text>"##,
        star((x + 7.0, y), 7.0),
        D1(x + 20.0),
        D1(y + 5.0)
    );
    x += 86.0;
    let _ = write!(
        s,
        r##"<circle cx="{}" cy="{y}" r="3.5" fill="#fff" stroke="#123f63" stroke-width="2"/><text x="{}" y="{}">port</text>"##,
        D1(x + 5.0),
        D1(x + 16.0),
        D1(y + 5.0),
        y = D1(y)
    );
    x += 64.0;
    let _ = write!(
        s,
        r##"<path d="M{},{y}L{},{y}" stroke="#123f63" stroke-width="1.6" stroke-dasharray="5 3"/><path d="{}{}" fill="#123f63"/><text x="{}" y="{}">crossing arrow</text>"##,
        D1(x + 8.0),
        D1(x + 40.0),
        head((x + 46.0, y), (1.0, 0.0), 8.0),
        head((x + 2.0, y), (-1.0, 0.0), 8.0),
        D1(x + 54.0),
        D1(y + 5.0),
        y = D1(y)
    );
    x += 176.0;
    let _ = write!(
        s,
        r##"<path d="M{},{y}L{},{y}" stroke="#7fa6c2" stroke-width="1.5" stroke-dasharray="6 4"/><text x="{}" y="{}">sea zone border</text>"##,
        D1(x),
        D1(x + 34.0),
        D1(x + 42.0),
        D1(y + 5.0),
        y = D1(y)
    );
    x += 168.0;
    let own = match scene.strengths_shown() {
        Some(who) => format!("corps 3 with 4 divisions (strength: {who})"),
        None => "corps 3 with 4 divisions".to_string(),
    };
    let _ = write!(
        s,
        r##"<rect x="{x}" y="{}" width="28" height="14" rx="2" fill="#555" stroke="#111"/><text x="{}" y="{}" fill="#fff" font-size="11" text-anchor="middle">3·4</text><text x="{}" y="{}">{}</text>"##,
        D1(y - 7.0),
        D1(x + 14.0),
        D1(y + 4.0),
        D1(x + 36.0),
        D1(y + 5.0),
        esc(&own),
        x = D1(x)
    );
    x += 50.0 + text_w(&own, 14.0);
    let _ = write!(
        s,
        r##"<path d="M{},{}L{},{}L{},{}L{},{}Z" fill="#555" stroke="#0b2a40"/><text x="{}" y="{}" fill="#fff" font-size="11" text-anchor="middle">2</text><text x="{}" y="{}">squadron 2</text>"##,
        D1(x - 2.0),
        D1(y - 7.0),
        D1(x + 22.0),
        D1(y - 7.0),
        D1(x + 18.0),
        D1(y + 7.0),
        D1(x + 2.0),
        D1(y + 7.0),
        D1(x + 10.0),
        D1(y + 4.0),
        D1(x + 30.0),
        D1(y + 5.0)
    );
}

/// Legend row 3: what happened this phase.
fn legend_phase(s: &mut String, y: f64) {
    let mut x = 16.0;
    let _ = write!(
        s,
        r##"<path d="M{},{y}L{},{y}" stroke="#555" stroke-width="3.5"/><path d="{}" fill="#555"/><text x="{}" y="{}">a move this phase (mover's colour)</text>"##,
        D1(x),
        D1(x + 30.0),
        head((x + 42.0, y), (1.0, 0.0), 13.0),
        D1(x + 50.0),
        D1(y + 5.0),
        y = D1(y)
    );
    x += 330.0;
    let _ = write!(
        s,
        r##"<path d="{}" fill="#e02020"/><text x="{}" y="{}">battle</text>"##,
        burst((x + 9.0, y), 10.0),
        D1(x + 24.0),
        D1(y + 5.0)
    );
    x += 90.0;
    let _ = write!(
        s,
        r##"<path d="{}" fill="#6b3a1e"/><text x="{}" y="{}">siege</text>"##,
        tower((x + 7.0, y), 13.0),
        D1(x + 22.0),
        D1(y + 5.0)
    );
    x += 80.0;
    let _ = write!(
        s,
        r##"<text x="{x}" y="{}" fill="#555">Shapes are drawn from the scenario's positions, not traced from the printed map.</text>"##,
        D1(y + 5.0),
        x = D1(x)
    );
}
