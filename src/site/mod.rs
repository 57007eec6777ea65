//! The public site of a game (`empereur site`): plain files a moderator
//! publishes anywhere, with `index.html` as the entry and a dice verifier
//! that runs in the page (docs/site.md).
//!
//! This module turns what `ops::site` read from a game directory
//! ([`Input`]) into the files of the site ([`build`]); it reads and writes
//! nothing itself. What it may show is decided in one place,
//! [`privacy::publish`], for history files, and by the callers' views
//! (public outcomes, public state, public press) for the pages.
//!
//! Layout of the output:
//! - `index.html`, `phases/NNNN-<phase>.html`: the pages;
//! - `assets/`: the style and the scripts (the verifier), embedded from
//!   `templates/site/`;
//! - `data/history.js`: the history as one JSON value assigned to
//!   `window.EMPEREUR_HISTORY` (a script, since browsers refuse `fetch`
//!   from `file://`);
//! - `history/`, `phase/commitment`: the files as `export-history` lays
//!   them out, each withheld file left out and its digest listed in its
//!   entry's `withheld.sha256`.

pub mod privacy;

use crate::report::EventView;
use anyhow::{Result, anyhow};
use minijinja::Environment;
use privacy::Publish;
use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The scripts and style of every site, in the order the index loads the
/// scripts (each defines what the next uses).
pub const ASSETS: &[(&str, &str)] = &[
    ("assets/site.css", include_str!("../../templates/site/site.css")),
    ("assets/toml.js", include_str!("../../templates/site/toml.js")),
    ("assets/verify.js", include_str!("../../templates/site/verify.js")),
    ("assets/mails.js", include_str!("../../templates/site/mails.js")),
    ("assets/page.js", include_str!("../../templates/site/page.js")),
];

const INDEX: &str = include_str!("../../templates/site/index.html");
const PHASE: &str = include_str!("../../templates/site/phase.html");

/// One history entry: every file in it (`entry.toml` included).
#[derive(Clone, Debug, Default)]
pub struct EntryInput {
    pub dir: String,
    pub files: Vec<EntryFile>,
}

/// One file of a history entry.
#[derive(Clone, Debug, Default)]
pub struct EntryFile {
    /// Its path inside the entry, with `/` separators.
    pub rel: String,
    pub bytes: Vec<u8>,
    /// Where the game keeps it: the site's copy of a file published as
    /// stored may be this file itself, linked (`ops::site::write_all`).
    pub stored: Option<PathBuf>,
    /// Its SHA-256, once asked for ([`EntryFile::sha256`]) or known.
    pub digest: std::sync::OnceLock<[u8; 32]>,
}

impl EntryFile {
    /// The SHA-256 of its bytes, computed once: the page's key and a
    /// withheld file's published digest both need it.
    pub fn sha256(&self) -> [u8; 32] {
        *self.digest.get_or_init(|| Sha256::digest(&self.bytes).into())
    }
}

impl EntryInput {
    /// The bytes of the file `rel`, if the entry has one.
    pub fn bytes(&self, rel: &str) -> Option<&[u8]> {
        self.file(rel).map(|f| f.bytes.as_slice())
    }

    /// The file `rel`, if the entry has one.
    pub fn file(&self, rel: &str) -> Option<&EntryFile> {
        self.files.iter().find(|f| f.rel == rel)
    }
}

/// One file of the site: its path inside the site, its bytes and, for a
/// history file published as stored or a map the resolution kept, the
/// game's own file with those bytes.
#[derive(Clone, Debug)]
pub struct SiteFile<'a> {
    pub path: String,
    /// `None`: only in `stored`, read from it if it cannot be linked (a
    /// map the resolution kept, which the site need not read).
    pub bytes: Option<Cow<'a, [u8]>>,
    pub stored: Option<&'a Path>,
}

impl<'a> SiteFile<'a> {
    fn new(path: impl Into<String>, bytes: impl Into<Cow<'a, [u8]>>) -> SiteFile<'a> {
        SiteFile {
            path: path.into(),
            bytes: Some(bytes.into()),
            stored: None,
        }
    }
}

/// A power's public standing after a phase.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Standing {
    pub power: String,
    pub gold: i64,
    pub vp: i64,
}

