//! Balance calibration: play seeded campaigns in process, with a policy
//! for every power, and count who wins, when, and where their VP came
//! from. Used by `empereur balance` and the dice-purpose property test.
//! Pure: the scenario and seeds come in, a report comes out.

use super::{SeededDice, generate};
use crate::ids::{PowerId, Turn};
use crate::rules::outcome::VpSource;
use crate::rules::{self, Kind, Outcome, PhaseOrders};
use crate::scenario::Scenario;
use crate::state::State;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// How the simulated powers give orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Nobody orders anything: the defaults of every phase only
    /// (peaceful accrual, 4.23).
    Passive,
    /// Every power orders what the autoplay generator proposes.
    Active,
    /// Each power is active or passive, chosen per campaign from its seed.
    Mixed,
}

impl Policy {
    pub fn id(self) -> &'static str {
        match self {
            Policy::Passive => "passive",
            Policy::Active => "active",
            Policy::Mixed => "mixed",
        }
    }
}

/// Where a power's VP came from, summed over a campaign.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct VpSources {
    /// 4.23: political values of controlled provinces.
    pub land: f64,
    /// 4.25: Gold turned into VP.
    pub purchase: f64,
    /// 5.6: battle results.
    pub battles: f64,
    /// 4.256, 4.257: the Continental System (Britain's losses).
    pub embargo: f64,
    /// Everything else: events, surrender terms, diplomacy, captures, bid.
    pub other: f64,
}

impl VpSources {
    fn add(&mut self, o: &Outcome, vp: i64) {
        let v = vp as f64;
        match o.vp_source() {
            VpSource::Land => self.land += v,
            VpSource::Purchase => self.purchase += v,
            VpSource::Battles => self.battles += v,
            VpSource::Embargo => self.embargo += v,
            VpSource::Other => self.other += v,
        }
    }
    fn scaled(self, by: f64) -> VpSources {
        VpSources {
            land: self.land * by,
            purchase: self.purchase * by,
            battles: self.battles * by,
            embargo: self.embargo * by,
            other: self.other * by,
        }
    }
    fn plus(self, o: VpSources) -> VpSources {
        VpSources {
            land: self.land + o.land,
            purchase: self.purchase + o.purchase,
            battles: self.battles + o.battles,
            embargo: self.embargo + o.embargo,
            other: self.other + o.other,
        }
    }
}

/// How one campaign ended.
#[derive(Clone, Debug, Serialize)]
pub struct Campaign {
    pub seed: u64,
    /// The winner (`over` names a power), if any.
    pub winner: Option<PowerId>,
    /// Whether the winner reached its goal (7.1) rather than leading on
    /// points after the last turn.
    pub by_goal: bool,
    /// The turn the campaign ended in.
    pub ended: Turn,
    /// The phase that could not be resolved, and why (a defect).
    pub stuck: Option<String>,
    pub vp: BTreeMap<PowerId, VpSources>,
    pub final_vp: BTreeMap<PowerId, i64>,
    /// Phases resolved.
    pub phases: u32,
}

/// A power's order stream for one phase under `policy`.
fn orders(scenario: &Scenario, state: &State, active: &BTreeSet<PowerId>, seed: u64) -> PhaseOrders {
    let mut o = PhaseOrders::new();
    let roles = rules::roles(scenario, state);
    let mut powers: Vec<PowerId> = roles.must.iter().chain(roles.may.iter()).copied().collect();
    powers.sort();
    powers.dedup();
    for p in powers.into_iter().filter(|p| active.contains(p)) {
        let lines = generate(scenario, state, p, seed ^ (p as u64).wrapping_mul(0x9E37_79B9));
        if !lines.is_empty() {
            o.insert(p, lines);
        }
    }
    o
}

/// The powers a policy makes active in the campaign of `seed`.
pub fn active_powers(policy: Policy, seed: u64) -> BTreeSet<PowerId> {
    match policy {
        Policy::Passive => BTreeSet::new(),
        Policy::Active => PowerId::ALL.into_iter().collect(),
        Policy::Mixed => {
            let mut rng = super::Rng::new(seed ^ 0x005E_ED0F_BA1A);
            PowerId::ALL.into_iter().filter(|_| rng.below(2) == 1).collect()
        }
    }
}

