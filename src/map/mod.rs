//! The map: provinces (land areas), sea zones and crossing arrows, with
//! name resolution ("did you mean") and the graph questions the rules ask.
//!
//! Built by `scenario` from its TOML files; read by `orders`, `rules` and
//! `report`. Pure data, no I/O.

use crate::diagnostic::SuggestIndex;
use crate::ids::PowerId;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// 2.12 a–e.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProvinceKind {
    Home,
    Minor,
    MinorPower,
    LoyalMinor,
    RemapableHome,
}

impl ProvinceKind {
    pub fn parse(s: &str) -> Option<ProvinceKind> {
        Some(match s {
            "home" => ProvinceKind::Home,
            "minor" => ProvinceKind::Minor,
            "minor_power" => ProvinceKind::MinorPower,
            "loyal_minor" => ProvinceKind::LoyalMinor,
            "remapable_home" => ProvinceKind::RemapableHome,
            _ => return None,
        })
    }
    /// Home or remapable home of a major power (2.12 a, e).
    pub fn is_home(self) -> bool {
        matches!(self, ProvinceKind::Home | ProvinceKind::RemapableHome)
    }
}

/// Who owns a province on the printed map (its colour).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(untagged)]
pub enum Owner {
    Major(PowerId),
    Minor(String),
    #[serde(serialize_with = "ser_none")]
    None,
}

fn ser_none<S: serde::Serializer>(s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str("none")
}

impl Owner {
    pub fn major(&self) -> Option<PowerId> {
        match self {
            Owner::Major(p) => Some(*p),
            _ => None,
        }
    }
    pub fn id(&self) -> &str {
        match self {
            Owner::Major(p) => p.id(),
            Owner::Minor(m) => m,
            Owner::None => "none",
        }
    }
}

/// Where a value came from: the seed rulebook (with its section) or a
/// house rule (with a one-line reason).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Source {
    Seed { rule: String },
    House { reason: String },
}

impl Source {
    /// Parse `seed 2.13` / `seed 2.5: note` or `house: reason`.
    pub fn parse(s: &str) -> Option<Source> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("seed") {
            let rule = rest.trim().trim_start_matches(':').trim();
            (!rule.is_empty()).then(|| Source::Seed { rule: rule.to_string() })
        } else if let Some(rest) = s.strip_prefix("house") {
            let reason = rest.trim().trim_start_matches(':').trim();
            (!reason.is_empty()).then(|| Source::House {
                reason: reason.to_string(),
            })
        } else {
            None
        }
    }
    pub fn is_house(&self) -> bool {
        matches!(self, Source::House { .. })
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Seed { rule } => write!(f, "seed {rule}"),
            Source::House { reason } => write!(f, "house: {reason}"),
        }
    }
}

/// Longitude and latitude in degrees (scenario geometry, for pictures).
pub type LonLat = [f64; 2];

#[derive(Clone, Debug, Serialize)]
pub struct Province {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub econ: u32,
    pub pol: u32,
    /// VP to the power that takes control of it from another (2.5).
    pub capture_vp: u32,
    pub garrison: u32,
    pub kind: ProvinceKind,
    pub owner: Owner,
    pub capital: bool,
    pub white: bool,
    pub seas: Vec<String>,
    pub port: bool,
    /// 4.242: borders the Baltic, the British Isles zone, the North Sea or
    /// the Atlantic (derived from the sea zones' `trade` flag).
    pub trade_port: bool,
    pub double_loc: bool,
    pub loyal: Option<String>,
    pub region: String,
    pub adjacent: Vec<String>,
    pub source: Source,
    /// Historical centre, if the scenario gives geometry.
    pub pos: Option<LonLat>,
    /// Traced border (empty: drawn as the Voronoi cell of `pos`).
    pub polygon: Vec<LonLat>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Sea {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub trade: bool,
    /// 12.2.7.1 (second numbering): an off-board area of the EiA naval
    /// option, not drawn and closed to fleets without the option.
    pub off_board: Option<OffBoard>,
    pub adjacent: Vec<String>,
    /// Where the zone's name is drawn, if the scenario gives geometry.
    pub pos: Option<LonLat>,
    /// More points of open water in the zone (they shape the coasts).
    pub water: Vec<LonLat>,
    /// Traced outline (optional).
    pub polygon: Vec<LonLat>,
}

/// 12.2.7.1 (seed 003, second numbering): the three areas off the board
/// that fleets of the EiA naval option may sail to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffBoard {
    Canaries,
    MidAtlantic,
    WestIndies,
}