/// Every power's public standing in `state` (the site's pages, the
/// observers' reports): its Gold and VP, which every power's state file
/// shows of the others too.
pub fn public_standings(state: &crate::state::State) -> Vec<Standing> {
    state
        .powers
        .iter()
        .map(|(p, ps)| Standing {
            power: p.name().to_string(),
            gold: ps.gold,
            vp: ps.vp,
        })
        .collect()
}

/// What the page of one history entry shows: only what every power may
/// see (the caller cut it).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PhasePage {
    /// The entry directory, `NNNN-<phase>`.
    pub dir: String,
    pub phase: String,
    pub kind: String,
    pub note: String,
    pub events: Vec<EventView>,
    pub standings: Vec<Standing>,
    /// The public map after the phase (SVG text), if the scenario has one:
    /// a file of its own beside the page, so the page's template is given
    /// only whether there is one.
    #[serde(serialize_with = "is_some")]
    pub map: Option<Svg>,
}

fn is_some<S: serde::Serializer>(map: &Option<Svg>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bool(map.is_some())
}

/// The SVG text of a page's map: its own, a part of the bytes a file of
/// pages was read into (shared rather than copied: the maps are most of
/// those bytes), or a file of the game the site links and never reads.
#[derive(Clone, Debug)]
pub enum Svg {
    Text { bytes: Arc<Vec<u8>>, range: Range<usize> },
    Stored(PathBuf),
}

impl Svg {
    pub fn new(text: String) -> Svg {
        let range = 0..text.len();
        Svg::Text {
            bytes: Arc::new(text.into_bytes()),
            range,
        }
    }

    /// The part `range` of `bytes`, if it is UTF-8 text.
    pub fn shared(bytes: &Arc<Vec<u8>>, range: Range<usize>) -> Option<Svg> {
        std::str::from_utf8(bytes.get(range.clone())?).ok()?;
        Some(Svg::Text {
            bytes: Arc::clone(bytes),
            range,
        })
    }

    /// The text, as UTF-8 bytes, if it is in memory.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Svg::Text { bytes, range } => bytes.get(range.clone()),
            Svg::Stored(_) => None,
        }
    }

    /// The game's file that holds it, if it is one.
    pub fn stored(&self) -> Option<&Path> {
        match self {
            Svg::Text { .. } => None,
            Svg::Stored(path) => Some(path),
        }
    }
}

/// A press message sent to every player.
#[derive(Clone, Debug, Serialize)]
pub struct PublicPress {
    pub phase: String,
    /// The sender's power name; `None` when it chose to stay anonymous.
    pub from: Option<String>,
    pub text: String,
}

/// Everything the site is made from.
#[derive(Clone, Debug, Default)]
pub struct Input {
    pub game: String,
    /// The game is over: the hidden files of the history are published.
    pub ended: bool,
    /// The open phase (none once the game is over).
    pub open_phase: Option<String>,
    /// `history/head.toml` and `phase/commitment`, as stored.
    pub head: Option<Vec<u8>>,
    pub commitment: Option<Vec<u8>>,
    /// The SHA-256 of `state.toml` (its content is the moderator's).
    pub state_sha256: Option<String>,
    pub entries: Vec<EntryInput>,
    pub pages: Vec<PhasePage>,
    pub press: Vec<PublicPress>,
    /// Moderator actions from the journal, already cut to public lines.
    pub journal: Vec<String>,
}

/// Every power's VP after each phase that has standings; an undo takes
/// back the point of the phase it rolled back (as the reports' chart,
/// `report::standings::vp_history`).
fn vp_chart(pages: &[PhasePage]) -> crate::picture::chart::VpChart {
    let mut chart = crate::picture::chart::VpChart::default();
    for p in pages.iter().filter(|p| !p.standings.is_empty()) {
        if p.kind == "undo" {
            if chart.phases.len() > 1 {
                chart.phases.pop();
                chart.series.values_mut().for_each(|v| {
                    v.pop();
                });
            }
            continue;
        }
        chart.phases.push(p.phase.clone());
        for s in &p.standings {
            if let Some(power) = crate::ids::PowerId::ALL.into_iter().find(|q| q.name() == s.power) {
                chart.series.entry(power).or_default().push(s.vp);
            }
        }
    }
    chart
}