/// Play one campaign from the scenario's set-up to its end (or to a
/// phase the engine refuses, reported as `stuck`). At most `max_phases`.
pub fn play(scenario: &Scenario, policy: Policy, seed: u64, max_phases: u32) -> Campaign {
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut state = State::initial(scenario, &format!("balance-{seed}"), &players, BTreeSet::new());
    let active = active_powers(policy, seed);
    let mut c = Campaign {
        seed,
        winner: None,
        by_goal: false,
        ended: state.turn(),
        stuck: None,
        vp: BTreeMap::new(),
        final_vp: BTreeMap::new(),
        phases: 0,
    };
    while state.over.is_none() && c.phases < max_phases {
        let i = u64::from(c.phases);
        let o = orders(scenario, &state, &active, seed.wrapping_mul(1_000_003).wrapping_add(i));
        let mut dice = SeededDice::new(seed ^ (i << 24) ^ 0xD1CE);
        match rules::resolve(scenario, &state, &o, &mut dice) {
            Ok(r) => {
                for out in &r.outcomes {
                    for (p, v) in &out.vp {
                        c.vp.entry(*p).or_default().add(out, *v);
                    }
                    if out.kind == Kind::Victory {
                        c.by_goal = true;
                    }
                }
                if r.state.phase == state.phase && r.state.over.is_none() {
                    c.stuck = Some(format!("{}: the phase did not advance", state.phase));
                    break;
                }
                c.ended = state.turn();
                state = r.state;
                c.phases += 1;
            }
            Err(e) => {
                c.stuck = Some(format!("{}: {e}", state.phase));
                break;
            }
        }
    }
    c.winner = state.over.as_deref().and_then(PowerId::parse);
    c.final_vp = PowerId::ALL.into_iter().map(|p| (p, state.power(p).vp)).collect();
    c
}

/// Per-power figures over many campaigns.
#[derive(Clone, Debug, Serialize)]
pub struct PowerLine {
    pub power: PowerId,
    pub wins: u32,
    /// Wins by reaching the goal (7.1), a subset of `wins`.
    pub goal_wins: u32,
    pub share: f64,
    pub median_win: Option<String>,
    pub earliest_win: Option<String>,
    pub mean_vp: VpSources,
    pub mean_final_vp: f64,
    pub goal: u32,
}

/// The report of `empereur balance`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub policy: Policy,
    pub campaigns: u32,
    pub first_seed: u64,
    pub powers: Vec<PowerLine>,
    pub draws: u32,
    pub stuck: Vec<String>,
    /// Median and earliest season of any win by goal (7.1).
    pub median_goal_win: Option<String>,
    pub earliest_goal_win: Option<String>,
}

/// The lower median, in calendar order (1.2: the Winterphase opens the
/// year, before Spring: `Turn`'s own order).
fn median(mut v: Vec<Turn>) -> Option<Turn> {
    v.sort();
    v.get(v.len().saturating_sub(1) / 2).copied()
}

/// Play `n` campaigns with seeds `first_seed..first_seed + n` and sum up.
pub fn run(scenario: &Scenario, name: &str, policy: Policy, n: u32, first_seed: u64) -> Report {
    let campaigns: Vec<Campaign> = (0..u64::from(n))
        .map(|i| play(scenario, policy, first_seed + i, 2_000))
        .collect();
    summarize(scenario, name, policy, first_seed, &campaigns)
}

/// Sum up played campaigns.
pub fn summarize(scenario: &Scenario, name: &str, policy: Policy, first_seed: u64, cs: &[Campaign]) -> Report {
    let n = cs.len().max(1) as f64;
    let mut powers = Vec::new();
    let mut goal_turns = Vec::new();
    for p in PowerId::ALL {
        let won: Vec<&Campaign> = cs.iter().filter(|c| c.winner == Some(p)).collect();
        let turns: Vec<Turn> = won.iter().map(|c| c.ended).collect();
        goal_turns.extend(won.iter().filter(|c| c.by_goal).map(|c| c.ended));
        let mean_vp = cs
            .iter()
            .map(|c| c.vp.get(&p).copied().unwrap_or_default())
            .fold(VpSources::default(), VpSources::plus)
            .scaled(1.0 / n);
        powers.push(PowerLine {
            power: p,
            wins: won.len() as u32,
            goal_wins: won.iter().filter(|c| c.by_goal).count() as u32,
            share: won.len() as f64 / n,
            median_win: median(turns.clone()).map(|t| t.to_string()),
            earliest_win: turns.iter().min().map(|t| t.to_string()),
            mean_vp,
            mean_final_vp: cs
                .iter()
                .map(|c| c.final_vp.get(&p).copied().unwrap_or(0) as f64)
                .sum::<f64>()
                / n,
            goal: scenario.power(p).vp_goal,
        });
    }
    Report {
        scenario: name.to_string(),
        policy,
        campaigns: cs.len() as u32,
        first_seed,
        powers,
        draws: cs.iter().filter(|c| c.winner.is_none() && c.stuck.is_none()).count() as u32,
        stuck: cs
            .iter()
            .filter_map(|c| c.stuck.as_ref().map(|s| format!("seed {}: {s}", c.seed)))
            .collect(),
        median_goal_win: median(goal_turns.clone()).map(|t| t.to_string()),
        earliest_goal_win: goal_turns.iter().min().map(|t| t.to_string()),
    }
}

