//! Typed table of the EiA political option (seed 004, 11.x):
//! `tables/political.toml`, read by `rules::political`.
//!
//! The seed gives each kingdom's conditions; this table says which map
//! provinces its named minor countries and provinces are, and carries the
//! numbers the seed takes from Empires in Arms ideas La Guerre lacks
//! (political points, the doubled money of a minor free state, movement
//! allowances, morale), each with its provenance in the file. The top
//! level accepts keys it does not know, so the dominant-power sections
//! (11.8, 11.9) can live in the same file.

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};

/// `tables/political.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct PoliticalTable {
    pub source: String,
    /// Victory Points per EiA political point.
    pub vp_per_pp: i64,
    /// 8.2.3: a minor free state's money is multiplied by this.
    pub free_state_multiplier: i64,
    /// 11.2.2.1, 11.3.2.1, 11.4.2, 11.5.2.1: extra movement allowance of
    /// a French-controlled kingdom's corps.
    pub french_corps_allowance_bonus: u32,
    /// 11.6.2.1: battle modifier of Ottoman Empire corps under Turkey.
    pub ottoman_morale_modifier: i32,
    #[serde(rename = "kingdom")]
    pub kingdoms: Vec<KingdomDef>,
}

/// One kingdom of 11.1–11.7.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct KingdomDef {
    pub id: String,
    /// Its section of the seed (`11.1`).
    pub rule: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The major powers that may create it (empty: any, for Poland; no
    /// creation at all for the Two Sicilies, see `rules::political`).
    #[serde(default)]
    pub creators: Vec<PowerId>,
    /// Its capital province, where the seed names one.
    #[serde(default)]
    pub capital: Option<String>,
    pub components: Vec<ComponentDef>,
    /// La Guerre minor powers whose units are the kingdom's.
    #[serde(default)]
    pub nations: Vec<String>,
    /// A nation of `nations` whose factors serve the kingdom only while
    /// this component is one of its parts (11.5.2.3 errata: "If Hanover
    /// and/or Bavaria are not part of the Confederation of the Rhine,
    /// their army factors are not available").
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub needs: std::collections::BTreeMap<String, String>,
    /// Political points to its creator.
    #[serde(default)]
    pub pp_create: i64,
    /// Political points to whoever conquers it (Poland, Bavaria).
    #[serde(default)]
    pub pp_conquer: i64,
    /// Political points its controller loses when it is conquered
    /// (Poland: or ceded).
    #[serde(default)]
    pub pp_lose: i64,
    /// Political points its controller loses when it cedes it (Bavaria).
    #[serde(default)]
    pub pp_cede: i64,
    /// Which minor's infantry may garrison which component (11.1.2,
    /// 11.2.2, 11.3.2.3, 11.4.2, 11.5.2.3, 11.6.2; house rows).
    #[serde(default, rename = "garrison")]
    pub garrisons: Vec<GarrisonDef>,
    /// The kingdom's counters the La Guerre map lacks (the Lombard and
    /// Venetian corps and the Venetia fleet, 11.2.2.1, 11.2.2.2; the
    /// Hanover and Hesse corps, 11.3.2.1; the Hanover, Hesse, Baden and
    /// Württemberg corps, 11.5.2.1; house rows): they enter play when the
    /// kingdom is created.
    #[serde(default, rename = "counter")]
    pub counters: Vec<CounterDef>,
}

/// What a kingdom's counter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CounterKind {
    /// A corps counter: placed empty and off the map; it enters the map
    /// in `home` when its controller first builds into it (as the
    /// Bavarian corps, 3.46).
    Corps,
    /// A squadron: placed in the port of `home`, available only to the
    /// kingdom's controller (11.2.2.2).
    Squadron,
}

/// One counter a kingdom brings into play on its creation.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CounterDef {
    /// The seed section the row maps.
    pub rule: String,
    pub kind: CounterKind,
    /// The La Guerre minor power whose counter it is.
    pub nation: String,
    pub number: u32,
    /// The component it enters play in.
    pub home: String,
    /// The seed's name for it ("Hesse corps"): what players read in
    /// reports and views ([`crate::state::UnitKey::name`]); the order
    /// handle (`Rhenish corps 2`) and the state's keys stay the nation's.
    /// Older copies of the table called it `seed` and wrote it with "the".
    #[serde(alias = "seed")]
    pub name: String,
}

