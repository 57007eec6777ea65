//! Pictures of the map: an SVG drawn from the scenario's geometry and one
//! power's view of the state, and a PNG rendered from it in pure Rust
//! (resvg) with the font shipped beside this file, so the same game gives
//! the same pixels on every machine.
//!
//! A picture shows only what its viewer's report shows: the states are
//! passed through [`State::view_for`] and the battles and sieges through
//! the outcomes' own visibility, here in [`Scene::new`] and nowhere else.
//! The moderator's picture (`viewer = None`) shows everything.
//!
//! Pure: no files, clock or environment. `mail::compose` attaches the
//! pictures to reports and openings; `ops::map` writes them to files.

pub mod chart;
pub mod geometry;
pub mod layout;
mod svg;
mod tenths;

pub use svg::Fixed;

use crate::ids::{Nation, PowerId};
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::state::{Location, State};
use resvg::tiny_skia::Pixmap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Width of the pictures in pixels: readable names on a laptop screen.
pub const WIDTH: u32 = 1600;

/// DejaVu Serif Condensed Bold (Bitstream Vera licence, beside this file).
const FONT: &[u8] = include_bytes!("DejaVuSerifCondensed-Bold.ttf");
const FONT_FAMILY: &str = "DejaVu Serif";

/// Whether the map has the positions a picture needs (every province and
/// sea zone; `scenario check` refuses a map with only some).
pub fn has_geometry(map: &crate::map::Map) -> bool {
    !map.provinces.is_empty()
        && map.provinces.iter().all(|p| p.pos.is_some())
        && map.seas.iter().all(|z| z.is_off_board() || z.pos.is_some())
}

/// Whether the pictures are left out (benchmarks only: what a run costs
/// without them).
static SKIPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Leave the pictures out of every mail (`true`) or draw them again: for
/// the benchmark that measures what the rest of a run costs.
#[cfg(feature = "testing")]
pub fn skip_for_bench(skip: bool) {
    SKIPPED.store(skip, Ordering::SeqCst);
}

/// Whether mail should carry pictures: the map has geometry and no
/// benchmark has switched them off.
pub fn wanted(map: &crate::map::Map) -> bool {
    has_geometry(map) && !SKIPPED.load(Ordering::SeqCst)
}

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("scenario '{0}' has no map geometry (pos = [longitude, latitude] in provinces.toml and seas.toml)")]
    NoGeometry(String),
    #[error("the map picture could not be rendered: {0}")]
    Render(String),
}

/// A unit's move this phase, as the viewer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    pub nation: Nation,
    pub from: Place,
    pub to: Place,
}

/// A province or a sea zone, by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    Province(String),
    Sea(String),
}

/// A battle or siege this phase, where the viewer may see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    pub kind: MarkKind,
    pub place: Place,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    Battle,
    Siege,
}

/// A picture as a file: `(name, content type, bytes)`.
pub type File = (String, &'static str, Vec<u8>);

/// Everything one picture shows, already cut to its viewer.
pub struct Scene<'a> {
    pub scenario: &'a Scenario,
    pub game: String,
    /// The phase in the title.
    pub phase: String,
    pub viewer: Option<PowerId>,
    /// The viewer's view of the state drawn.
    pub state: State,
    /// Whether this phase's moves are drawn (a picture after a
    /// resolution) or the position at an opening.
    pub after_phase: bool,
    pub moves: Vec<Move>,
    pub marks: Vec<Mark>,
}

impl<'a> Scene<'a> {
    /// The scene of `state` for `viewer` (`None`: the moderator). With
    /// `before` (the state the phase started from) and the phase's
    /// outcomes, this phase's moves, battles and sieges are drawn too.
    pub fn new(
        scenario: &'a Scenario,
        state: &State,
        before: Option<&State>,
        outcomes: &[Outcome],
        viewer: Option<PowerId>,
        phase: &str,
    ) -> Scene<'a> {
        let view = |s: &State| match viewer {
            Some(p) => s.view_for(p),
            None => s.clone(),
        };
        let after = view(state);
        let moves = before.map(|b| moves(&view(b), &after)).unwrap_or_default();
        let mut marks: Vec<Mark> = Vec::new();
        for o in outcomes.iter().filter(|o| viewer.is_none_or(|p| o.visibility.sees(p))) {
            let kind = match o.kind {
                Kind::Battle | Kind::BattleResult | Kind::NavalBattle => MarkKind::Battle,
                Kind::Siege => MarkKind::Siege,
                _ => continue,
            };
            let Some(at) = &o.at else { continue };
            let place = if scenario.map.sea(at).is_some() {
                Place::Sea(at.clone())
            } else {
                Place::Province(at.clone())
            };
            let m = Mark { kind, place };
            if !marks.contains(&m) {
                marks.push(m);
            }
        }
        Scene {
            scenario,
            game: state.game.clone(),
            phase: phase.to_string(),
            viewer,
            state: after,
            after_phase: before.is_some(),
            moves,
            marks,
        }
    }

    /// What the legend says of the strengths drawn (2.5): the moderator
    /// sees every corps' divisions; a power its own and those of the
    /// NPCs it gives orders for (3.31, `State::sees_records_of`), so
    /// France commanding an allied Prussia reads "France's and
    /// Prussia's only".
    pub fn strengths_shown(&self) -> Option<String> {
        let viewer = self.viewer?;
        let others: Vec<&str> = crate::ids::PowerId::ALL
            .into_iter()
            .filter(|p| *p != viewer && self.state.sees_records_of(Some(viewer), *p))
            .map(|p| p.name())
            .collect();
        Some(match others.as_slice() {
            [] => format!("{}'s own only", viewer.name()),
            [.., last] => format!(
                "{}'s{} and {last}'s only",
                viewer.name(),
                others[..others.len() - 1]
                    .iter()
                    .map(|n| format!(", {n}'s"))
                    .collect::<String>()
            ),
        })
    }

    /// The picture as SVG text.
    pub fn svg(&self) -> Result<String, PictureError> {
        Ok(svg::draw(self, WIDTH as f64)?.text)
    }

    /// The picture as SVG text, drawn on what `fixed` holds of the map:
    /// the same text as [`Scene::svg`], for many pictures of one map (a
    /// site's phases) without drawing the map itself for each.
    pub fn svg_on(&self, fixed: &Fixed<'_>) -> Result<String, PictureError> {
        Ok(svg::draw_on(self, fixed)?.text)
    }

    /// The names as laid out on the picture (`layout`), and the boxes
    /// of the unit counters it draws: what the layout keeps apart.
    pub fn layout(&self) -> Result<(Vec<layout::Label>, Vec<layout::Rect>), PictureError> {
        svg::layout_of(self, WIDTH as f64)
    }

    /// The picture as PNG bytes, `WIDTH` pixels wide.
    pub fn png(&self) -> Result<Vec<u8>, PictureError> {
        Ok(self.files()?.swap_remove(0).2)
    }

    /// The file name stem: `map-<phase>-<power>` (`moderator` for all).
    pub fn stem(&self) -> String {
        format!(
            "map-{}-{}",
            self.phase,
            self.viewer.map(|p| p.id()).unwrap_or("moderator")
        )
    }

    /// The pictures as attachments, the PNG first.
    ///
    /// A picture is drawn once for each distinct view: the PNG is kept
    /// for the SVG text it was rendered from (a digest of the whole text
    /// is the key, so a scene that differs in anything is drawn anew), and every
    /// other mail of the phase that shows the same view (a report sent
    /// again, a resend, the opening mailed by `run` after `mail`) reuses it.
    pub fn files(&self) -> Result<Vec<File>, PictureError> {
        let layers = svg::draw(self, WIDTH as f64)?;
        let key: [u8; 32] = {
            use sha2::Digest;
            sha2::Sha256::digest(&layers.text).into()
        };
        let png = DRAWN.get_or(key, |_| png_shared(&layers, Effort::Small).map(Arc::new))?;
        Ok(vec![
            (format!("{}.png", self.stem()), "image/png", png.to_vec()),
            (
                format!("{}.svg", self.stem()),
                "image/svg+xml",
                layers.text.into_bytes(),
            ),
        ])
    }

    /// The PNG drawn anew (no finished picture reused) at `effort`, its
    /// base rendered again unless `reuse_base`: for the benchmark, which
    /// measures the way pictures were made before (`Balanced`, base
    /// rendered for each) beside the way they are made now, in one run.
    #[doc(hidden)]
    pub fn png_at(&self, effort: Effort, reuse_base: bool) -> Result<Vec<u8>, PictureError> {
        let layers = svg::draw(self, WIDTH as f64)?;
        if reuse_base {
            return Ok(png_of(&layers, effort)?.0);
        }
        let overlay = Spans::render(&tree(&layers.overlay())?)?;
        let base = Flat::render(&tree(&layers.base())?, &overlay)?;
        Ok(png_on(&base, &tree(&layers.top())?, &layers, effort)?.0)
    }
}