/// The files of the site, by path inside it.
pub fn build(input: &Input) -> Result<Vec<SiteFile<'_>>> {
    let mut out: Vec<SiteFile<'_>> = ASSETS.iter().map(|(p, t)| SiteFile::new(*p, t.as_bytes())).collect();
    let published = publication(input);
    out.push(SiteFile::new("data/history.js", history_script(input, &published)));
    out.extend(history_files(input, &published));
    let env = environment()?;
    let latest = input.pages.iter().rev().find(|p| !p.standings.is_empty());
    // The VP chart of the campaign, as the reports carry it (their PNG),
    // from the public standings after each phase.
    let chart = vp_chart(&input.pages);
    if !chart.phases.is_empty() {
        out.push(SiteFile::new("vp.svg", chart.svg().into_bytes()));
    }
    let index = env.get_template("index.html")?.render(minijinja::value::Serde(json!({
        "game": input.game,
        "ended": input.ended,
        "open_phase": input.open_phase,
        "pages": input.pages.iter().map(|p| json!({"dir": p.dir, "phase": p.phase, "kind": p.kind})).collect::<Vec<_>>(),
        "standings": latest.map(|p| p.standings.clone()).unwrap_or_default(),
        "standings_after": latest.map(|p| p.phase.clone()),
        "vp_chart": !chart.phases.is_empty(),
        "journal": input.journal,
    })))?;
    out.push(SiteFile::new("index.html", index.into_bytes()));
    let phase = env.get_template("phase.html")?;
    for p in &input.pages {
        let press: Vec<&PublicPress> = input.press.iter().filter(|x| x.phase == p.phase).collect();
        let html = phase.render(minijinja::value::Serde(
            json!({"game": input.game, "page": p, "press": press}),
        ))?;
        out.push(SiteFile::new(format!("phases/{}.html", p.dir), html.into_bytes()));
        if let Some(svg) = &p.map {
            out.push(SiteFile {
                path: format!("phases/{}.svg", p.dir),
                bytes: svg.as_bytes().map(Cow::Borrowed),
                stored: svg.stored(),
            });
        }
    }
    Ok(out)
}

fn environment() -> Result<Environment<'static>> {
    let mut env = Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    // `.html` names turn minijinja's HTML escaping on.
    for (name, text) in [("index.html", INDEX), ("phase.html", PHASE)] {
        env.add_template(name, text)
            .map_err(|e| anyhow!("site template {name}: {e}"))?;
    }
    Ok(env)
}

/// How each file of each entry is published. Each withheld file is
/// hashed once, for both the history's JSON and its entry's
/// `withheld.sha256`; the others the verifier hashes.
fn publication(input: &Input) -> Vec<Vec<Published<'_>>> {
    input
        .entries
        .iter()
        .map(|e| {
            e.files
                .iter()
                .map(|f| {
                    let sha256 = || hex::encode(f.sha256());
                    match (privacy::publish(&f.rel, input.ended), std::str::from_utf8(&f.bytes)) {
                        (Publish::Whole, Ok(text)) => Published::Whole(text),
                        (Publish::Whole, Err(_)) => Published::NotText { sha256: sha256() },
                        (Publish::Digest(why), _) => Published::Withheld { sha256: sha256(), why },
                    }
                })
                .collect()
        })
        .collect()
}

/// One history file as the site publishes it.
enum Published<'a> {
    /// Its bytes, as stored, which are this text.
    Whole(&'a str),
    /// Its bytes, as stored, which are not UTF-8: the verifier's JSON,
    /// whose strings are text, carries its SHA-256 (hex) instead.
    NotText { sha256: String },
    /// Only its SHA-256 (hex), and why its content is withheld.
    Withheld { sha256: String, why: &'static str },
}

/// The JSON the in-page verifier reads (docs/site.md describes it),
/// written straight from the input: the history's texts are most of the
/// site's bytes, and copying them into `serde_json::Value`s first was a
/// sixth of its time. The fields are in the order the maps of a `Value`
/// sort them, as the file was written before.
#[derive(Serialize)]
struct HistoryJson<'a> {
    commitment: Option<TextJson<'a>>,
    ended: bool,
    entries: Vec<EntryJson<'a>>,
    format: u32,
    game: &'a str,
    head: Option<TextJson<'a>>,
    open_phase: Option<&'a str>,
    state: Option<DigestJson<'a>>,
}

#[derive(Serialize)]
struct EntryJson<'a> {
    dir: &'a str,
    files: std::collections::BTreeMap<&'a str, FileJson<'a>>,
}