/// One row of a kingdom's garrisons: infantry of the minor `nation` may
/// garrison `provinces` (every component when empty) while `needs` is
/// still a component of the kingdom.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GarrisonDef {
    /// The seed section the row maps.
    pub rule: String,
    pub nation: String,
    #[serde(default)]
    pub provinces: Vec<String>,
    #[serde(default)]
    pub needs: Option<String>,
}

/// A component of a kingdom: a map province.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentDef {
    pub id: String,
    /// The seed's name where the map's differs.
    #[serde(default)]
    pub seed: Option<String>,
    /// A minor country with corps (11.2.3, 11.3.3, 11.5.3, 11.6.3).
    #[serde(default)]
    pub corps: bool,
    /// 11.7.1: the district whose controller commands the kingdom's
    /// squadrons while the districts are under different major powers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fleet: bool,
}

impl PoliticalTable {
    pub fn kingdom(&self, id: &str) -> Option<&KingdomDef> {
        self.kingdoms.iter().find(|k| k.id == id)
    }

    /// The kingdom a name means: its id, name or an alias (any case).
    pub fn find(&self, name: &str) -> Option<&KingdomDef> {
        let n = name.trim().to_lowercase();
        self.kingdoms
            .iter()
            .find(|k| k.id == n || k.name.to_lowercase() == n || k.aliases.iter().any(|a| a.to_lowercase() == n))
    }
}

impl PoliticalTable {
    /// The first counter row, of any kingdom, for a counter of `kind` of
    /// the minor `nation` numbered `number`.
    pub fn counter(&self, kind: CounterKind, nation: &str, number: u32) -> Option<&CounterDef> {
        self.kingdoms.iter().find_map(|k| k.counter(kind, nation, number))
    }

    /// What is wrong inside the table, one sentence a problem: a garrison
    /// or counter row naming a province that is not a component of its
    /// kingdom, or a nation the kingdom does not pay for, and a counter
    /// that two rows give different homes or names. `minor` says whether
    /// a minor power exists (the scenario's `minors.toml`). Which map
    /// provinces exist is the map's to say: a test map borrowing the 1805
    /// tables simply lacks some kingdoms.
    pub fn problems(&self, minor: impl Fn(&str) -> bool) -> Vec<String> {
        let mut v = Vec::new();
        for k in &self.kingdoms {
            let mut no = |what: String| v.push(format!("kingdom '{}': {what}", k.id));
            for n in k.nations.iter().filter(|n| !minor(n)) {
                no(format!("no minor power '{n}'"));
            }
            for (n, p) in &k.needs {
                if !k.nations.contains(n) {
                    no(format!("needs: '{n}' is not one of its nations"));
                }
                if !k.has(p) {
                    no(format!("needs: '{p}' is not a component"));
                }
            }
            for g in &k.garrisons {
                if !minor(&g.nation) {
                    no(format!("garrison row {}: no minor power '{}'", g.rule, g.nation));
                }
                for p in g.provinces.iter().chain(&g.needs).filter(|p| !k.has(p)) {
                    no(format!("garrison row {}: '{p}' is not a component", g.rule));
                }
            }
            for c in &k.counters {
                if !k.nations.contains(&c.nation) {
                    no(format!(
                        "counter '{}': '{}' is not one of its nations",
                        c.name, c.nation
                    ));
                }
                if !k.has(&c.home) {
                    no(format!("counter '{}': home '{}' is not a component", c.name, c.home));
                }
                if let Some(first) = self.counter(c.kind, &c.nation, c.number)
                    && (first.home != c.home || first.name != c.name)
                {
                    no(format!(
                        "counter '{}' ({} {}) is '{}' in {} elsewhere",
                        c.name, c.nation, c.number, first.name, first.home
                    ));
                }
            }
        }
        v
    }
}

impl KingdomDef {
    /// Whether the minor `nation`'s factors serve this kingdom while it
    /// has `components` (its `nations`, less one whose `needs` component
    /// it has lost: 11.5.2.3 errata).
    pub fn serves(&self, nation: &str, components: &std::collections::BTreeSet<String>) -> bool {
        self.nations.iter().any(|n| n == nation) && self.needs.get(nation).is_none_or(|p| components.contains(p))
    }