impl Sea {
    /// Off the board (12.2.7.1): not drawn, only for the naval option.
    pub fn is_off_board(&self) -> bool {
        self.off_board.is_some()
    }
}

/// 12.2.1: a crossing arrow between two land areas across a sea zone.
#[derive(Clone, Debug, Serialize)]
pub struct Arrow {
    pub from: String,
    pub to: String,
    pub sea: String,
    #[serde(rename = "type")]
    pub kind: u8,
    pub source: Source,
}

/// Why a name did not resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameError {
    /// No such name; the closest names, best first.
    Unknown { suggestions: Vec<String> },
    /// The name fits several places; their display names.
    Ambiguous { candidates: Vec<String> },
}

#[derive(Clone, Debug, Default)]
pub struct Map {
    pub provinces: Vec<Province>,
    pub seas: Vec<Sea>,
    pub arrows: Vec<Arrow>,
    by_id: BTreeMap<String, usize>,
    sea_by_id: BTreeMap<String, usize>,
    /// Normalised name or alias -> province indices.
    names: BTreeMap<String, Vec<usize>>,
    sea_names: BTreeMap<String, Vec<usize>>,
    /// The same names prepared once for "did you mean", and each word of a
    /// display name (normalised) -> the indices whose name has it.
    name_lookup: NameLookup,
    sea_name_lookup: NameLookup,
}

/// What [`resolve`] needs beyond the exact names, built once per map: a
/// misspelt name is looked up here instead of against every name.
#[derive(Clone, Debug, Default)]
struct NameLookup {
    /// Over the keys of the exact-name table, in its order.
    suggestions: SuggestIndex,
    words: BTreeMap<String, Vec<usize>>,
}

impl NameLookup {
    fn new<'a>(names: &BTreeMap<String, Vec<usize>>, display: impl Iterator<Item = &'a String>) -> NameLookup {
        let mut words: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, name) in display.enumerate() {
            for w in name.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
                let key = normalise(w);
                if w.is_empty() {
                    continue;
                }
                let hits = words.entry(key).or_default();
                if hits.last() != Some(&i) {
                    hits.push(i);
                }
            }
        }
        NameLookup {
            suggestions: SuggestIndex::new(names.keys().map(String::as_str)),
            words,
        }
    }
}

/// Lowercase, ASCII-fold common accents, and drop everything but letters
/// and digits, so `Württemberg`, `wurttemberg` and `Wurt-temberg` meet.
pub fn normalise(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ä' | 'ã' | 'å' => 'a',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ò' | 'ó' | 'ô' | 'ö' | 'õ' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            'ß' => 's',
            other => other,
        })
        .filter(|c| c.is_ascii_alphanumeric())
        .collect()
}