#[derive(Serialize)]
struct TextJson<'a> {
    text: Cow<'a, str>,
}

#[derive(Serialize)]
struct DigestJson<'a> {
    sha256: &'a str,
}

/// A file as the verifier sees it: its text, or its digest and why the
/// text is withheld.
#[derive(Serialize)]
#[serde(untagged)]
enum FileJson<'a> {
    Whole {
        text: &'a str,
    },
    Withheld {
        sha256: &'a str,
        withheld: &'a str,
    },
    /// The same bytes as the file `<dir>/<file>` of another entry, whose
    /// text is there (a state before a phase is the state after the one
    /// before it: written once, the states were most of the JSON).
    SameAs {
        same_as: String,
    },
}

impl<'a> FileJson<'a> {
    fn of(p: &'a Published<'a>) -> FileJson<'a> {
        match p {
            Published::Whole(text) => FileJson::Whole { text },
            // a JSON string is text: the digest stands for the file
            Published::NotText { sha256 } => FileJson::Withheld {
                sha256,
                withheld: "not UTF-8 text",
            },
            Published::Withheld { sha256, why } => FileJson::Withheld { sha256, withheld: why },
        }
    }
}

fn text_json(bytes: &Option<Vec<u8>>) -> Option<TextJson<'_>> {
    bytes.as_ref().map(|b| TextJson {
        text: String::from_utf8_lossy(b),
    })
}

/// serde_json's compact JSON with every `</` written `<\/` (the same
/// string in JSON), so that no file's text can end the script it is in,
/// in the same pass as serde_json's own escapes (a second pass over the
/// result copied the history's bytes once more). serde_json escapes
/// neither `<` nor `/`, so a `</` is always inside one unescaped fragment
/// of a string, and no JSON but a string's has them.
struct InScript;

impl serde_json::ser::Formatter for InScript {
    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, fragment: &str) -> std::io::Result<()> {
        let mut rest = fragment;
        // a byte scan: serde_json hands over the text between two escapes,
        // a line of TOML each, too short for `find`'s set-up to pay (it
        // was a twentieth of a site's time); `<` is ASCII, so `i` is a
        // character's boundary
        while let Some(i) = rest.bytes().position(|b| b == b'<') {
            let (upto, after) = rest.split_at(i + 1);
            w.write_all(upto.as_bytes())?;
            if after.starts_with('/') {
                w.write_all(b"\\")?;
            }
            rest = after;
        }
        w.write_all(rest.as_bytes())
    }
}

/// The state files of an entry: the one before it is usually the one after
/// the entry before (the site writes and hashes such a state once).
pub const STATE_BEFORE: &str = "state-before.toml";
pub const STATE_AFTER: &str = "state-after.toml";