    /// This kingdom's row for a counter of `kind` of `nation` number `number`.
    pub fn counter(&self, kind: CounterKind, nation: &str, number: u32) -> Option<&CounterDef> {
        self.counters
            .iter()
            .find(|r| r.kind == kind && r.nation == nation && r.number == number)
    }

    pub fn has(&self, province: &str) -> bool {
        self.components.iter().any(|c| c.id == province)
    }

    pub fn with_corps(&self, province: &str) -> bool {
        self.components.iter().any(|c| c.id == province && c.corps)
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    /// A map without a kingdom's provinces (a test map borrowing the 1805
    /// tables) simply has no such kingdom; the shipped map has them all.
    #[test]
    fn every_component_is_a_province_of_the_1805_map() {
        let s = Scenario::embedded("1805").unwrap();
        for k in &s.tables.political.kingdoms {
            for c in k.components.iter().map(|c| &c.id).chain(&k.capital) {
                assert!(s.map.province(c).is_some(), "kingdom {}: no province {c}", k.id);
            }
            for c in k.counters.iter().filter(|c| c.kind == super::CounterKind::Squadron) {
                assert!(
                    s.map.province(&c.home).is_some_and(|p| p.port),
                    "kingdom {} fleet: {} has no port",
                    k.id,
                    c.home
                );
            }
        }
        assert_eq!(
            s.tables.political.problems(|m| s.minors.contains_key(m)),
            Vec::<String>::new()
        );
        assert_eq!(
            s.tables.political.find("Kingdom of Italy").map(|k| k.id.as_str()),
            Some("italy")
        );
        assert_eq!(
            s.tables.political.find("the Ottoman Empire").map(|k| k.id.as_str()),
            Some("ottoman")
        );
        assert!(s.tables.political.find("Atlantis").is_none());
    }

    /// A row naming a province outside its kingdom, a nation it does not
    /// pay for, or a counter two rows describe differently is a problem
    /// `scenario check` names.
    #[test]
    fn bad_rows_are_named() {
        let s = Scenario::embedded("1805").unwrap();
        let mut t = s.tables.political.clone();
        let rhine = t.kingdoms.iter_mut().find(|k| k.id == "rhine").unwrap();
        rhine.garrisons[0].provinces.push("picardy".into());
        rhine.counters[2].home = "silesia".into();
        let w = t.kingdoms.iter_mut().find(|k| k.id == "westphalia").unwrap();
        w.counters[0].name = "Hannover corps".into();
        w.nations.push("atlantis".into());
        let problems = t.problems(|m| s.minors.contains_key(m));
        for needle in [
            "kingdom 'rhine': garrison row 11.5.2.3: 'picardy' is not a component",
            "kingdom 'rhine': counter 'Baden corps': home 'silesia' is not a component",
            "kingdom 'westphalia': no minor power 'atlantis'",
            "kingdom 'rhine': counter 'Hanover corps' (rhine 1) is 'Hannover corps' in hanover elsewhere",
        ] {
            assert!(problems.iter().any(|p| p == needle), "{needle} not in {problems:#?}");
        }
    }

    /// The seed's names that the map spells otherwise resolve to the
    /// province the table reads them as: Salzburg is the capital of the
    /// Tyrol district (11.4.3), not a town of Styria; Munich is Bavaria
    /// (11.4.3), Warsaw Masovia (11.1.1), the Duchies Thuringia (11.5.1).
    #[test]
    fn the_seeds_names_resolve_to_the_tables_provinces() {
        let s = Scenario::embedded("1805").unwrap();
        for (name, id) in [
            ("Salzburg", "tyrol"),
            ("Munich", "bavaria"),
            ("Warsaw", "masovia"),
            ("Duchies", "thuringia"),
        ] {
            assert_eq!(
                s.map.resolve_province(name).map(|p| p.id.as_str()).ok(),
                Some(id),
                "{name}"
            );
        }
        assert!(
            !s.map
                .province("styria")
                .unwrap()
                .aliases
                .iter()
                .any(|a| a == "Salzburg")
        );
    }
}