impl Map {
    pub fn new(provinces: Vec<Province>, seas: Vec<Sea>, arrows: Vec<Arrow>) -> Map {
        let mut map = Map {
            provinces,
            seas,
            arrows,
            ..Map::default()
        };
        for (i, p) in map.provinces.iter().enumerate() {
            map.by_id.insert(p.id.clone(), i);
            let mut keys: BTreeSet<String> = BTreeSet::new();
            keys.insert(normalise(&p.id));
            keys.insert(normalise(&p.name));
            for a in &p.aliases {
                keys.insert(normalise(a));
            }
            for k in keys {
                map.names.entry(k).or_default().push(i);
            }
        }
        for (i, s) in map.seas.iter().enumerate() {
            map.sea_by_id.insert(s.id.clone(), i);
            let mut keys: BTreeSet<String> = BTreeSet::new();
            keys.insert(normalise(&s.id));
            keys.insert(normalise(&s.name));
            for a in &s.aliases {
                keys.insert(normalise(a));
            }
            for k in keys {
                map.sea_names.entry(k).or_default().push(i);
            }
        }
        map.name_lookup = NameLookup::new(&map.names, map.provinces.iter().map(|p| &p.name));
        map.sea_name_lookup = NameLookup::new(&map.sea_names, map.seas.iter().map(|s| &s.name));
        map
    }

    pub fn province(&self, id: &str) -> Option<&Province> {
        self.by_id.get(id).map(|&i| &self.provinces[i])
    }

    pub fn sea(&self, id: &str) -> Option<&Sea> {
        self.sea_by_id.get(id).map(|&i| &self.seas[i])
    }

    /// Which off-board area (12.2.7.1) the zone `id` is, if any.
    pub fn off_board(&self, id: &str) -> Option<OffBoard> {
        self.sea(id).and_then(|z| z.off_board)
    }

    /// The zone that is the off-board area `kind`, if the map has it.
    pub fn off_board_area(&self, kind: OffBoard) -> Option<&Sea> {
        self.seas.iter().find(|z| z.off_board == Some(kind))
    }

    /// Resolve a province by id, name or alias, forgiving case, spaces
    /// and accents. A name that is a word of several provinces' names
    /// (`Galicia`) is ambiguous.
    pub fn resolve_province(&self, text: &str) -> Result<&Province, NameError> {
        resolve(text, &self.names, &self.name_lookup, &self.provinces, |p| &p.name)
    }

    /// The province `text` is the id, name or alias of (case, spaces and
    /// accents aside), looked up exactly: no word of a name, no
    /// suggestion; `None` when no one province has it.
    pub fn province_named(&self, text: &str) -> Option<&Province> {
        match self.names.get(&normalise(text))?.as_slice() {
            [i] => self.provinces.get(*i),
            _ => None,
        }
    }

    pub fn resolve_sea(&self, text: &str) -> Result<&Sea, NameError> {
        resolve(text, &self.sea_names, &self.sea_name_lookup, &self.seas, |s| &s.name)
    }