/// Test helpers only (`testing`): never in the shipped binary.
#[cfg(feature = "testing")]
impl Scene<'_> {
    /// The PNG rendered the simple way, on one canvas of the whole
    /// picture (11 MiB): what the pictures painted in bands of rows must
    /// look like (a test compares them).
    #[doc(hidden)]
    pub fn png_on_one_canvas(&self) -> Result<Vec<u8>, PictureError> {
        let layers = svg::draw(self, WIDTH as f64)?;
        let mut pixmap = render_under(&layers.base(), &layers.overlay())?;
        paint(&tree(&layers.top())?, &mut pixmap);
        Ok(encode_split(&pixmap, layers.title_rows(), &svg_colours(&layers.text), Effort::Small)?.0)
    }
}

/// Units whose place differs between two views of the state, in the
/// order of the state's lists.
fn moves(before: &State, after: &State) -> Vec<Move> {
    let mut out = Vec::new();
    for c in &after.corps {
        let Some(to) = &c.location else { continue };
        let from = before
            .corps
            .iter()
            .find(|b| b.nation == c.nation && b.number == c.number)
            .and_then(|b| b.location.as_ref());
        if let Some(from) = from.filter(|f| *f != to) {
            out.push(Move {
                nation: c.nation.clone(),
                from: Place::Province(from.clone()),
                to: Place::Province(to.clone()),
            });
        }
    }
    let place = |l: &Location| match l {
        Location::Port(p) => Place::Province(p.clone()),
        Location::Sea(z) => Place::Sea(z.clone()),
    };
    for s in &after.squadrons {
        let from = before
            .squadrons
            .iter()
            .find(|b| b.nation == s.nation && b.number == s.number)
            .map(|b| &b.location);
        if let Some(from) = from.filter(|f| **f != s.location) {
            out.push(Move {
                nation: s.nation.clone(),
                from: place(from),
                to: place(&s.location),
            });
        }
    }
    out
}

fn fonts() -> Arc<resvg::usvg::fontdb::Database> {
    static DB: OnceLock<Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        // the embedded bytes themselves, not a copy on the heap
        db.load_font_source(resvg::usvg::fontdb::Source::Binary(Arc::new(FONT)));
        Arc::new(db)
    })
    .clone()
}

fn tree(svg: &str) -> Result<resvg::usvg::Tree, PictureError> {
    use resvg::usvg;
    let opt = usvg::Options {
        font_family: FONT_FAMILY.to_string(),
        fontdb: fonts(),
        ..usvg::Options::default()
    };
    usvg::Tree::from_str(svg, &opt).map_err(|e| PictureError::Render(e.to_string()))
}

/// A transparent canvas of `tree`'s size, in a mapping of its own
/// (`crate::big`): 11 MiB for the map.
fn canvas(tree: &resvg::usvg::Tree) -> Result<Pixmap, PictureError> {
    let size = tree.size().to_int_size();
    let len = (size.width() as usize) * (size.height() as usize) * 4;
    Pixmap::from_vec(crate::big::vec(len, 0u8), size).ok_or_else(|| PictureError::Render("empty picture".into()))
}

fn paint(tree: &resvg::usvg::Tree, pixmap: &mut Pixmap) {
    resvg::render(tree, resvg::tiny_skia::Transform::identity(), &mut pixmap.as_mut());
}

/// Render SVG text to PNG bytes at its own size, with the shipped font
/// only (never the machine's).
pub fn png(svg: &str) -> Result<Vec<u8>, PictureError> {
    let tree = tree(svg)?;
    let size = tree.size().to_int_size();
    let mut rows = Rows::new(size.width(), 0);
    tree_in_bands(&tree, |_, _| {}, |y, px| rows.push(y, px))?;
    rows.finish(&svg_colours(svg), Effort::Small, size.height())
        .map(|(png, _)| png)
}

/// An indexed PNG of `pixmap`, its palette from its pixels alone.
fn encode_indexed(pixmap: &Pixmap, effort: Effort) -> Result<Vec<u8>, PictureError> {
    Ok(encode_split(pixmap, 0, &[], effort)?.0)
}

