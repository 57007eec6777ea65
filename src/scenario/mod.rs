//! Scenarios: the map, the powers' player mats, minor powers and the rules
//! tables, loaded from TOML text and checked into domain types.
//!
//! The pure core never reads files: a scenario is loaded from
//! [`ScenarioFiles`] (relative path -> text), which `ops` fills from a
//! directory or from the copy embedded in the binary ([`embedded`]).
//! Adding a rules table is adding a file under `tables/` and a typed
//! struct in [`tables`].

pub mod check;
pub mod schema;
pub mod tables;
pub mod tables_naval;
pub mod tables_political;
pub mod tables_political_dominance;
pub mod tables_war;

use crate::ids::{Nation, PowerId, Turn};
use crate::map::{Arrow, Map, Owner, Province, ProvinceKind, Sea, Source};
use include_dir::{Dir, include_dir};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

pub use tables::Tables;

static SCENARIOS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/games/scenarios");

/// The text of a scenario's files, by path relative to its directory
/// (`provinces.toml`, `tables/build_costs.toml`).
pub type ScenarioFiles = BTreeMap<String, String>;

/// Names of the scenarios embedded in the binary.
pub fn embedded_names() -> Vec<String> {
    SCENARIOS
        .dirs()
        .filter_map(|d| d.path().file_name().and_then(|n| n.to_str()).map(str::to_string))
        .collect()
}

/// The files of an embedded scenario.
pub fn embedded(name: &str) -> Option<ScenarioFiles> {
    let dir = SCENARIOS.get_dir(name)?;
    let mut files = ScenarioFiles::new();
    collect(dir, dir.path(), &mut files);
    Some(files)
}

fn collect(dir: &Dir<'_>, root: &std::path::Path, out: &mut ScenarioFiles) {
    for f in dir.files() {
        if let (Ok(rel), Some(text)) = (f.path().strip_prefix(root), f.contents_utf8()) {
            out.insert(rel.to_string_lossy().replace('\\', "/"), text.to_string());
        }
    }
    for d in dir.dirs() {
        collect(d, root, out);
    }
}

/// A problem in a scenario file: which file, which line (when known),
/// which item and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Collects errors while loading, so one run reports them all.
#[derive(Default)]
pub struct Problems {
    pub errors: Vec<ScenarioError>,
}

impl Problems {
    pub fn at(&mut self, file: &str, text: Option<&str>, needle: &str, message: impl Into<String>) {
        let line = text.and_then(|t| line_of(t, needle));
        self.errors.push(ScenarioError {
            file: file.to_string(),
            line,
            message: message.into(),
        });
    }
}