    /// Land areas one step away by land (2.13 is in the data).
    pub fn land_neighbours<'a>(&'a self, id: &str) -> impl Iterator<Item = &'a str> + 'a {
        self.province(id)
            .into_iter()
            .flat_map(|p| p.adjacent.iter().map(String::as_str))
    }

    pub fn adjacent(&self, a: &str, b: &str) -> bool {
        self.province(a).is_some_and(|p| p.adjacent.iter().any(|x| x == b))
    }

    /// The crossing arrow between two land areas, either way (12.2.1).
    pub fn arrow(&self, a: &str, b: &str) -> Option<&Arrow> {
        self.arrows
            .iter()
            .find(|x| (x.from == a && x.to == b) || (x.from == b && x.to == a))
    }

    pub fn seas_adjacent(&self, a: &str, b: &str) -> bool {
        self.sea(a).is_some_and(|s| s.adjacent.iter().any(|x| x == b))
    }

    /// Shortest land path length (steps) from any of `from` to `to`,
    /// counting each step into a province with `cost(province)`; crossing
    /// arrows count as land steps. Dijkstra over small integer weights.
    pub fn distance(&self, from: &[&str], to: &str, cost: impl Fn(&Province) -> u32) -> Option<u32> {
        self.distance_through(from, to, cost, |_| true)
    }

    /// As [`Map::distance`], crossing only the arrows `open` lets through
    /// (12.2.1: an arrow an enemy fleet interdicts carries no line). The
    /// map knows no fleets: the caller, who holds the state, decides.
    pub fn distance_through(
        &self,
        from: &[&str],
        to: &str,
        cost: impl Fn(&Province) -> u32,
        open: impl Fn(&Arrow) -> bool,
    ) -> Option<u32> {
        let mut best: BTreeMap<&str, u32> = BTreeMap::new();
        let mut queue: VecDeque<&str> = VecDeque::new();
        for f in from {
            if self.province(f).is_some() {
                best.insert(f, 0);
                queue.push_back(f);
            }
        }
        // Bellman-Ford style relaxation with a queue (SPFA); the map has
        // ~150 nodes and weights 1 or 2, so this is plenty fast.
        while let Some(cur) = queue.pop_front() {
            let d = best[cur];
            let arrows = self.arrows.iter().filter(|a| open(a)).filter_map(|a| {
                if a.from == cur {
                    Some(a.to.as_str())
                } else if a.to == cur {
                    Some(a.from.as_str())
                } else {
                    None
                }
            });
            let next: Vec<&str> = self.land_neighbours(cur).chain(arrows).collect();
            for n in next {
                let Some(p) = self.province(n) else { continue };
                let nd = d + cost(p);
                if best.get(n).is_none_or(|&old| nd < old) {
                    best.insert(&p.id, nd);
                    queue.push_back(&p.id);
                }
            }
        }
        best.get(to).copied()
    }

    /// Sea-zone steps from any of `from` to every sea zone reachable by
    /// way of adjacent zones (adjacency read either way), breadth first:
    /// the naval counterpart of [`Map::distance`].
    pub fn sea_steps(&self, from: &[&str]) -> BTreeMap<String, u32> {
        let mut dist: BTreeMap<String, u32> = BTreeMap::new();
        let mut queue: VecDeque<&str> = VecDeque::new();
        for z in from {
            if let Some(s) = self.sea(z)
                && !dist.contains_key(&s.id)
            {
                dist.insert(s.id.clone(), 0);
                queue.push_back(&s.id);
            }
        }
        while let Some(z) = queue.pop_front() {
            let d = dist[z];
            for s in &self.seas {
                if !dist.contains_key(&s.id) && (self.seas_adjacent(z, &s.id) || self.seas_adjacent(&s.id, z)) {
                    dist.insert(s.id.clone(), d + 1);
                    queue.push_back(&s.id);
                }
            }
        }
        dist
    }

    /// Provinces whose printed owner is `owner` (home provinces of a major
    /// power, or the provinces of a minor power).
    pub fn owned_by<'a>(&'a self, owner: &'a str) -> impl Iterator<Item = &'a Province> + 'a {
        self.provinces.iter().filter(move |p| p.owner.id() == owner)
    }
}

fn resolve<'a, T>(
    text: &str,
    names: &BTreeMap<String, Vec<usize>>,
    lookup: &NameLookup,
    items: &'a [T],
    name_of: impl Fn(&T) -> &String,
) -> Result<&'a T, NameError> {
    let key = normalise(text);
    if let Some(ix) = names.get(&key) {
        if ix.len() == 1 {
            return Ok(&items[ix[0]]);
        }
        return Err(NameError::Ambiguous {
            candidates: ix.iter().map(|&i| name_of(&items[i]).clone()).collect(),
        });
    }
    if key.is_empty() {
        return Err(NameError::Unknown { suggestions: vec![] });
    }
    // A word of several names ("Galicia" in East and West Galicia).
    match lookup.words.get(&key).map(Vec::as_slice) {
        Some([one]) => return Ok(&items[*one]),
        Some(hits) if hits.len() > 1 => {
            return Err(NameError::Ambiguous {
                candidates: hits.iter().map(|&i| name_of(&items[i]).clone()).collect(),
            });
        }
        _ => {}
    }
    let mut out: Vec<String> = Vec::new();
    for k in lookup.suggestions.suggest(&key) {
        for &i in &names[k] {
            let n = name_of(&items[i]).clone();
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    Err(NameError::Unknown { suggestions: out })
}