/// The colours an SVG names (`#rrggbb`), each once: the flat fills and
/// strokes of the picture, which its palette keeps exactly, however few
/// pixels a colour covers (a nation's unit counters, a capital's star);
/// only the blends anti-aliasing makes between them are quantised.
fn svg_colours(svg: &str) -> Vec<[u8; 3]> {
    let mut out: Vec<[u8; 3]> = Vec::new();
    let b = svg.as_bytes();
    for (i, _) in svg.match_indices('#') {
        let Some(hex) = b.get(i + 1..i + 7) else { continue };
        if !hex.iter().all(u8::is_ascii_hexdigit) || b.get(i + 7).is_some_and(u8::is_ascii_hexdigit) {
            continue;
        }
        let v = |j: usize| {
            std::str::from_utf8(&hex[j..j + 2])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .unwrap_or(0)
        };
        let c = [v(0), v(2), v(4)];
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// How hard the PNG's DEFLATE works. The pictures are flat fills in an
/// indexed palette, whose long runs need no row filter: zlib's fastest
/// level without one makes a file a little smaller than its default
/// level with adaptive filters (the filters only blur the palette
/// indices), in about a quarter of the time. fdeflate, quicker still,
/// made files five times larger.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// zlib level 9, no row filter: what the program uses. The map goes
    /// out in mail (only when a player's view changed), where its bytes
    /// count more than the tenths of a second level 9 costs over level 1
    /// (10 % smaller on the demo's maps). With flate2's zlib-rs backend
    /// it takes about as long as miniz_oxide's level 9 and makes the
    /// demo's map 5 % smaller; its level 6, four times quicker, is 2 %
    /// smaller than miniz_oxide's 9 but 4 % larger than its own 9.
    Small,
    /// zlib level 1, no row filter (what the program used before).
    Fast,
    /// zlib's default level (the level used before; the adaptive row
    /// filters it had are left out, as they only blur the indices).
    Balanced,
}

/// The PNG of a scene's layers: the same pixels as [`png`] of the whole
/// SVG (up to rounding on anti-aliased edges), but what many pictures
/// share is rendered once: the base (land by controller, this phase's
/// moves) with the overlay every picture of the map shares (borders,
/// names: most of the text) composited on it, which every picture of the
/// same view of the same position shares, kept as runs of one colour
/// ([`Flat`], a few MiB, not an 11 MiB canvas). Only the top layer
/// (units, marks, title, legend) is painted for each picture, a band of
/// rows at a time onto the base's rows, and each band is taken by the
/// encoder before the next is painted: no canvas of the whole picture is
/// ever held (issue 37: `demo`'s peak was that canvas).
///
/// Also returns the encoded rows under the title, for [`png_shared`].
fn png_of(layers: &svg::Layers, effort: Effort) -> Result<(Vec<u8>, Body), PictureError> {
    let (base_svg, overlay_svg) = (layers.base(), layers.overlay());
    let top = tree(&layers.top())?;
    // Taken out of the lock while painting, so that pictures drawn on
    // other threads (tests) are not serialised: a thread that finds the
    // base taken renders one of its own.
    let mut kept = CANVASES.lock().map(|mut c| std::mem::take(&mut *c)).unwrap_or_default();
    let base = match kept.base.take() {
        Some((b, o, flat)) if b == base_svg && o == overlay_svg => flat,
        // Another view: its base replaces the one kept, never kept beside it.
        _ => {
            drop(kept.base.take());
            let overlay = match kept.overlay.take() {
                Some((o, spans)) if o == overlay_svg => spans,
                _ => Arc::new(Spans::render(&tree(&overlay_svg)?)?),
            };
            let flat = Flat::render(&tree(&base_svg)?, &overlay)?;
            kept.overlay = Some((overlay_svg.clone(), overlay));
            flat
        }
    };
    let png = png_on(&base, &top, layers, effort);
    if let Ok(mut c) = CANVASES.lock()
        && c.base.is_none()
    {
        *c = Canvases {
            base: Some((base_svg, overlay_svg, base)),
            overlay: kept.overlay,
        };
    }
    png
}

/// The PNG of `top` painted on `base`, a band of rows at a time.
fn png_on(
    base: &Flat,
    top: &resvg::usvg::Tree,
    layers: &svg::Layers,
    effort: Effort,
) -> Result<(Vec<u8>, Body), PictureError> {
    let mut rows = Rows::new(base.width, layers.title_rows());
    in_bands(
        base.width,
        base.height,
        |band, y0| {
            base.fill(band, y0);
            paint_at(top, band, y0);
        },
        |y, px| rows.push(y, px),
    )?;
    rows.finish(&svg_colours(&layers.text), effort, base.height)
}

/// The PNG of a scene's layers, as [`png_of`] draws it; but when the same
/// view was drawn for another game (every game of a first `run --games`
/// opens the same phase of the same scenario), only the title band, which
/// names the game, is drawn and encoded, and the rows under it are the
/// ones encoded then. They are kept only while a [`Hold`] is alive (`run
/// --games`): a single run mails one game, whose views all differ.
fn png_shared(layers: &svg::Layers, effort: Effort) -> Result<Vec<u8>, PictureError> {
    let key = (effort, layers.without_title());
    if let Some(body) = BODIES.get(&key) {
        let title = tree(&layers.title())?;
        let mut band = canvas(&title)?;
        paint(&title, &mut band);
        let (px, _) = band.data().as_chunks::<4>();
        return assemble(px, &body, band.width(), layers.height());
    }
    let (png, body) = png_of(layers, effort)?;
    if HELD.load(Ordering::SeqCst) > 0 {
        BODIES.put(key, Arc::new(body));
    }
    Ok(png)
}

/// What is kept between pictures: the composited base of the last view
/// drawn (keyed by its base and overlay texts, so a changed map or
/// position never reuses stale pixels), as runs of one colour (a few MiB
/// where its canvas would be 1600 x 1707 x 4 bytes = 11 MiB); and the
/// overlay's painted pixels (keyed by its text), composited onto each new
/// base. [`release`] gives both back.
#[derive(Default)]
struct Canvases {
    base: Option<(String, String, Flat)>,
    overlay: Option<(String, Arc<Spans>)>,
}

static CANVASES: Mutex<Canvases> = Mutex::new(Canvases {
    base: None,
    overlay: None,
});

/// How many [`Hold`]s are alive: while any is, [`release`] keeps the
/// canvases.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Keeps the canvases across [`release`] while it lives, and gives them
/// back when the last one is dropped. `run --games` holds one over all its
/// games, so that games at the same position (a first run opens the same
/// phase of the same scenario in each) share the base of each view
/// instead of rendering it again per game: one base (a few MiB of runs)
/// stays resident between the games, beside their password checks.
pub struct Hold(());

/// See [`Hold`].
pub fn hold() -> Hold {
    HELD.fetch_add(1, Ordering::SeqCst);
    Hold(())
}

impl Drop for Hold {
    fn drop(&mut self) {
        if HELD.fetch_sub(1, Ordering::SeqCst) == 1 {
            release();
        }
    }
}

/// Give back the base kept between pictures (a few MiB), the overlay's
/// pixels and the finished and encoded pictures kept for reuse (a few
/// MiB), unless a [`Hold`] keeps them. For a process that has mailed a
/// phase's pictures and goes on to other work (the next game, the next
/// run's password checks): the next picture renders its base again.
pub fn release() {
    if HELD.load(Ordering::SeqCst) > 0 {
        return;
    }
    if let Ok(mut c) = CANVASES.lock() {
        *c = Canvases::default();
    }
    BODIES.clear();
    DRAWN.clear();
}

/// The finished PNGs of the last pictures drawn, by a digest of their
/// whole SVG text (see [`Scene::files`]).
static DRAWN: Memo<[u8; 32], Arc<Vec<u8>>, 4> = Memo::new();

/// The encoded rows under the title of the last views drawn, by the
/// effort and a digest of the text that decides them (a few hundred KiB
/// each): one for each power's view and the moderator's, so a run over
/// games of seven players finds each view it drew for the game before.
static BODIES: Memo<(Effort, [u8; 32]), Arc<Body>, 8> = Memo::new();

/// A picture's painted pixels without its transparent ones: for each row,
/// the runs that hold a painted pixel (gaps of fewer than `GAP`
/// transparent pixels kept inside a run), with their premultiplied bytes.
/// The overlay (borders, coasts, names) leaves most of the map
/// transparent, so this is a few MiB, not a canvas; a transparent pixel
/// composited over another leaves it unchanged, so compositing the runs
/// gives the pixels of compositing the whole canvas.
struct Spans {
    /// (row, first column, length, start in `bytes`)
    runs: Vec<(u32, u32, u32, usize)>,
    bytes: Vec<u8>,
}

impl Spans {
    const GAP: usize = 16;

    /// The painted pixels of `tree`, rendered a band at a time.
    fn render(tree: &resvg::usvg::Tree) -> Result<Spans, PictureError> {
        let mut out = Spans {
            runs: crate::big::vec(0, (0, 0, 0, 0)),
            bytes: crate::big::vec(0, 0u8),
        };
        tree_in_bands(tree, |_, _| {}, |y, px| out.push(y, px))?;
        Ok(out)
    }

    /// The runs of row `y`, whose pixels are `px`.
    fn push(&mut self, y: u32, px: &[[u8; 4]]) {
        let w = px.len();
        let mut x = 0;
        while x < w {
            if px[x][3] == 0 {
                x += 1;
                continue;
            }
            let (first, mut end) = (x, x + 1);
            while x < w && x < end + Self::GAP {
                if px[x][3] != 0 {
                    end = x + 1;
                }
                x += 1;
            }
            self.runs
                .push((y, first as u32, (end - first) as u32, self.bytes.len()));
            self.bytes.extend(px[first..end].iter().flatten());
        }
    }

    /// Composite the runs of the rows `band` holds (from row `y0` of the
    /// picture) over it, each as tiny-skia composites a whole picture
    /// (source over, no scaling).
    fn composite(&self, band: &mut Pixmap, y0: u32) {
        use resvg::tiny_skia::{PixmapPaint, PixmapRef, Transform};
        let end = y0 + band.height();
        let first = self.runs.partition_point(|r| r.0 < y0);
        for &(y, x, len, at) in self.runs[first..].iter().take_while(|r| r.0 < end) {
            if let Some(run) = PixmapRef::from_bytes(&self.bytes[at..at + len as usize * 4], len, 1) {
                band.draw_pixmap(
                    x as i32,
                    (y - y0) as i32,
                    run,
                    &PixmapPaint::default(),
                    Transform::identity(),
                    None,
                );
            }
        }
    }
}

/// A picture's opaque pixels as runs of one colour, row after row: the
/// composited base of a view (land, moves, borders, names) is flat fills
/// with anti-aliased edges, so its runs take a fraction of its canvas.
/// Like the other buffers of a picture that grow to megabytes (the
/// overlay's runs, the encoder's rows), each list is in a mapping of its
/// own (`crate::big`): it never moves as it grows, and is given back
/// whole, not left in the heap beside the next run's password checks.
struct Flat {
    width: u32,
    height: u32,
    /// Where each row's runs start in `colours` and `lens`.
    rows: Vec<u32>,
    colours: Vec<[u8; 4]>,
    lens: Vec<u16>,
}

impl Flat {
    /// The base `tree` with `overlay` composited on it, rendered a band at
    /// a time.
    fn render(tree: &resvg::usvg::Tree, overlay: &Spans) -> Result<Flat, PictureError> {
        let size = tree.size().to_int_size();
        let mut out = Flat {
            width: size.width(),
            height: size.height(),
            rows: Vec::with_capacity(size.height() as usize),
            colours: crate::big::vec(0, [0u8; 4]),
            lens: crate::big::vec(0, 0u16),
        };
        tree_in_bands(tree, |band, y0| overlay.composite(band, y0), |_, px| out.push(px))?;
        Ok(out)
    }

    fn push(&mut self, px: &[[u8; 4]]) {
        self.rows.push(self.colours.len() as u32);
        let mut i = 0;
        while i < px.len() {
            let p = px[i];
            let mut j = i + 1;
            while j < px.len() && j - i < usize::from(u16::MAX) && px[j] == p {
                j += 1;
            }
            self.colours.push(p);
            self.lens.push((j - i) as u16);
            i = j;
        }
    }

    /// Write the rows from `y0` into `band`, as many as it holds.
    fn fill(&self, band: &mut Pixmap, y0: u32) {
        let w = self.width as usize * 4;
        for (r, row) in band.data_mut().chunks_exact_mut(w).enumerate() {
            let y = y0 as usize + r;
            let Some(&from) = self.rows.get(y) else { break };
            let to = self.rows.get(y + 1).map_or(self.colours.len(), |&t| t as usize);
            let mut x = 0;
            for (c, &n) in self.colours[from as usize..to]
                .iter()
                .zip(&self.lens[from as usize..to])
            {
                for px in row[x..x + n as usize * 4].chunks_exact_mut(4) {
                    px.copy_from_slice(c);
                }
                x += n as usize * 4;
            }
        }
    }
}

/// How many rows of a picture are painted at a time: 1600 x 64 x 4 bytes
/// = 400 KiB, where the whole picture's canvas was 11 MiB.
const BAND: u32 = 64;

/// Paint a picture `width` x `height` a band of [`BAND`] rows at a time:
/// `paint` fills the band from row `y0`, then `row` takes each of its rows
/// in order, before the next band is painted over it.
fn in_bands(
    width: u32,
    height: u32,
    mut paint: impl FnMut(&mut Pixmap, u32),
    mut row: impl FnMut(u32, &[[u8; 4]]),
) -> Result<(), PictureError> {
    let rows = BAND.min(height);
    let len = width as usize * rows as usize * 4;
    let mut band = Pixmap::from_vec(
        crate::big::vec(len, 0u8),
        resvg::tiny_skia::IntSize::from_wh(width, rows).ok_or_else(|| PictureError::Render("empty picture".into()))?,
    )
    .ok_or_else(|| PictureError::Render("empty picture".into()))?;
    for y0 in (0..height).step_by(BAND as usize) {
        paint(&mut band, y0);
        let (px, _) = band.data().as_chunks::<4>();
        for (r, line) in px.chunks_exact(width as usize).take((height - y0) as usize).enumerate() {
            row(y0 + r as u32, line);
        }
    }
    Ok(())
}

/// [`in_bands`] for a whole tree: each band cleared, the tree painted on
/// it, then `also` (an overlay composited on it).
fn tree_in_bands(
    tree: &resvg::usvg::Tree,
    mut also: impl FnMut(&mut Pixmap, u32),
    row: impl FnMut(u32, &[[u8; 4]]),
) -> Result<(), PictureError> {
    let size = tree.size().to_int_size();
    in_bands(
        size.width(),
        size.height(),
        |band, y0| {
            band.fill(resvg::tiny_skia::Color::TRANSPARENT);
            paint_at(tree, band, y0);
            also(band, y0);
        },
        row,
    )
}

/// Paint `tree` onto `band`, whose first row is row `y0` of the picture:
/// the picture moved up by `y0` rows. Only what reaches the band's rows
/// is painted (see [`paint_group`]): handing every path of the map to
/// the rasteriser for every band, which transforms a path's points
/// before it finds them outside, made a picture painted in bands cost a
/// fifth more than one painted whole.
fn paint_at(tree: &resvg::usvg::Tree, band: &mut Pixmap, y0: u32) {
    let rows = (y0 as f32, (y0 + band.height()) as f32);
    let mut band = band.as_mut();
    if alone(tree.root()) {
        paint_group(tree.root(), rows, y0, &mut band);
    } else {
        resvg::render(
            tree,
            resvg::tiny_skia::Transform::from_translate(0.0, -(y0 as f32)),
            &mut band,
        );
    }
}

/// Whether each of `group`'s children can be painted on its own
/// ([`resvg::render_node`] paints nothing of a node whose fill has no
/// area, such as a level line that only a stroke draws).
fn alone(group: &resvg::usvg::Group) -> bool {
    group.children().iter().all(|n| n.abs_layer_bounding_box().is_some())
}

/// Paint `group`'s children that reach `rows` (the first row of the
/// picture in the band and the first one after it), in order, as
/// [`resvg::render`] paints them: a group drawn straight onto the canvas
/// (no layer of its own) is gone into, so that of its children only
/// those that reach the band are painted; anything else is painted whole
/// when its box, with two pixels for anti-aliasing, reaches the band.
fn paint_group(group: &resvg::usvg::Group, rows: (f32, f32), y0: u32, band: &mut resvg::tiny_skia::PixmapMut<'_>) {
    use resvg::usvg::Node;
    const PAD: f32 = 2.0;
    for node in group.children() {
        let (top, bottom) = match node {
            Node::Group(g) => (g.abs_layer_bounding_box().top(), g.abs_layer_bounding_box().bottom()),
            other => (
                other.abs_stroke_bounding_box().top(),
                other.abs_stroke_bounding_box().bottom(),
            ),
        };
        if bottom + PAD <= rows.0 || top - PAD >= rows.1 {
            continue;
        }
        if let Node::Group(g) = node
            && !g.should_isolate()
            && alone(g)
        {
            paint_group(g, rows, y0, band);
            continue;
        }
        let Some(bbox) = node.abs_layer_bounding_box() else {
            continue;
        };
        // `render_node` paints a node moved by its box's corner (onto a
        // canvas of its own) and without the transforms of the groups
        // above it: both given back, and the picture moved up by `y0`.
        let at = resvg::tiny_skia::Transform::from_translate(0.0, -(y0 as f32))
            .pre_concat(group.abs_transform())
            .pre_translate(bbox.x(), bbox.y());
        resvg::render_node(node, at, band);
        #[cfg(test)]
        tests::PAINTED.with(|n| n.set(n.get() + 1));
    }
}

/// The base with the overlay composited on it, on a new canvas (the
/// whole picture drawn the simple way, for [`Scene::png_on_one_canvas`]).
#[cfg(feature = "testing")]
fn render_under(base_svg: &str, overlay_svg: &str) -> Result<Pixmap, PictureError> {
    let base = tree(base_svg)?;
    let mut pixmap = canvas(&base)?;
    paint(&base, &mut pixmap);
    let overlay_tree = tree(overlay_svg)?;
    let mut overlay = canvas(&overlay_tree)?;
    paint(&overlay_tree, &mut overlay);
    pixmap.draw_pixmap(
        0,
        0,
        overlay.as_ref(),
        &resvg::tiny_skia::PixmapPaint::default(),
        resvg::tiny_skia::Transform::identity(),
        None,
    );
    Ok(pixmap)
}

/// A process-wide memo of the last `KEEP` values computed, found by an
/// exact key: a process draws the pictures of one map (or a few, in
/// tests), and what only the map decides is computed once.
pub(crate) struct Memo<K, V, const KEEP: usize = 4>(OnceLock<Mutex<Vec<(K, V)>>>);

impl<K: PartialEq, V: Clone, const KEEP: usize> Memo<K, V, KEEP> {
    pub(crate) const fn new() -> Self {
        Memo(OnceLock::new())
    }

    pub(crate) fn get_or<E>(&self, key: K, make: impl FnOnce(&K) -> Result<V, E>) -> Result<V, E> {
        if let Some(v) = self.get(&key) {
            return Ok(v);
        }
        let v = make(&key)?;
        self.put(key, v.clone());
        Ok(v)
    }

    fn get(&self, key: &K) -> Option<V> {
        let c = self.0.get_or_init(Default::default).lock().ok()?;
        c.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    }

    fn put(&self, key: K, v: V) {
        if let Ok(mut c) = self.0.get_or_init(Default::default).lock() {
            if c.len() >= KEEP {
                c.remove(0);
            }
            c.push((key, v));
        }
    }

    fn clear(&self) {
        if let Some(Ok(mut c)) = self.0.get().map(Mutex::lock) {
            c.clear();
        }
    }
}

/// The colour bucket of a pixel: 5 bits a channel.
fn bucket(p: [u8; 4]) -> usize {
    ((p[0] as usize >> 3) << 10) | ((p[1] as usize >> 3) << 5) | (p[2] as usize >> 3)
}

const BUCKETS: usize = 1 << 15;

/// How many palette entries the title band may add beyond the colours
/// of the rows under it (its dark box, two text colours and their
/// anti-aliased blends).
const TITLE_COLOURS: usize = 32;

/// How many colours the rows under the title keep. The map is flat fills
/// (a dozen colours cover 93 % of its pixels) and the anti-aliased edges
/// of borders and names between them. The palette holds every colour
/// the SVG names, exactly (`svg_colours`: 33 on the 1805 map), then the
/// most common blends; the rarer blends, each drawn as the nearest
/// colour kept, no longer break DEFLATE's runs. Compared side by side at
/// full size, 48 colours show no difference the eye sees; the PNG of the
/// demo's map is about 160 KB at level 9, 250 KB before (256 colours,
/// level 1).
const BODY_COLOURS: usize = 48;

/// How many pixels of each colour bucket, and their sums per channel.
/// It works on runs of one colour (flat fills make long runs). The
/// pictures are opaque (the paper is painted first), so the
/// premultiplied bytes are the colours.
struct Colours {
    count: Vec<u32>,
    sum: Vec<u64>,
}

impl Colours {
    fn new() -> Colours {
        Colours {
            count: vec![0u32; BUCKETS],
            sum: vec![0u64; BUCKETS * 3],
        }
    }

    fn of(px: &[[u8; 4]]) -> Colours {
        let mut c = Colours::new();
        c.add(px);
        c
    }

    /// Count `px` too.
    fn add(&mut self, px: &[[u8; 4]]) {
        let c = self;
        let n = px.len();
        let mut i = 0;
        while i < n {
            let p = px[i];
            let mut j = i + 1;
            while j < n && px[j] == p {
                j += 1;
            }
            let k = bucket(p);
            let len = (j - i) as u64;
            c.count[k] += len as u32;
            c.sum[3 * k] += p[0] as u64 * len;
            c.sum[3 * k + 1] += p[1] as u64 * len;
            c.sum[3 * k + 2] += p[2] as u64 * len;
            i = j;
        }
    }

    /// The bucket's pixels as one colour: their mean.
    fn mean(&self, k: usize) -> [i32; 3] {
        let c = u64::from(self.count[k]);
        [
            (self.sum[3 * k] / c) as i32,
            (self.sum[3 * k + 1] / c) as i32,
            (self.sum[3 * k + 2] / c) as i32,
        ]
    }

    /// The buckets used, most common first (ties by bucket).
    fn ranked(&self) -> Vec<usize> {
        let mut used: Vec<usize> = (0..BUCKETS).filter(|&k| self.count[k] > 0).collect();
        used.sort_by(|a, b| self.count[*b].cmp(&self.count[*a]).then(a.cmp(b)));
        used
    }
}

/// The palette entry nearest to `c`.
fn nearest(palette: &[[i32; 3]], c: [i32; 3]) -> u8 {
    let (mut best, mut best_d) = (0usize, i32::MAX);
    for (j, p) in palette.iter().enumerate() {
        let (dr, dg, db) = (p[0] - c[0], p[1] - c[1], p[2] - c[2]);
        // the eye is most sensitive to green, least to blue
        let d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
        if d < best_d {
            (best, best_d) = (j, d);
        }
    }
    best as u8
}

/// An indexed PNG's palette: a picture of flat fills with anti-aliased
/// edges fits a palette of its most common colours (counted in buckets of
/// 5 bits a channel, each bucket drawn as its mean colour); every other
/// bucket takes the nearest palette colour. A third of the size of RGB,
/// and quicker than a general quantizer, which would cost more than the
/// whole picture.
struct Palette {
    colours: Vec<[i32; 3]>,
    /// The bucket each colour stands for.
    buckets: Vec<usize>,
    /// The index each bucket used is drawn with.
    index: Vec<u8>,
}

impl Palette {
    /// The `max` most common buckets of `c`.
    /// The `max` most common buckets of `c`, those of the colours in
    /// `exact` it holds first, each drawn as that colour itself.
    fn of(c: &Colours, max: usize, exact: &[[u8; 3]]) -> Palette {
        let mut used = c.ranked();
        let mut named: Vec<(usize, [i32; 3])> = Vec::new();
        for e in exact {
            let k = bucket([e[0], e[1], e[2], 255]);
            if c.count[k] > 0 && named.len() < max && !named.iter().any(|(b, _)| *b == k) {
                named.push((k, e.map(i32::from)));
            }
        }
        // The named buckets lead, in the order of the ranking.
        used.sort_by_key(|k| !named.iter().any(|(b, _)| b == k));
        let top = used.len().min(max);
        let mut p = Palette {
            colours: used[..top]
                .iter()
                .map(|&k| {
                    named
                        .iter()
                        .find(|(b, _)| *b == k)
                        .map_or_else(|| c.mean(k), |(_, v)| *v)
                })
                .collect(),
            buckets: used[..top].to_vec(),
            index: vec![0u8; BUCKETS],
        };
        for (rank, &k) in used.iter().enumerate() {
            p.index[k] = if rank < top {
                rank as u8
            } else {
                nearest(&p.colours, c.mean(k))
            };
        }
        p
    }

    /// This palette with the most common buckets of `c` it lacks added (up
    /// to 256 colours), indexing `c`'s buckets: its own colours keep
    /// their indices, so the rows indexed with this palette are unchanged.
    fn extended(&self, c: &Colours) -> Palette {
        let mut p = Palette {
            colours: self.colours.clone(),
            buckets: self.buckets.clone(),
            index: vec![0u8; BUCKETS],
        };
        let mut rest = Vec::new();
        for k in c.ranked() {
            if let Some(i) = p.buckets.iter().position(|&b| b == k) {
                p.index[k] = i as u8;
            } else if p.colours.len() < 256 {
                p.index[k] = p.colours.len() as u8;
                p.colours.push(c.mean(k));
                p.buckets.push(k);
            } else {
                rest.push(k);
            }
        }
        for k in rest {
            p.index[k] = nearest(&p.colours, c.mean(k));
        }
        p
    }

    fn bytes(&self) -> Vec<u8> {
        self.colours.iter().flat_map(|c| c.map(|v| v as u8)).collect()
    }
}

/// Adler-32 (RFC 1950), the check of a zlib stream: the PNG's image data
/// is assembled from two separately compressed parts, so their checks are
/// combined rather than computed over the whole. The sum itself is
/// `adler2`'s (flate2's own); only the combination, which it lacks, is
/// written here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Adler(u32);

impl Adler {
    const MOD: u32 = 65521;

    fn new() -> Adler {
        Adler(1)
    }

    fn update(self, bytes: &[u8]) -> Adler {
        let mut sum = adler2::Adler32::from_checksum(self.0);
        sum.write_slice(bytes);
        Adler(sum.checksum())
    }

    /// The check of `self`'s bytes followed by `len` bytes whose check is
    /// `next` (zlib's adler32_combine).
    fn then(self, next: Adler, len: u64) -> Adler {
        let m = u64::from(Self::MOD);
        let rem = len % m;
        let (a1, b1) = (u64::from(self.0 & 0xffff), u64::from(self.0 >> 16));
        let (a2, b2) = (u64::from(next.0 & 0xffff), u64::from(next.0 >> 16));
        let a = (a1 + a2 + m - 1) % m;
        let b = (rem * a1 % m + b1 + b2 + m - rem) % m;
        Adler(((b as u32) << 16) | a as u32)
    }
}

/// Compress `input` into `out` with `flush`, growing `out` as needed.
fn deflate(
    z: &mut flate2::Compress,
    mut input: &[u8],
    out: &mut Vec<u8>,
    flush: flate2::FlushCompress,
) -> Result<(), PictureError> {
    loop {
        if out.capacity() - out.len() < 4096 {
            out.reserve(1 << 16);
        }
        let before = z.total_in();
        let status = z
            .compress_vec(input, out, flush)
            .map_err(|e| PictureError::Render(e.to_string()))?;
        input = &input[(z.total_in() - before) as usize..];
        let done = match flush {
            flate2::FlushCompress::Finish => status == flate2::Status::StreamEnd,
            // all taken, and room was left: the flush is complete
            _ => input.is_empty() && out.len() < out.capacity(),
        };
        if done {
            return Ok(());
        }
    }
}

/// A row's pixels as runs of one colour bucket, each `bucket << 16 |
/// length`, appended to `out`.
fn push_runs(px: &[[u8; 4]], out: &mut Vec<u32>) {
    let mut i = 0;
    while i < px.len() {
        let k = bucket(px[i]);
        let mut j = i + 1;
        while j < px.len() && j - i < 0xffff && bucket(px[j]) == k {
            j += 1;
        }
        out.push(((k as u32) << 16) | (j - i) as u32);
        i = j;
    }
}

/// Feed the rows of `runs` (as [`push_runs`] makes them, `width` pixels a
/// row) to `z` a row at a time, each pixel as its bucket's index in
/// `index`, each row led by its filter byte (none); returns the check of
/// the bytes fed.
fn deflate_rows(
    z: &mut flate2::Compress,
    runs: &[u32],
    width: usize,
    index: &[u8],
    out: &mut Vec<u8>,
) -> Result<Adler, PictureError> {
    let mut adler = Adler::new();
    let mut row = vec![0u8; width + 1];
    let mut x = 0;
    for &r in runs {
        let n = (r & 0xffff) as usize;
        row[1 + x..1 + x + n].fill(index[(r >> 16) as usize]);
        x += n;
        if x == width {
            adler = adler.update(&row);
            deflate(z, &row, out, flate2::FlushCompress::None)?;
            x = 0;
        }
    }
    Ok(adler)
}

impl Effort {
    fn level(self) -> flate2::Compression {
        match self {
            Effort::Small => flate2::Compression::best(),
            Effort::Fast => flate2::Compression::new(1),
            Effort::Balanced => flate2::Compression::default(),
        }
    }
}

/// The rows of a picture below its title band, palette-indexed and
/// compressed: what every picture of the same view shares, whatever game
/// its title names, and so what a run that mails that view for many games
/// encodes once. Its palette holds its own most common colours and leaves
/// [`TITLE_COLOURS`] entries for the title's.
struct Body {
    palette: Palette,
    /// A raw DEFLATE stream that ends the zlib stream (its last block).
    deflate: Vec<u8>,
    adler: Adler,
    /// Bytes before compression (rows with their filter bytes).
    len: u64,
    effort: Effort,
}

impl Body {
    fn encode(
        colours: &Colours,
        runs: &[u32],
        width: usize,
        reserve: usize,
        exact: &[[u8; 3]],
        effort: Effort,
    ) -> Result<Body, PictureError> {
        let palette = Palette::of(colours, BODY_COLOURS.min(256 - reserve), exact);
        let mut z = flate2::Compress::new(effort.level(), false);
        let mut deflate = Vec::new();
        let adler = deflate_rows(&mut z, runs, width, &palette.index, &mut deflate)?;
        self::deflate(&mut z, &[], &mut deflate, flate2::FlushCompress::Finish)?;
        BODIES_ENCODED.fetch_add(1, Ordering::Relaxed);
        Ok(Body {
            palette,
            deflate,
            adler,
            len: z.total_in(),
            effort,
        })
    }
}

/// How many bodies were encoded in this process (for the test that a
/// view is encoded once for many games).
static BODIES_ENCODED: AtomicUsize = AtomicUsize::new(0);

#[doc(hidden)]
pub fn bodies_encoded() -> usize {
    BODIES_ENCODED.load(Ordering::Relaxed)
}

/// The PNG of a picture `width` x `height` whose first rows are `title`
/// (`width` pixels each) and the rest `body`: the title's colours are
/// added to the body's palette, its rows compressed and flushed to a byte
/// boundary, and the body's compressed rows follow in the same zlib
/// stream, their check combined with the title's.
fn assemble(title: &[[u8; 4]], body: &Body, width: u32, height: u32) -> Result<Vec<u8>, PictureError> {
    let palette = body.palette.extended(&Colours::of(title));
    let mut z = flate2::Compress::new(body.effort.level(), false);
    // zlib header: deflate with a 32 KiB window, the level as a hint
    let mut data = match body.effort {
        Effort::Small => vec![0x78, 0xda],
        Effort::Fast => vec![0x78, 0x01],
        Effort::Balanced => vec![0x78, 0x9c],
    };
    let mut runs = Vec::new();
    for row in title.chunks(width.max(1) as usize) {
        push_runs(row, &mut runs);
    }
    let adler = deflate_rows(&mut z, &runs, width as usize, &palette.index, &mut data)?;
    deflate(&mut z, &[], &mut data, flate2::FlushCompress::Sync)?;
    data.extend_from_slice(&body.deflate);
    data.extend_from_slice(&adler.then(body.adler, body.len).0.to_be_bytes());
    let err = |e: ::png::EncodingError| PictureError::Render(e.to_string());
    let mut out = Vec::with_capacity(data.len() + 1024);
    let mut enc = ::png::Encoder::new(&mut out, width, height);
    enc.set_color(::png::ColorType::Indexed);
    enc.set_depth(::png::BitDepth::Eight);
    enc.set_palette(palette.bytes());
    let mut w = enc.write_header().map_err(err)?;
    // IDAT chunks of 64 KiB, as the png crate's writer makes them
    for chunk in data.chunks(1 << 16) {
        w.write_chunk(::png::chunk::IDAT, chunk).map_err(err)?;
    }
    w.finish().map_err(err)?;
    Ok(out)
}

/// An indexed PNG of `pixmap`, whose first `title_rows` rows are a title
/// band (0: none); also returns the encoded rows under the band, for other
/// pictures of the same view.
fn encode_split(
    pixmap: &Pixmap,
    title_rows: u32,
    exact: &[[u8; 3]],
    effort: Effort,
) -> Result<(Vec<u8>, Body), PictureError> {
    let (px, _) = pixmap.data().as_chunks::<4>();
    let mut rows = Rows::new(pixmap.width(), title_rows);
    for (y, line) in px.chunks_exact(pixmap.width() as usize).enumerate() {
        rows.push(y as u32, line);
    }
    rows.finish(exact, effort, pixmap.height())
}

/// A picture's rows as the encoder takes them, a row at a time, so that
/// no canvas of the whole picture is needed: the title band's pixels (46
/// rows), and under it each row as runs of a colour bucket, with the
/// colours counted for the palette. The runs are what the palette
/// indexes (a bucket's pixels all take one index), so the PNG is the
/// one encoded from the whole canvas.
struct Rows {
    width: u32,
    title_rows: u32,
    title: Vec<[u8; 4]>,
    colours: Colours,
    runs: Vec<u32>,
}

impl Rows {
    fn new(width: u32, title_rows: u32) -> Rows {
        Rows {
            width,
            title_rows,
            title: crate::big::vec(0, [0u8; 4]),
            colours: Colours::new(),
            runs: crate::big::vec(0, 0u32),
        }
    }

    /// Row `y` (rows come in order), `width` pixels.
    fn push(&mut self, y: u32, px: &[[u8; 4]]) {
        if y < self.title_rows {
            self.title.extend_from_slice(px);
        } else {
            self.colours.add(px);
            push_runs(px, &mut self.runs);
        }
    }

    /// The PNG of the `height` rows pushed.
    fn finish(self, exact: &[[u8; 3]], effort: Effort, height: u32) -> Result<(Vec<u8>, Body), PictureError> {
        let reserve = if self.title.is_empty() { 0 } else { TITLE_COLOURS };
        let body = Body::encode(&self.colours, &self.runs, self.width as usize, reserve, exact, effort)?;
        drop(self.runs);
        let png = assemble(&self.title, &body, self.width, height)?;
        Ok((png, body))
    }
}

#[cfg(test)]
mod tests {
    use super::{Adler, BAND, Pixmap, paint_at, tree};
    use std::cell::Cell;

    thread_local! {
        /// How many nodes [`super::paint_group`] has painted on this thread.
        pub(super) static PAINTED: Cell<usize> = const { Cell::new(0) };
    }

    /// An overlay kept as its painted runs gives back, composited on a
    /// band, the pixels of the overlay painted there: in the first band
    /// and across every band's edge.
    #[test]
    fn an_overlay_kept_as_runs_composites_as_it_was_painted() {
        let svg = format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="{h}"><path d="M 3 2 L 110 {h} M 100 1 L 5 {h}" stroke="#345" stroke-width="3" fill="none"/><rect x="40" y="{y}" width="30" height="9" fill="#e22" opacity="0.6"/></svg>"##,
            h = 3 * BAND + 5,
            y = BAND - 4,
        );
        let tree = tree(&svg).expect("parses");
        let spans = super::Spans::render(&tree).expect("renders");
        let height = 3 * BAND + 5;
        for y0 in (0..height).step_by(BAND as usize) {
            let (mut kept, mut painted) = (Pixmap::new(120, BAND).unwrap(), Pixmap::new(120, BAND).unwrap());
            spans.composite(&mut kept, y0);
            paint_at(&tree, &mut painted, y0);
            // the rows of the picture (the last band runs past its foot)
            let rows = (height - y0).min(BAND) as usize * 120 * 4;
            assert!(
                painted.data()[..rows].iter().any(|&b| b != 0),
                "band at row {y0} is empty"
            );
            assert!(
                kept.data()[..rows] == painted.data()[..rows],
                "band at row {y0} differs"
            );
        }
    }

    /// A band painted with only what reaches it is the band of the
    /// picture painted whole: shapes across a band's edge, a stroke that
    /// reaches beyond its shape's box, a level line (a stroke with no
    /// fill area, which cannot be painted alone), a group with a layer of
    /// its own (opacity), a moved group, and text with its halo.
    #[test]
    fn a_band_paints_what_reaches_it_and_nothing_else() {
        let shapes = |y: u32| {
            format!(
                r##"<rect x="10" y="{a}" width="30" height="{h}" fill="#c33"/>
<circle cx="80" cy="{c}" r="9" fill="none" stroke="#236" stroke-width="8"/>
<g transform="translate(5 {b})"><rect x="100" y="0" width="20" height="20" fill="#3a3"/>
<text x="130" y="12" font-size="14" fill="#111" stroke="#fff" stroke-width="4" paint-order="stroke">Moscow</text></g>
<g opacity="0.5"><rect x="200" y="{a}" width="40" height="{h}" fill="#00f"/></g>"##,
                a = y + BAND - 7,
                h = 11,
                b = y + 3,
                c = y + BAND + 6,
            )
        };
        // and two that reach a band by one row only, at its top and at
        // its foot
        let edges = format!(
            r##"<rect x="250" y="{}" width="9" height="11" fill="#a50"/><rect x="270" y="{}" width="9" height="9" fill="#a50"/>"##,
            2 * BAND - 10,
            3 * BAND - 1
        );
        let body: String = [0, BAND, 3 * BAND].map(shapes).concat() + &edges;
        for level in [
            // inside a group: the group is painted whole
            r##"<g><path d="M 0 150 H 300" stroke="#000" stroke-width="3"/><rect x="1" y="1" width="2" height="2"/></g>"##,
            // among the root's children: the tree is painted whole
            r##"<path d="M 0 150 H 300" stroke="#000" stroke-width="3"/>"##,
        ] {
            let height = 4 * BAND + 20;
            let svg = format!(
                r##"<svg xmlns="http://www.w3.org/2000/svg" width="300" height="{height}">{body}{level}</svg>"##
            );
            let tree = tree(&svg).expect("parses");
            PAINTED.with(|n| n.set(0));
            for y0 in (0..height).step_by(BAND as usize) {
                let (mut culled, mut whole) = (Pixmap::new(300, BAND).unwrap(), Pixmap::new(300, BAND).unwrap());
                paint_at(&tree, &mut culled, y0);
                resvg::render(
                    &tree,
                    resvg::tiny_skia::Transform::from_translate(0.0, -(y0 as f32)),
                    &mut whole.as_mut(),
                );
                let worst = culled
                    .data()
                    .iter()
                    .zip(whole.data())
                    .map(|(a, b)| a.abs_diff(*b))
                    .max()
                    .unwrap_or(0);
                // a box moved by a rounding of its corner may shift an
                // edge's shade by a step; a shape left out differs by all
                assert!(worst <= 2, "band at row {y0}: a pixel differs by {worst}");
                assert!(culled.data().iter().any(|&b| b != 0), "band at row {y0} is empty");
            }
            // Painted one by one where they reach, not every node in
            // every band (18 nodes x 5 bands = 90): each set of shapes
            // 8 (the rectangle, the circle and the faded group cross a
            // band's edge, 2 bands each; the moved group's rectangle and
            // text 1 each), the two at the edges 2 each, and the group
            // of the level line 3 (its box spans rows 1 to 152). With a level line among the root's
            // children the whole tree goes to each band, none one by one.
            let painted = PAINTED.with(Cell::get);
            if level.starts_with("<g>") {
                assert_eq!(painted, 3 * 8 + 2 * 2 + 3, "nodes painted");
            } else {
                assert_eq!(painted, 0, "a tree with a level line at its root is painted whole");
            }
        }
    }

    #[test]
    fn adler_checks_as_rfc_1950_says_and_combines_as_if_computed_over_the_whole() {
        assert_eq!(Adler::new().update(b"Wikipedia").0, 0x11e6_0398);
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = Adler::new().update(&bytes);
        for cut in [0, 1, 5552, 65_521, 65_522, 131_042, 199_999, 200_000] {
            let (a, b) = bytes.split_at(cut);
            let combined = Adler::new().update(a).then(Adler::new().update(b), b.len() as u64);
            assert_eq!(combined, whole, "cut at {cut}");
        }
    }
}