/// The first line of `text` containing `needle` (1-based).
pub fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// Parse one TOML file into its schema type, with the line of a syntax or
/// type error.
pub fn parse_file<T: serde::de::DeserializeOwned>(files: &ScenarioFiles, name: &str) -> Result<T, ScenarioError> {
    let text = files.get(name).ok_or_else(|| ScenarioError {
        file: name.to_string(),
        line: None,
        message: "file is missing".to_string(),
    })?;
    toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        ScenarioError {
            file: name.to_string(),
            line,
            message: e.message().trim().to_string(),
        }
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Costs {
    pub infantry: u32,
    pub cavalry: u32,
    pub artillery: u32,
    pub squadron: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pool {
    pub infantry: u32,
    pub cavalry: u32,
    pub artillery: u32,
    pub squadrons: u32,
}

/// Arms of a division (2.23).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arm {
    #[serde(alias = "inf")]
    Infantry,
    #[serde(alias = "cav")]
    Cavalry,
    #[serde(alias = "art")]
    Artillery,
}

impl Arm {
    pub fn parse(s: &str) -> Option<Arm> {
        match s.trim().to_ascii_lowercase().as_str() {
            "inf" | "infantry" | "i" => Some(Arm::Infantry),
            "cav" | "cavalry" | "c" => Some(Arm::Cavalry),
            "art" | "artillery" | "a" => Some(Arm::Artillery),
            _ => None,
        }
    }
    pub fn short(self) -> &'static str {
        match self {
            Arm::Infantry => "inf",
            Arm::Cavalry => "cav",
            Arm::Artillery => "art",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct CorpsSpec {
    pub number: u32,
    pub at: Option<String>,
    pub divisions: Vec<Arm>,
    pub arrives: Option<Turn>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SquadronSpec {
    pub number: u32,
    pub at: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct CommanderSpec {
    pub name: String,
    pub rating: u8,
    pub at: Option<String>,
    pub arrives: Option<Turn>,
    pub primary: bool,
}

/// A major power's player mat.
#[derive(Clone, Debug, Serialize)]
pub struct PowerSpec {
    pub id: PowerId,
    pub capital: String,
    pub vp_goal: u32,
    pub gold: i64,
    pub costs: Costs,
    pub pool: Pool,
    pub garrisons: Vec<String>,
    pub corps: Vec<CorpsSpec>,
    pub squadrons: Vec<SquadronSpec>,
    pub commanders: Vec<CommanderSpec>,
    pub source: Source,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MinorKind {
    /// 3.41: Portugal, Denmark/Norway, Sweden, Naples, Egypt.
    MinorPower,
    /// 3.41: minor provinces with units (Holland, Bavaria, Saxony).
    MinorProvinceForces,
    /// 3.42: Poland, Italy, Rhine, formed by a Remapping Europe event.
    Loyal,
}

#[derive(Clone, Debug, Serialize)]
pub struct MinorSpec {
    pub id: String,
    pub name: String,
    pub adjective: String,
    pub aliases: Vec<String>,
    pub kind: MinorKind,
    pub controller: Option<PowerId>,
    pub costs: Costs,
    pub pool: Pool,
    pub corps: Vec<CorpsSpec>,
    pub squadrons: Vec<SquadronSpec>,
    pub garrisons: Vec<String>,
    pub source: Source,
}

/// A loaded, checked scenario.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub start: Turn,
    pub end: Turn,
    pub source: Source,
    /// Provenance of the map geometry (positions, water points, polygons),
    /// when the scenario gives any.
    pub geometry_source: Option<Source>,
    #[serde(skip)]
    pub map: Map,
    pub powers: BTreeMap<PowerId, PowerSpec>,
    pub minors: BTreeMap<String, MinorSpec>,
    pub tables: Tables,
}

/// One value or table that the seeds do not fix, for `scenario check`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HouseValue {
    pub file: String,
    pub item: String,
    pub reason: String,
}

impl Scenario {
    /// The embedded scenario `name`.
    pub fn embedded(name: &str) -> Result<Scenario, Vec<ScenarioError>> {
        let files = embedded(name).ok_or_else(|| {
            vec![ScenarioError {
                file: name.to_string(),
                line: None,
                message: format!(
                    "no embedded scenario '{name}' (embedded: {})",
                    embedded_names().join(", ")
                ),
            }]
        })?;
        Scenario::load(&files)
    }

    /// Load and check a scenario from its files; every problem is
    /// reported, each naming its file and line.
    pub fn load(files: &ScenarioFiles) -> Result<Scenario, Vec<ScenarioError>> {
        let mut pr = Problems::default();
        let scen: Option<schema::ScenarioFile> = keep(&mut pr, parse_file(files, "scenario.toml"));
        let provs: Option<schema::ProvincesFile> = keep(&mut pr, parse_file(files, "provinces.toml"));
        let seas: Option<schema::SeasFile> = keep(&mut pr, parse_file(files, "seas.toml"));
        let arrows: Option<schema::ArrowsFile> = keep(&mut pr, parse_file(files, "arrows.toml"));
        let powers: Option<schema::PowersFile> = keep(&mut pr, parse_file(files, "powers.toml"));
        let minors: Option<schema::MinorsFile> = keep(&mut pr, parse_file(files, "minors.toml"));
        let tables = Tables::load(files, &mut pr);
        let (Some(scen), Some(provs), Some(seas), Some(arrows), Some(powers), Some(minors), Some(tables)) =
            (scen, provs, seas, arrows, powers, minors, tables)
        else {
            return Err(pr.errors);
        };
        let text = |f: &str| files.get(f).map(String::as_str);
        let start = Turn::parse(&scen.start);
        let end = Turn::parse(&scen.end);
        if start.is_none() {
            pr.at(
                "scenario.toml",
                text("scenario.toml"),
                "start",
                format!("start '{}' is not a turn like 1805-fall", scen.start),
            );
        }
        if end.is_none() {
            pr.at(
                "scenario.toml",
                text("scenario.toml"),
                "end",
                format!("end '{}' is not a turn like 1815-fall", scen.end),
            );
        }
        let scen_source = source(&mut pr, files, "scenario.toml", "source", &scen.source);

        // Seas first: provinces derive their trade-port flag from them.
        let sea_list = load_seas(seas.sea);
        let prov_list = load_provinces(&mut pr, files, &provs.source, provs.province, &sea_list);

        // The map pictures' geometry: one provenance for positions and
        // water points of both files.
        let geometry_source = match (&provs.geometry_source, &seas.geometry_source) {
            (Some(g), _) => Some(source(&mut pr, files, "provinces.toml", "geometry_source", g)),
            (None, Some(g)) => Some(source(&mut pr, files, "seas.toml", "geometry_source", g)),
            (None, None) => None,
        };
        if let (Some(_), Some(g)) = (&provs.geometry_source, &seas.geometry_source) {
            source(&mut pr, files, "seas.toml", "geometry_source", g);
        }

        let arrow_list = load_arrows(&mut pr, files, arrows);
        let map = Map::new(prov_list, sea_list, arrow_list);
        let power_map = load_powers(&mut pr, files, powers);
        let minor_map = load_minors(&mut pr, files, minors);

        let scenario = Scenario {
            id: scen.id,
            name: scen.name,
            description: scen.description,
            start: start.unwrap_or(Turn {
                year: 1805,
                season: crate::ids::Season::Fall,
            }),
            end: end.unwrap_or(Turn {
                year: 1815,
                season: crate::ids::Season::Fall,
            }),
            source: scen_source,
            geometry_source,
            map,
            powers: power_map,
            minors: minor_map,
            tables,
        };
        check::references(&scenario, files, &mut pr);
        check::geometry(&scenario, files, &mut pr);
        if pr.errors.is_empty() {
            Ok(scenario)
        } else {
            Err(pr.errors)
        }
    }

    pub fn power(&self, p: PowerId) -> &PowerSpec {
        &self.powers[&p]
    }

    /// List costs of a nation's units (a minor's own, when it has them).
    pub fn costs(&self, nation: &Nation) -> Option<Costs> {
        match nation {
            Nation::Major(p) => self.powers.get(p).map(|s| s.costs),
            Nation::Minor(m) => self.minors.get(m).map(|s| s.costs),
        }
    }

    /// Home provinces of a major power, remapable ones included (2.12).
    pub fn home_provinces(&self, p: PowerId) -> impl Iterator<Item = &Province> {
        self.map
            .provinces
            .iter()
            .filter(move |x| x.kind.is_home() && x.owner == Owner::Major(p))
    }

    /// 2.71: length of the shortest Line of Communication from any home
    /// province of `power` (exclusive) to `to` (inclusive), provinces with
    /// `double_loc` counting two steps. `Some(0)` when `to` is a home
    /// province; `None` when unreachable by land and the crossing arrows
    /// `open` lets through (12.2.1: the rules, which see the fleets, say
    /// which arrows an enemy fleet interdicts; the scenario stays data).
    pub fn loc_length(&self, power: PowerId, to: &str, open: impl Fn(&Arrow) -> bool) -> Option<u32> {
        let homes: Vec<&str> = self.home_provinces(power).map(|p| p.id.as_str()).collect();
        self.map
            .distance_through(&homes, to, |p| if p.double_loc { 2 } else { 1 }, open)
    }

    /// Every value or table whose source is a house rule.
    pub fn house_values(&self) -> Vec<HouseValue> {
        let mut out = Vec::new();
        let mut add = |file: &str, item: String, s: &Source| {
            if let Source::House { reason } = s {
                out.push(HouseValue {
                    file: file.to_string(),
                    item,
                    reason: reason.clone(),
                });
            }
        };
        add("scenario.toml", self.id.clone(), &self.source);
        if let Some(g) = &self.geometry_source {
            add("provinces.toml", "geometry (positions, water points)".to_string(), g);
        }
        for p in &self.map.provinces {
            add("provinces.toml", format!("province {}", p.id), &p.source);
        }
        for a in &self.map.arrows {
            add("arrows.toml", format!("arrow {}-{}", a.from, a.to), &a.source);
        }
        for p in self.powers.values() {
            add("powers.toml", format!("power {}", p.id), &p.source);
        }
        for m in self.minors.values() {
            add("minors.toml", format!("minor {}", m.id), &m.source);
        }
        for (file, s) in self.tables.sources() {
            add(
                &file,
                format!("table {}", file.trim_start_matches("tables/").trim_end_matches(".toml")),
                &s,
            );
        }
        out
    }
}

/// A `source` value (provenance): `seed <rule>` or `house: <reason>`.
fn source(pr: &mut Problems, files: &ScenarioFiles, file: &str, needle: &str, s: &str) -> Source {
    Source::parse(s).unwrap_or_else(|| {
        pr.at(
            file,
            files.get(file).map(String::as_str),
            needle,
            format!("source '{s}' must start with 'seed <rule>' or 'house: <reason>'"),
        );
        Source::House { reason: String::new() }
    })
}

/// The sea zones of `seas.toml`.
fn load_seas(seas: Vec<schema::RawSea>) -> Vec<Sea> {
    let mut sea_list = Vec::new();
    for s in seas {
        sea_list.push(Sea {
            id: s.id,
            name: s.name,
            aliases: s.aliases,
            trade: s.trade,
            off_board: s.off_board,
            adjacent: s.adjacent,
            pos: s.pos,
            water: s.water,
            polygon: s.polygon.unwrap_or_default(),
        });
    }
    sea_list
}

/// The provinces of `provinces.toml`; a province's trade-port flag comes
/// from the seas it borders.
fn load_provinces(
    pr: &mut Problems,
    files: &ScenarioFiles,
    default_source: &str,
    provinces: Vec<schema::RawProvince>,
    sea_list: &[Sea],
) -> Vec<Province> {
    let text = |f: &str| files.get(f).map(String::as_str);
    let trade_seas: BTreeMap<&str, bool> = sea_list.iter().map(|s| (s.id.as_str(), s.trade)).collect();

    let prov_default = source(pr, files, "provinces.toml", "source", default_source);
    let mut prov_list = Vec::new();
    for p in provinces {
        let needle = format!("id = \"{}\"", p.id);
        let kind = ProvinceKind::parse(&p.kind).unwrap_or_else(|| {
            pr.at(
                "provinces.toml",
                text("provinces.toml"),
                &needle,
                format!(
                    "province '{}': kind '{}' is not one of home, minor, minor_power, loyal_minor, remapable_home",
                    p.id, p.kind
                ),
            );
            ProvinceKind::Minor
        });
        let owner = match p.owner.as_str() {
            "none" => Owner::None,
            o => match PowerId::ALL.into_iter().find(|x| x.id() == o) {
                Some(pw) => Owner::Major(pw),
                None => Owner::Minor(o.to_string()),
            },
        };
        let src = match &p.source {
            Some(s) => source(pr, files, "provinces.toml", &needle, s),
            None => prov_default.clone(),
        };
        let trade_port = p
            .seas
            .iter()
            .any(|s| trade_seas.get(s.as_str()).copied().unwrap_or(false));
        prov_list.push(Province {
            id: p.id,
            name: p.name,
            aliases: p.aliases,
            econ: p.econ,
            pol: p.pol,
            capture_vp: p.capture_vp,
            garrison: p.garrison,
            kind,
            owner,
            capital: p.capital,
            white: p.white,
            seas: p.seas,
            port: p.port,
            trade_port,
            double_loc: p.double_loc,
            loyal: p.loyal,
            region: p.region,
            adjacent: p.adjacent,
            source: src,
            pos: p.pos,
            polygon: p.polygon.unwrap_or_default(),
        });
    }
    prov_list
}

/// The crossing arrows of `arrows.toml` (12.2.1).
fn load_arrows(pr: &mut Problems, files: &ScenarioFiles, arrows: schema::ArrowsFile) -> Vec<Arrow> {
    let arrow_default = source(pr, files, "arrows.toml", "source", &arrows.source);
    let mut arrow_list = Vec::new();
    for a in arrows.arrow {
        let src = match &a.source {
            Some(s) => source(pr, files, "arrows.toml", &format!("from = \"{}\"", a.from), s),
            None => arrow_default.clone(),
        };
        arrow_list.push(Arrow {
            from: a.from,
            to: a.to,
            sea: a.sea,
            kind: a.kind,
            source: src,
        });
    }
    arrow_list
}

/// The major powers of `powers.toml`.
fn load_powers(pr: &mut Problems, files: &ScenarioFiles, powers: schema::PowersFile) -> BTreeMap<PowerId, PowerSpec> {
    let text = |f: &str| files.get(f).map(String::as_str);
    let power_default = source(pr, files, "powers.toml", "source", &powers.source);
    let mut power_map = BTreeMap::new();
    for p in powers.power {
        let needle = format!("id = \"{}\"", p.id);
        let Some(id) = PowerId::ALL.into_iter().find(|x| x.id() == p.id) else {
            pr.at(
                "powers.toml",
                text("powers.toml"),
                &needle,
                format!("'{}' is not a major power id", p.id),
            );
            continue;
        };
        let src = match &p.source {
            Some(s) => source(pr, files, "powers.toml", &needle, s),
            None => power_default.clone(),
        };
        let corps = corps_specs(pr, "powers.toml", text("powers.toml"), &needle, &p.corps);
        let commanders = p
            .commander
            .iter()
            .map(|c| CommanderSpec {
                name: c.name.clone(),
                rating: c.rating,
                at: c.at.clone(),
                arrives: c.arrives.as_deref().and_then(|t| {
                    let turn = Turn::parse(t);
                    if turn.is_none() {
                        pr.at(
                            "powers.toml",
                            text("powers.toml"),
                            &c.name,
                            format!("commander {}: arrives '{t}' is not a turn like 1807-spring", c.name),
                        );
                    }
                    turn
                }),
                primary: c.primary,
            })
            .collect();
        power_map.insert(
            id,
            PowerSpec {
                id,
                capital: p.capital,
                vp_goal: p.vp_goal,
                gold: p.gold,
                costs: costs(p.costs),
                pool: pool(p.pool),
                garrisons: p.garrisons,
                corps,
                squadrons: p
                    .squadron
                    .iter()
                    .map(|s| SquadronSpec {
                        number: s.number,
                        at: s.at.clone(),
                    })
                    .collect(),
                commanders,
                source: src,
            },
        );
    }

    power_map
}

/// The minor powers of `minors.toml`.
fn load_minors(pr: &mut Problems, files: &ScenarioFiles, minors: schema::MinorsFile) -> BTreeMap<String, MinorSpec> {
    let text = |f: &str| files.get(f).map(String::as_str);
    let minor_default = source(pr, files, "minors.toml", "source", &minors.source);
    let mut minor_map = BTreeMap::new();
    for m in minors.minor {
        let needle = format!("id = \"{}\"", m.id);
        let kind = match m.kind.as_str() {
            "minor_power" => MinorKind::MinorPower,
            "minor_province_forces" => MinorKind::MinorProvinceForces,
            "loyal" => MinorKind::Loyal,
            other => {
                pr.at(
                    "minors.toml",
                    text("minors.toml"),
                    &needle,
                    format!(
                        "minor '{}': kind '{other}' is not one of minor_power, minor_province_forces, loyal",
                        m.id
                    ),
                );
                MinorKind::MinorPower
            }
        };
        let controller = m.controller.as_deref().and_then(|c| {
            let p = PowerId::ALL.into_iter().find(|x| x.id() == c);
            if p.is_none() {
                pr.at(
                    "minors.toml",
                    text("minors.toml"),
                    &needle,
                    format!("minor '{}': controller '{c}' is not a major power", m.id),
                );
            }
            p
        });
        let src = match &m.source {
            Some(s) => source(pr, files, "minors.toml", &needle, s),
            None => minor_default.clone(),
        };
        if m.id.parse::<Nation>().ok().and_then(|n| n.major()).is_some() {
            pr.at(
                "minors.toml",
                text("minors.toml"),
                &needle,
                format!("minor id '{}' is a major power's id", m.id),
            );
        }
        let corps = corps_specs(pr, "minors.toml", text("minors.toml"), &needle, &m.corps);
        minor_map.insert(
            m.id.clone(),
            MinorSpec {
                id: m.id,
                name: m.name,
                adjective: m.adjective,
                aliases: m.aliases,
                kind,
                controller,
                costs: m.costs.map(costs).unwrap_or(Costs {
                    infantry: 0,
                    cavalry: 0,
                    artillery: 0,
                    squadron: 0,
                }),
                pool: pool(m.pool),
                corps,
                squadrons: m
                    .squadron
                    .iter()
                    .map(|s| SquadronSpec {
                        number: s.number,
                        at: s.at.clone(),
                    })
                    .collect(),
                garrisons: m.garrisons,
                source: src,
            },
        );
    }

    minor_map
}

fn keep<T>(pr: &mut Problems, r: Result<T, ScenarioError>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            pr.errors.push(e);
            None
        }
    }
}

fn costs(c: schema::RawCosts) -> Costs {
    Costs {
        infantry: c.infantry,
        cavalry: c.cavalry,
        artillery: c.artillery,
        squadron: c.squadron,
    }
}

fn pool(p: schema::RawPool) -> Pool {
    Pool {
        infantry: p.infantry,
        cavalry: p.cavalry,
        artillery: p.artillery,
        squadrons: p.squadrons,
    }
}

fn corps_specs(
    pr: &mut Problems,
    file: &str,
    text: Option<&str>,
    needle: &str,
    raw: &[schema::RawCorps],
) -> Vec<CorpsSpec> {
    raw.iter()
        .map(|c| {
            let divisions = c
                .divisions
                .iter()
                .filter_map(|d| {
                    let arm = Arm::parse(d);
                    if arm.is_none() {
                        pr.at(
                            file,
                            text,
                            needle,
                            format!("corps {}: division '{d}' is not inf, cav or art", c.number),
                        );
                    }
                    arm
                })
                .collect();
            let arrives = c.arrives.as_deref().and_then(|t| {
                let turn = Turn::parse(t);
                if turn.is_none() {
                    pr.at(
                        file,
                        text,
                        needle,
                        format!("corps {}: arrives '{t}' is not a turn like 1807-spring", c.number),
                    );
                }
                turn
            });
            CorpsSpec {
                number: c.number,
                at: c.at.clone(),
                divisions,
                arrives,
            }
        })
        .collect()
}
