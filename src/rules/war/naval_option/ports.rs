//! Naval distances and the ports a power may use (EiA option `naval`).
//!
//! Distances in naval movement points, EiA style: the costs of a port to
//! its blockade box, a box to its sea zone and one zone to the next are
//! `[distance]` in `tables/naval_option.toml` (rules-notes §2.4: 0, 1, 1).
//! La Guerre has no boxes, so a port's box is its side of each zone it
//! borders: with the shipped costs two ports on one zone are 2 apart (port,
//! box, zone, box, port), a port one zone further is 3. 12.2.9.3 ("more
//! than two naval movement points") and 12.2.6.1.9.1 (a disabled ship's way
//! home) read these distances.

use crate::rules::war::control::friendly;
use crate::scenario::Scenario;
use crate::state::State;
use std::collections::BTreeMap;

/// Where a distance is measured from: a port (its box) or a sea zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum From<'a> {
    Port(&'a str),
    Sea(&'a str),
}

/// Naval movement points from `from` into the port of `to` (None when no
/// sea route joins them).
pub fn distance(scenario: &Scenario, from: &From<'_>, to: &str) -> Option<u32> {
    Reach::new(scenario, from)?.to(scenario, to)
}

/// The sea-zone steps out of `from`, computed once for every port asked.
struct Reach<'a> {
    from: &'a From<'a>,
    steps: BTreeMap<String, u32>,
    /// Points spent before the first zone (out of the port and its box).
    base: u32,
}

impl<'a> Reach<'a> {
    fn new(scenario: &Scenario, from: &'a From<'a>) -> Option<Reach<'a>> {
        let c = scenario.tables.naval_option.distance;
        let (start, base): (Vec<&str>, u32) = match from {
            // out of the port into its box, and from the box into a zone
            From::Port(p) => (
                scenario.map.province(p)?.seas.iter().map(String::as_str).collect(),
                c.port_to_box + c.box_to_zone,
            ),
            From::Sea(z) => (vec![*z], 0),
        };
        Some(Reach {
            from,
            steps: scenario.map.sea_steps(&start),
            base,
        })
    }

    /// Into the port of `to`: from one of its zones into its box, and
    /// into the port.
    fn to(&self, scenario: &Scenario, to: &str) -> Option<u32> {
        if *self.from == From::Port(to) {
            return Some(0);
        }
        let c = scenario.tables.naval_option.distance;
        scenario
            .map
            .province(to)?
            .seas
            .iter()
            .filter_map(|z| self.steps.get(z))
            .min()
            .map(|d| self.base + d * c.zone_to_zone + c.box_to_zone + c.port_to_box)
    }
}

/// Whether `power` may use the port of `port`: it is friendly ground
/// (its own, conquered or allied control) and its holder has not denied
/// `power` access by standing order (12.2.9.3 "a port of an ally willing
/// to grant access", EiA 6.3.1.3; 12.2.6.1.9.1 "by permission", 12.2.8.3,
/// 12.2.8.4).
pub fn usable(state: &State, power: crate::ids::PowerId, port: &str) -> bool {
    friendly(state, power, port) && !denied(state, power, port)
}

/// 12.2.6.3.1, 12.2.9.3 (EiA 6.3.1.3): has the power commanding `port`
/// denied `power` access to its ports (`STANDING PORTS CLOSED TO`)?
pub fn denied(state: &State, power: crate::ids::PowerId, port: &str) -> bool {
    state
        .provinces
        .get(port)
        .and_then(|ps| ps.controller.as_ref())
        .and_then(|n| state.commanding_power(n))
        .is_some_and(|holder| crate::rules::war::standing::denies_access(state, holder, power))
}

/// 12.2.6.1.9.1: "A side possessing disabled ships must immediately
/// choose a port": the first port of `power`'s standing order
/// (`STANDING DISABLED TO`) that it may use and a sea route from `from`
/// reaches, else the nearest usable port. With its distance, and what
/// decided.
pub fn disabled_port(
    scenario: &Scenario,
    state: &State,
    power: crate::ids::PowerId,
    from: &From<'_>,
) -> Option<(String, u32, crate::rules::war::standing::Decided)> {
    use crate::rules::war::standing::{self, Decided};
    let wanted = standing::disabled_ports(state, power);
    if !wanted.is_empty() {
        let reach = Reach::new(scenario, from)?;
        for p in &wanted {
            if usable(state, power, p)
                && let Some(d) = reach.to(scenario, p)
            {
                return Some((
                    p.clone(),
                    d,
                    Decided::Standing(format!("disabled ships to {}", wanted.join(", "))),
                ));
            }
        }
    }
    let (p, d) = nearest_friendly_port(scenario, state, power, from)?;
    let why = if wanted.is_empty() {
        Decided::Default("the nearest usable port".into())
    } else {
        Decided::Standing(format!(
            "disabled ships to {}: none usable or in reach, so the nearest usable port",
            wanted.join(", ")
        ))
    };
    Some((p, d, why))
}

/// The nearest port `power` may use (its own, conquered or allied
/// control, its holder not denying access; 12.2.6.1.9.1, 12.2.9.3), with
/// its distance; ties by id.
pub fn nearest_friendly_port(
    scenario: &Scenario,
    state: &State,
    power: crate::ids::PowerId,
    from: &From<'_>,
) -> Option<(String, u32)> {
    let reach = Reach::new(scenario, from)?;
    scenario
        .map
        .provinces
        .iter()
        .filter(|p| p.port && usable(state, power, &p.id))
        .filter_map(|p| reach.to(scenario, &p.id).map(|d| (d, p.id.clone())))
        .min()
        .map(|(d, id)| (id, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_box_zone_and_box() {
        let s = Scenario::embedded("1805").unwrap();
        // Brittany and Normandy both border the British Isles zone? Use
        // two ports on one zone, found from the map itself.
        let z = &s.map.seas[0].id;
        let on: Vec<&str> = s
            .map
            .provinces
            .iter()
            .filter(|p| p.port && p.seas.iter().any(|x| x == z))
            .map(|p| p.id.as_str())
            .collect();
        assert!(on.len() >= 2, "two ports on {z}");
        assert_eq!(distance(&s, &From::Port(on[0]), on[0]), Some(0));
        assert_eq!(distance(&s, &From::Port(on[0]), on[1]), Some(2));
        assert_eq!(distance(&s, &From::Sea(z), on[1]), Some(1));
        // a zone next door: one more
        let next = &s.map.seas[0].adjacent[0];
        let far = s
            .map
            .provinces
            .iter()
            .find(|p| p.port && p.seas.iter().any(|x| x == next) && !p.seas.iter().any(|x| x == z))
            .unwrap();
        assert_eq!(distance(&s, &From::Sea(z), &far.id), Some(2));
        assert_eq!(distance(&s, &From::Port(on[0]), &far.id), Some(3));
        assert_eq!(distance(&s, &From::Port(on[0]), "no-such"), None);
    }
}