impl Report {
    /// The table `empereur balance` prints.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "balance: scenario {}, {} campaigns, policy {}, seeds {}..{}\n\n",
            self.scenario,
            self.campaigns,
            self.policy.id(),
            self.first_seed,
            self.first_seed + u64::from(self.campaigns)
        );
        s.push_str(
            "power           goal  wins  share  by goal  median win   earliest win | mean VP: land purchase battles embargo  other | final VP\n",
        );
        for l in &self.powers {
            s.push_str(&format!(
                "{:<14} {:>5} {:>5} {:>5.1}% {:>8}  {:<12} {:<12} | {:>14.1} {:>8.1} {:>7.1} {:>7.1} {:>6.1} | {:>8.1}\n",
                l.power.name(),
                l.goal,
                l.wins,
                l.share * 100.0,
                l.goal_wins,
                l.median_win.as_deref().unwrap_or("-"),
                l.earliest_win.as_deref().unwrap_or("-"),
                l.mean_vp.land,
                l.mean_vp.purchase,
                l.mean_vp.battles,
                l.mean_vp.embargo,
                l.mean_vp.other,
                l.mean_final_vp
            ));
        }
        s.push_str(&format!(
            "\ndraws: {}; wins by goal (7.1): median {}, earliest {}\n",
            self.draws,
            self.median_goal_win.as_deref().unwrap_or("-"),
            self.earliest_goal_win.as_deref().unwrap_or("-")
        ));
        if !self.stuck.is_empty() {
            s.push_str(&format!("campaigns that could not go on: {}\n", self.stuck.len()));
            for x in &self.stuck {
                s.push_str(&format!("  {x}\n"));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn won(seed: u64, by: Option<PowerId>, by_goal: bool, ended: &str, land: f64) -> Campaign {
        let mut vp = BTreeMap::new();
        vp.insert(
            PowerId::France,
            VpSources {
                land,
                purchase: 4.0,
                ..VpSources::default()
            },
        );
        Campaign {
            seed,
            winner: by,
            by_goal,
            ended: Turn::parse(ended).expect("a turn"),
            stuck: None,
            vp,
            final_vp: BTreeMap::from([(PowerId::France, 100 + land as i64)]),
            phases: 10,
        }
    }

    #[test]
    fn wins_are_counted_and_dated_in_calendar_order() {
        let s = Scenario::embedded("1805").expect("1805 loads");
        // the 1812 Winterphase comes before Fall 1812 (1.2), so it is the
        // earliest win and the lower median of the two
        let cs = [
            won(1, Some(PowerId::France), true, "1812-fall", 10.0),
            won(2, Some(PowerId::France), true, "1812-winter", 20.0),
            won(3, None, false, "1815-fall", 30.0),
            Campaign {
                stuck: Some("1806-spring: a purpose asked twice".into()),
                ..won(4, None, false, "1806-spring", 40.0)
            },
        ];
        let r = summarize(&s, "1805", Policy::Active, 1, &cs);
        let france = &r.powers[0];
        assert_eq!(france.power, PowerId::France);
        assert_eq!((france.wins, france.goal_wins), (2, 2));
        assert!((france.share - 0.5).abs() < 1e-9, "2 wins of 4 campaigns");
        assert_eq!(france.earliest_win.as_deref(), Some("1812-winter"));
        assert_eq!(france.median_win.as_deref(), Some("1812-winter"));
        assert!((france.mean_vp.land - 25.0).abs() < 1e-9, "(10 + 20 + 30 + 40) / 4");
        assert!((france.mean_vp.purchase - 4.0).abs() < 1e-9);
        assert!((france.mean_final_vp - 125.0).abs() < 1e-9);
        assert_eq!(france.goal, s.power(PowerId::France).vp_goal);
        assert_eq!(r.powers[1].wins, 0);
        assert_eq!(r.powers[1].median_win, None);
        assert_eq!(r.draws, 1, "the stuck campaign is no draw");
        assert_eq!(r.stuck, vec!["seed 4: 1806-spring: a purpose asked twice".to_string()]);
        assert_eq!(r.earliest_goal_win.as_deref(), Some("1812-winter"));
        assert_eq!(r.median_goal_win.as_deref(), Some("1812-winter"));
        let text = r.to_text();
        assert!(text.contains("campaigns that could not go on: 1"), "{text}");
    }

    #[test]
    fn vp_are_filed_by_source() {
        let mut v = VpSources::default();
        v.add(&Outcome::new("4.23", Kind::VpCollection, "land"), 7);
        v.add(&Outcome::new("4.25", Kind::VpPurchase, "bought"), 3);
        v.add(&Outcome::new("5.6", Kind::BattleResult, "won"), 2);
        v.add(&Outcome::new("4.257", Kind::EmbargoVpLoss, "embargo"), -5);
        v.add(&Outcome::new("5.12", Kind::Surrender, "surrender"), 5);
        assert_eq!(
            v,
            VpSources {
                land: 7.0,
                purchase: 3.0,
                battles: 2.0,
                embargo: -5.0,
                other: 5.0,
            }
        );
    }
}