/// `data/history.js`: the history as one JSON value assigned to
/// `window.EMPEREUR_HISTORY`, written into one buffer sized for it.
fn history_script(input: &Input, published: &[Vec<Published<'_>>]) -> Vec<u8> {
    let mut before: Option<(&EntryInput, &[Published<'_>])> = None;
    let mut entries = Vec::with_capacity(input.entries.len());
    for (e, published) in input.entries.iter().zip(published) {
        let after = before.and_then(|(b, p)| {
            let i = b.files.iter().rposition(|f| f.rel == STATE_AFTER)?;
            matches!(p[i], Published::Whole(_)).then(|| (b.dir.as_str(), b.files[i].bytes.as_slice()))
        });
        entries.push(EntryJson {
            dir: &e.dir,
            // keys in order, as a map; a name given twice keeps the last
            files: e
                .files
                .iter()
                .zip(published)
                .map(|(f, p)| {
                    let json = match (p, after) {
                        (Published::Whole(_), Some((dir, bytes))) if f.rel == STATE_BEFORE && f.bytes == bytes => {
                            FileJson::SameAs {
                                same_as: format!("{dir}/{STATE_AFTER}"),
                            }
                        }
                        _ => FileJson::of(p),
                    };
                    (f.rel.as_str(), json)
                })
                .collect(),
        });
        before = Some((e, published));
    }
    let v = HistoryJson {
        commitment: text_json(&input.commitment),
        ended: input.ended,
        entries,
        format: 1,
        game: &input.game,
        head: text_json(&input.head),
        open_phase: input.open_phase.as_deref(),
        state: input.state_sha256.as_deref().map(|sha256| DigestJson { sha256 }),
    };
    let texts: usize = input.entries.iter().flat_map(|e| &e.files).map(|f| f.bytes.len()).sum();
    // escapes make the JSON about a tenth longer than the texts
    let mut out = Vec::with_capacity(texts + texts / 8 + 4096);
    out.extend_from_slice(b"window.EMPEREUR_HISTORY = ");
    v.serialize(&mut serde_json::Serializer::with_formatter(&mut out, InScript))
        .expect("the history serialises to memory");
    out.extend_from_slice(b";\n");
    out
}

/// `history/` and `phase/commitment` as `export-history` lays them out,
/// but for the withheld files: each entry's are listed, with their
/// digests, in one file of that entry, `withheld.sha256` (`sha256sum`
/// format, each path from the entry's directory), not one file each (a
/// running campaign withholds thousands, and a file made is the largest
/// cost of writing a small one).
fn history_files<'a>(input: &'a Input, published: &[Vec<Published<'a>>]) -> Vec<SiteFile<'a>> {
    let mut out = Vec::new();
    if let Some(h) = &input.head {
        out.push(SiteFile::new("history/head.toml", h.as_slice()));
    }
    for (e, published) in input.entries.iter().zip(published) {
        let mut withheld = String::new();
        for (f, p) in e.files.iter().zip(published) {
            match p {
                Published::Withheld { sha256, .. } => withheld.push_str(&sum_line(sha256, &f.rel)),
                Published::Whole(_) | Published::NotText { .. } => out.push(SiteFile {
                    path: format!("history/{}/{}", e.dir, f.rel),
                    bytes: Some(Cow::Borrowed(&f.bytes)),
                    stored: f.stored.as_deref(),
                }),
            }
        }
        if !withheld.is_empty() {
            let path = format!("history/{}/{WITHHELD}", e.dir);
            out.push(SiteFile::new(path, withheld.into_bytes()));
        }
    }
    if let Some(c) = &input.commitment {
        out.push(SiteFile::new("phase/commitment", c.as_slice()));
    }
    out
}

/// The file of each history entry that lists its withheld files' digests.
/// A history file of that name (the store writes none) is withheld too,
/// so it is listed in it rather than overwritten by it.
const WITHHELD: &str = "withheld.sha256";

/// One line of `sha256sum` output for the file `name`: a name holding a
/// backslash or a line break is escaped as `sha256sum` escapes it (the
/// line begins with a backslash), so that no name can add a line.
fn sum_line(sha256: &str, name: &str) -> String {
    if name.contains(['\\', '\n', '\r']) {
        let name = name.replace('\\', "\\\\").replace('\n', "\\n").replace('\r', "\\r");
        format!("\\{sha256}  {name}\n")
    } else {
        format!("{sha256}  {name}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string as the history's JSON writes it.
    fn in_script(s: &str) -> String {
        let mut out = Vec::new();
        s.serialize(&mut serde_json::Serializer::with_formatter(&mut out, InScript))
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_string_is_escaped_as_serde_json_escapes_it_and_never_ends_a_script() {
        for s in [
            "",
            "plain",
            "name = \"Alice\"\nvp = 3\r\n\ttab \u{1}",
            "</script><script>alert(1)</script>",
            "<</</ <a> / < /",
            "ends in <",
            "ends in </",
            "\"</\"",
        ] {
            let plain = serde_json::to_string(s).unwrap();
            assert_eq!(in_script(s), plain.replace("</", "<\\/"), "{s:?}");
            assert!(!in_script(s).contains("</"), "{s:?}");
            // the same string for a JSON reader
            assert_eq!(serde_json::from_str::<String>(&in_script(s)).unwrap(), s);
        }
    }

    #[test]
    fn a_withheld_name_is_one_line_as_sha256sum_writes_it() {
        let d = "ab".repeat(32);
        assert_eq!(sum_line(&d, "orders/france.toml"), format!("{d}  orders/france.toml\n"));
        // a name that would begin a line of its own, or end one early
        assert_eq!(sum_line(&d, "a\nb\\c\rd"), format!("\\{d}  a\\nb\\\\c\\rd\n"));
        for name in ["x\n", "\\", "\r"] {
            assert_eq!(sum_line(&d, name).lines().count(), 1, "{name:?}");
            assert!(sum_line(&d, name).starts_with('\\'), "{name:?}");
        }
    }
}
