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
//!   them out, each withheld file replaced by `<file>.sha256`.

pub mod privacy;

use crate::report::EventView;
use anyhow::{Result, anyhow};
use minijinja::Environment;
use privacy::Publish;
use serde::Serialize;
use serde_json::json;
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
}

impl EntryInput {
    /// The bytes of the file `rel`, if the entry has one.
    pub fn bytes(&self, rel: &str) -> Option<&[u8]> {
        self.files.iter().find(|f| f.rel == rel).map(|f| f.bytes.as_slice())
    }
}

/// One file of the site: its path inside the site, its bytes and, for a
/// history file published as stored, the game's own file with those bytes.
#[derive(Clone, Debug)]
pub struct SiteFile<'a> {
    pub path: String,
    pub bytes: Cow<'a, [u8]>,
    pub stored: Option<&'a Path>,
}

impl<'a> SiteFile<'a> {
    fn new(path: impl Into<String>, bytes: impl Into<Cow<'a, [u8]>>) -> SiteFile<'a> {
        SiteFile {
            path: path.into(),
            bytes: bytes.into(),
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

/// The SVG text of a page's map: its own, or a part of the bytes a file of
/// pages was read into, shared rather than copied (the maps are most of
/// those bytes).
#[derive(Clone, Debug)]
pub struct Svg {
    bytes: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl Svg {
    pub fn new(text: String) -> Svg {
        let range = 0..text.len();
        Svg {
            bytes: Arc::new(text.into_bytes()),
            range,
        }
    }

    /// The part `range` of `bytes`, if it is UTF-8 text.
    pub fn shared(bytes: &Arc<Vec<u8>>, range: Range<usize>) -> Option<Svg> {
        std::str::from_utf8(bytes.get(range.clone())?).ok()?;
        Some(Svg {
            bytes: Arc::clone(bytes),
            range,
        })
    }

    /// The text, as UTF-8 bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[self.range.clone()]
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
            out.push(SiteFile::new(format!("phases/{}.svg", p.dir), svg.as_bytes()));
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
/// hashed once, for both the history's JSON and its `.sha256` file; the
/// others the verifier hashes.
fn publication(input: &Input) -> Vec<Vec<Published<'_>>> {
    input
        .entries
        .iter()
        .map(|e| {
            e.files
                .iter()
                .map(|f| {
                    let sha256 = || crate::store::history::sha256_hex(&f.bytes);
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

/// `data/history.js`: the history as one JSON value assigned to
/// `window.EMPEREUR_HISTORY` (docs/site.md describes it), written
/// straight into one buffer: the history's texts are most of the site's
/// bytes, and building it through serde_json then escaping `</` over the
/// result copied them twice more. The bytes are what `serde_json` writes
/// for the value (compact, the keys of each object sorted, as the maps of
/// a `serde_json::Value` are) with every `</` written `<\/`, so that no
/// file's text can end the script it is in.
fn history_script(input: &Input, published: &[Vec<Published<'_>>]) -> Vec<u8> {
    let texts: usize = input.entries.iter().flat_map(|e| &e.files).map(|f| f.bytes.len()).sum();
    // escapes make the JSON about a tenth longer than the texts
    let mut out = Vec::with_capacity(texts + texts / 8 + 4096);
    out.extend_from_slice(b"window.EMPEREUR_HISTORY = ");
    out.extend_from_slice(b"{\"commitment\":");
    text_object(&mut out, input.commitment.as_deref());
    out.extend_from_slice(if input.ended {
        b",\"ended\":true"
    } else {
        b",\"ended\":false"
    });
    out.extend_from_slice(b",\"entries\":[");
    for (i, (e, published)) in input.entries.iter().zip(published).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"dir\":");
        json_string(&mut out, &e.dir);
        out.extend_from_slice(b",\"files\":{");
        // keys in order, as a map; a name given twice keeps the last
        let files: std::collections::BTreeMap<&str, &Published<'_>> =
            e.files.iter().map(|f| f.rel.as_str()).zip(published).collect();
        for (j, (rel, p)) in files.into_iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            json_string(&mut out, rel);
            out.push(b':');
            match p {
                Published::Whole(text) => {
                    out.extend_from_slice(b"{\"text\":");
                    json_string(&mut out, text);
                }
                Published::NotText { sha256 } => withheld(&mut out, sha256, "not UTF-8 text"),
                Published::Withheld { sha256, why } => withheld(&mut out, sha256, why),
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"}}");
    }
    out.extend_from_slice(b"],\"format\":1,\"game\":");
    json_string(&mut out, &input.game);
    out.extend_from_slice(b",\"head\":");
    text_object(&mut out, input.head.as_deref());
    out.extend_from_slice(b",\"open_phase\":");
    match &input.open_phase {
        Some(p) => json_string(&mut out, p),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"state\":");
    match &input.state_sha256 {
        Some(sha256) => {
            out.extend_from_slice(b"{\"sha256\":");
            json_string(&mut out, sha256);
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b"};\n");
    out
}

/// `{"sha256": …, "withheld": …` of a file withheld (the caller closes it).
fn withheld(out: &mut Vec<u8>, sha256: &str, why: &str) {
    out.extend_from_slice(b"{\"sha256\":");
    json_string(out, sha256);
    out.extend_from_slice(b",\"withheld\":");
    json_string(out, why);
}

/// `{"text": …}` of a file as stored (a byte that is not UTF-8 becomes
/// U+FFFD), or `null`.
fn text_object(out: &mut Vec<u8>, bytes: Option<&[u8]>) {
    match bytes {
        Some(b) => {
            out.extend_from_slice(b"{\"text\":");
            json_string(out, &String::from_utf8_lossy(b));
            out.push(b'}');
        }
        None => out.extend_from_slice(b"null"),
    }
}

/// `s` as a JSON string, escaped as `serde_json` escapes it (`"`, `\\`,
/// `\b \f \n \r \t`, other control characters `\u00xx`), and every
/// `</` written `<\/`.
fn json_string(out: &mut Vec<u8>, s: &str) {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    /// A word whose lowest set bit is in the first byte of `x` that is
    /// below 0x20 or is `"`, `\\` or `<` (the bits above it may be
    /// wrong: a borrow runs upwards only), or 0 if none is.
    fn special(x: u64) -> u64 {
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        let below = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        below
            | zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
            | zero(x ^ (ONES * u64::from(b'<')))
    }
    let b = s.as_bytes();
    out.push(b'"');
    // b[done..i] is to be copied as it is
    let (mut done, mut i) = (0, 0);
    while i < b.len() {
        // eight bytes at a time while none needs a look
        if let Some(word) = b.get(i..i + 8) {
            let m = special(u64::from_le_bytes(word.try_into().expect("eight bytes")));
            if m == 0 {
                i += 8;
                continue;
            }
            i += (m.trailing_zeros() / 8) as usize;
        }
        let c = b[i];
        let escaped: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&b[done..i]);
                out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(c >> 4)],
                    HEX[usize::from(c & 15)],
                ]);
                i += 1;
                done = i;
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'/') => {
                out.extend_from_slice(&b[done..=i]);
                out.push(b'\\');
                i += 1;
                done = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        out.extend_from_slice(&b[done..i]);
        out.extend_from_slice(escaped);
        i += 1;
        done = i;
    }
    out.extend_from_slice(&b[done..]);
    out.push(b'"');
}

/// `history/` and `phase/commitment` as `export-history` lays them out;
/// a withheld file is `<file>.sha256` (`sha256sum` format).
fn history_files<'a>(input: &'a Input, published: &[Vec<Published<'a>>]) -> Vec<SiteFile<'a>> {
    let mut out = Vec::new();
    if let Some(h) = &input.head {
        out.push(SiteFile::new("history/head.toml", h.as_slice()));
    }
    for (e, published) in input.entries.iter().zip(published) {
        for (f, p) in e.files.iter().zip(published) {
            let path = format!("history/{}/{}", e.dir, f.rel);
            match p {
                Published::Withheld { sha256, .. } => {
                    let name = f.rel.rsplit('/').next().unwrap_or(&f.rel);
                    let line = format!("{sha256}  {name}\n");
                    out.push(SiteFile::new(format!("{path}.sha256"), line.into_bytes()));
                }
                Published::Whole(_) | Published::NotText { .. } => out.push(SiteFile {
                    path,
                    bytes: Cow::Borrowed(&f.bytes),
                    stored: f.stored.as_deref(),
                }),
            }
        }
    }
    if let Some(c) = &input.commitment {
        out.push(SiteFile::new("phase/commitment", c.as_slice()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the history's JSON was before it was written by hand: serde_json's
    /// string, every `</` then written `<\/`.
    fn by_serde(s: &str) -> String {
        serde_json::to_string(s).unwrap().replace("</", "<\\/")
    }

    #[test]
    fn a_json_string_is_escaped_as_serde_json_escapes_it_and_never_ends_a_script() {
        let mut cases: Vec<String> = [
            "",
            "plain text longer than eight bytes",
            "name = \"Alice\"\nvp = 3\r\n\ttab",
            "</script><script>alert(1)</script>",
            "<</</ <a> / < /",
            "back\\slash \\\" and \u{7f} \u{e9}t\u{e9} \u{1F3B2}",
            "ends in <",
            "ends in </",
        ]
        .map(String::from)
        .to_vec();
        // every control character, at each place in a word of eight
        for c in 0u8..0x20 {
            for at in 0..9 {
                let mut s = "abcdefgh".repeat(2);
                s.insert(at, char::from(c));
                cases.push(s);
            }
        }
        for s in cases {
            let mut out = Vec::new();
            json_string(&mut out, &s);
            assert_eq!(String::from_utf8(out).unwrap(), by_serde(&s), "{s:?}");
        }
    }
}
