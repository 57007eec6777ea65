//! Raw TOML schema of a scenario directory, exactly as written on disk.
//!
//! These types only describe the files; [`super::Scenario::load`] checks
//! every reference and turns them into the domain types of `map` and
//! `scenario`. A scenario directory holds:
//!
//! | file | what |
//! |---|---|
//! | `scenario.toml` | id, name, calendar, provenance notes |
//! | `provinces.toml` | `[[province]]` land areas |
//! | `seas.toml` | `[[sea]]` sea zones |
//! | `arrows.toml` | `[[arrow]]` crossing arrows (12.2.1) |
//! | `powers.toml` | `[[power]]` the seven major powers' mats |
//! | `minors.toml` | `[[minor]]` minor powers and their forces (3.41–3.46) |
//! | `tables/*.toml` | rules tables, one file each (see `scenario::tables`) |

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    /// First turn, e.g. `1805-fall` (3.6).
    pub start: String,
    /// Last turn, e.g. `1815-fall` (1.2).
    pub end: String,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvincesFile {
    /// Default provenance for every province without its own `source`.
    pub source: String,
    /// Provenance of the positions and polygons (map pictures only).
    pub geometry_source: Option<String>,
    #[serde(default)]
    pub province: Vec<RawProvince>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProvince {
    pub id: String,
    /// Longitude and latitude of the historical centre, in degrees.
    pub pos: Option<[f64; 2]>,
    /// The border, `[lon, lat]` points; without it the picture draws the
    /// province's Voronoi cell.
    pub polygon: Option<Vec<[f64; 2]>>,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    pub econ: u32,
    pub pol: u32,
    /// VP awarded once to a power that takes control of the province from
    /// another (2.5 "Gibraltar is worth 10 VPs", read as a capture award).
    #[serde(default)]
    pub capture_vp: u32,
    pub garrison: u32,
    /// home | minor | minor_power | loyal_minor | remapable_home (2.12 a–e)
    pub kind: String,
    /// A major power id, a minor power id, or `none`.
    pub owner: String,
    #[serde(default)]
    pub capital: bool,
    #[serde(default)]
    pub white: bool,
    /// Sea zones the province borders (it is coastal when not empty).
    #[serde(default)]
    pub seas: Vec<String>,
    /// Has a port where squadrons may be based and built.
    #[serde(default)]
    pub port: bool,
    /// 2.71: counts double when tracing a line of communication (Spain,
    /// Portugal, Russia, the Ottoman Empire and Africa).
    #[serde(default)]
    pub double_loc: bool,
    /// The Loyal Minor Power this province joins when remapped (3.42).
    pub loyal: Option<String>,
    /// Region for display and grouping, e.g. `germany`, `italy`.
    pub region: String,
    #[serde(default)]
    pub adjacent: Vec<String>,
    pub source: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeasFile {
    pub source: String,
    /// Provenance of the positions and water points (map pictures only).
    pub geometry_source: Option<String>,
    #[serde(default)]
    pub sea: Vec<RawSea>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSea {
    pub id: String,
    /// Longitude and latitude where the zone's name is drawn.
    pub pos: Option<[f64; 2]>,
    /// More points of open water in the zone; with the positions they
    /// draw the coasts.
    #[serde(default)]
    pub water: Vec<[f64; 2]>,
    /// The zone's outline, `[lon, lat]` points (optional).
    pub polygon: Option<Vec<[f64; 2]>>,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// 4.242: provinces on this sea are ports of trade with Britain.
    #[serde(default)]
    pub trade: bool,
    /// 12.2.7.1 (second numbering): an area off the board (the Canaries,
    /// the Mid-Atlantic, the West Indies), used only under the EiA naval
    /// option; it has no position and is not drawn.
    #[serde(default)]
    pub off_board: Option<crate::map::OffBoard>,
    #[serde(default)]
    pub adjacent: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrowsFile {
    pub source: String,
    #[serde(default)]
    pub arrow: Vec<RawArrow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawArrow {
    pub from: String,
    pub to: String,
    pub sea: String,
    /// 12.2.1: 1 (single arrow) or 2 (double arrow).
    #[serde(rename = "type")]
    pub kind: u8,
    pub source: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PowersFile {
    pub source: String,
    #[serde(default)]
    pub power: Vec<RawPower>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPower {
    pub id: String,
    pub capital: String,
    /// 7.1: the national victory goal.
    pub vp_goal: u32,
    /// Starting Gold (3.2).
    pub gold: i64,
    /// List costs on the player mat (6.0).
    pub costs: RawCosts,
    /// Divisions and squadrons in the force pool at start (not on the map).
    pub pool: RawPool,
    /// Provinces outside the home country controlled at start (2.5), each
    /// holding a garrison division of this power.
    #[serde(default)]
    pub garrisons: Vec<String>,
    #[serde(default)]
    pub corps: Vec<RawCorps>,
    #[serde(default)]
    pub squadron: Vec<RawSquadron>,
    #[serde(default)]
    pub commander: Vec<RawCommander>,
    pub source: Option<String>,
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub struct RawCosts {
    pub infantry: u32,
    pub cavalry: u32,
    pub artillery: u32,
    pub squadron: u32,
}

#[derive(Debug, Deserialize, Clone, Copy, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPool {
    #[serde(default)]
    pub infantry: u32,
    #[serde(default)]
    pub cavalry: u32,
    #[serde(default)]
    pub artillery: u32,
    #[serde(default)]
    pub squadrons: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCorps {
    pub number: u32,
    /// Province where the corps starts; absent for a corps that arrives
    /// later or starts off the map (3.46).
    pub at: Option<String>,
    /// Arms of the divisions in its boxes: `inf`, `cav`, `art`.
    #[serde(default)]
    pub divisions: Vec<String>,
    /// Turn when it arrives, e.g. `1807-spring` (reinforcement, 3.3).
    pub arrives: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSquadron {
    pub number: u32,
    /// Port province where it starts.
    pub at: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCommander {
    pub name: String,
    pub rating: u8,
    /// Province where he starts (with the corps there).
    pub at: Option<String>,
    /// Turn he appears in the Build Phase (2.5: Wellington, 1807-spring).
    pub arrives: Option<String>,
    /// A commander who arrives is placed with this power's capital unless
    /// `at` is given.
    #[serde(default)]
    pub primary: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinorsFile {
    pub source: String,
    #[serde(default)]
    pub minor: Vec<RawMinor>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMinor {
    pub id: String,
    pub name: String,
    pub adjective: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// minor_power (3.41), minor_province_forces (Holland, Bavaria, Saxony)
    /// or loyal (3.42: Poland, Italy, Rhine, formed by an event).
    pub kind: String,
    /// A major power that controls its forces at start (3.45: Portugal).
    pub controller: Option<String>,
    /// List costs of its units when a conqueror builds them.
    pub costs: Option<RawCosts>,
    #[serde(default)]
    pub pool: RawPool,
    #[serde(default)]
    pub corps: Vec<RawCorps>,
    #[serde(default)]
    pub squadron: Vec<RawSquadron>,
    /// Garrisons of conquest at start (2.5: the Swedish division in Finland).
    #[serde(default)]
    pub garrisons: Vec<String>,
    pub source: Option<String>,
}
