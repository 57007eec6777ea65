//! Rules at their edges, on the shipped 1805 scenario: the 4.21 control
//! check in each of its cases, Tax Collection with a province in
//! rebellion (2.25, 4.21), and every war table looked up at each row's
//! first and last total and just outside the table (5.6, 5.7, 5.8).
//! A rule case shows one situation; these walk the boundaries, so a
//! condition weakened by one (`<` for `<=`, a dropped clause) fails here.

use empereur::ids::{Nation, PowerId, Turn};
use empereur::map::Owner;
use empereur::rules::economy;
use empereur::rules::war::{control, surrender};
use empereur::scenario::Scenario;
use empereur::scenario::tables_war::{Row, lookup};
use empereur::state::{EnforcedPeace, Garrison, State};
use std::collections::BTreeSet;

fn setup() -> (Scenario, State) {
    let s = Scenario::embedded("1805").unwrap();
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let st = State::initial(&s, "t", &players, BTreeSet::new());
    (s, st)
}

/// A home province of `p` (not its capital, so no capital rule mixes in).
fn home_of(s: &Scenario, p: PowerId) -> String {
    s.map
        .provinces
        .iter()
        .find(|pr| pr.kind.is_home() && pr.owner == Owner::Major(p) && !pr.capital && pr.econ > 0)
        .map(|pr| pr.id.clone())
        .expect("a home province")
}

fn set(st: &mut State, province: &str, controller: Option<Nation>, garrison: Option<Nation>, rebellion: bool) {
    let ps = st.provinces.get_mut(province).expect("province in the state");
    ps.controller = controller;
    ps.garrison = garrison.map(Garrison::of);
    ps.rebellion = rebellion;
}

const FR: Nation = Nation::Major(PowerId::France);
const AT: Nation = Nation::Major(PowerId::Austria);

#[test]
fn control_4_21_at_home_needs_no_garrison_but_no_rebellion() {
    let (s, mut st) = setup();
    let home = home_of(&s, PowerId::France);
    set(&mut st, &home, Some(FR), None, false);
    assert!(control::controls(&s, &st, PowerId::France, &home));
    assert_eq!(economy::controller(&s, &st, &home), Some(PowerId::France));
    // A rebellion holds it for nobody (2.25).
    set(&mut st, &home, Some(FR), None, true);
    assert!(!control::controls(&s, &st, PowerId::France, &home));
    assert_eq!(economy::controller(&s, &st, &home), None);
    // Another power's marker on it: not France's.
    set(&mut st, &home, Some(AT), None, false);
    assert!(!control::controls(&s, &st, PowerId::France, &home));
    // A foreign garrison takes it, for taxes too.
    set(&mut st, &home, Some(AT), Some(AT), false);
    assert!(!control::controls(&s, &st, PowerId::France, &home));
    assert!(control::controls(&s, &st, PowerId::Austria, &home));
    assert_eq!(economy::controller(&s, &st, &home), Some(PowerId::Austria));
}

#[test]
fn control_4_21_outside_home_needs_its_own_garrison() {
    let (s, mut st) = setup();
    let foreign = home_of(&s, PowerId::Austria);
    // France's marker alone, outside France's home: not controlled.
    set(&mut st, &foreign, Some(FR), None, false);
    assert!(!control::controls(&s, &st, PowerId::France, &foreign));
    // With a French garrison: controlled.
    set(&mut st, &foreign, Some(FR), Some(FR), false);
    assert!(control::controls(&s, &st, PowerId::France, &foreign));
    assert_eq!(economy::controller(&s, &st, &foreign), Some(PowerId::France));
    // Someone else's garrison under France's marker: not France's.
    set(&mut st, &foreign, Some(FR), Some(AT), false);
    assert!(!control::controls(&s, &st, PowerId::France, &foreign));
    // The garrison and a rebellion: the rebels hold it.
    set(&mut st, &foreign, Some(FR), Some(FR), true);
    assert!(!control::controls(&s, &st, PowerId::France, &foreign));
    assert_eq!(economy::controller(&s, &st, &foreign), None);
}

/// France's taxes (4.21) and the outcome explaining them.
fn french_tax(s: &Scenario, st: &State) -> (i64, String) {
    let mut st = st.clone();
    let before = st.power(PowerId::France).gold;
    let mut out = Vec::new();
    economy::tax(s, &mut st, &mut out);
    let o = out
        .iter()
        .find(|o| o.kind == empereur::rules::Kind::Tax && o.summary.starts_with("France"))
        .expect("France's tax outcome");
    (st.power(PowerId::France).gold - before, format!("{o:?}"))
}

#[test]
fn income_4_21_leaves_out_a_province_in_rebellion() {
    let (s, mut st) = setup();
    let home = home_of(&s, PowerId::France);
    let econ = i64::from(s.map.province(&home).unwrap().econ);
    let name = s.map.province(&home).unwrap().name.clone();
    set(&mut st, &home, Some(FR), None, false);
    let (full, why_full) = french_tax(&s, &st);
    assert!(why_full.contains(&format!("{name}: {econ}")), "{why_full}");
    set(&mut st, &home, Some(FR), None, true);
    let (less, why_less) = french_tax(&s, &st);
    assert_eq!(less, full - econ, "the rebels' province pays nothing");
    assert!(!why_less.contains(&format!("{name}: ")), "{why_less}");
    // Nobody else collects it either.
    let mut other = st.clone();
    let mut out = Vec::new();
    economy::tax(&s, &mut other, &mut out);
    assert!(
        out.iter().all(|o| !format!("{o:?}").contains(&format!("{name}: "))),
        "{out:?}"
    );
}

/// Each row of `rows` at its first and last total, the totals between
/// rows, below the table (nothing) and above it (the last row).
fn walk(table: &str, rows: &[Row]) {
    assert!(!rows.is_empty(), "{table} has rows");
    for r in rows {
        for total in [r.from, r.to] {
            let (v, row) = lookup(rows, total);
            assert_eq!(v, r.value, "{table}: total {total} reads row {}..{}", r.from, r.to);
            assert_eq!(
                row.map(|x| (x.from, x.to)),
                Some((r.from, r.to)),
                "{table}: total {total}"
            );
        }
    }
    let first = rows.iter().map(|r| r.from).min().unwrap();
    let top = rows.iter().max_by_key(|r| r.to).unwrap();
    let (v, row) = lookup(rows, first - 1);
    assert!(v == 0 && row.is_none(), "{table}: below the first row reads nothing");
    let (v, row) = lookup(rows, top.to + 1);
    assert_eq!(v, top.value, "{table}: above the last row reads the last");
    assert!(row.is_some(), "{table}: above the last row names it");
    // The rows meet: no total between the first and the last is missing
    // and none is read twice.
    for total in first..=top.to {
        let n = rows.iter().filter(|r| total >= r.from && total <= r.to).count();
        assert_eq!(n, 1, "{table}: total {total} is in {n} rows");
    }
}

#[test]
fn every_war_table_reads_the_right_row_at_each_boundary() {
    let (s, _) = setup();
    let b = &s.tables.battle;
    walk("battle losses (5.7)", &b.losses);
    walk("approach ghosts (5.6)", &b.approach.ghosts);
    walk("pursuit losses (5.8)", &b.pursuit.losses);
    // Neighbouring rows give different values somewhere: a lookup one
    // row off would be seen.
    assert!(b.losses.windows(2).any(|w| w[0].value != w[1].value));
}

#[test]
fn a_combat_option_opens_exactly_on_its_die_range() {
    let (s, _) = setup();
    let t = &s.tables.battle;
    for c in &t.columns {
        let with = |die: u32| empereur::rules::war::battle::available(t, &c.side, c.rating, die);
        for die in [c.from, c.to] {
            let open = with(die);
            for o in &c.options {
                assert!(open.contains(o), "{} rating {} die {die}: {o} open", c.side, c.rating);
            }
        }
        // A leader rated one lower does not reach this column's cell.
        if c.rating > 0 {
            let lower = empereur::rules::war::battle::available(t, &c.side, c.rating - 1, c.from);
            let only_here: Vec<&String> = c
                .options
                .iter()
                .filter(|o| {
                    !t.columns.iter().any(|d| {
                        d.side == c.side
                            && d.rating < c.rating
                            && c.from >= d.from
                            && c.from <= d.to
                            && d.options.contains(o)
                    })
                })
                .collect();
            for o in only_here {
                assert!(
                    !lower.contains(o),
                    "{} rating {}: {o} closed to rating {}",
                    c.side,
                    c.rating,
                    c.rating - 1
                );
            }
        }
    }
}

/// 4.221 at its edges: a deficit is repaid from whatever Gold there is,
/// never from an empty treasury, and the power is free of debt only when
/// all of it is paid.
#[test]
fn deficit_4_221_repaid_from_what_there_is_and_never_from_nothing() {
    let (_, mut st) = setup();
    let debt = |st: &State| (st.power(PowerId::France).gold, st.power(PowerId::France).debt);
    let set_debt = |st: &mut State, gold: i64, debt: i64| {
        let ps = st.power_mut(PowerId::France);
        ps.gold = gold;
        ps.debt = debt;
    };

    // An empty treasury pays nothing and reports nothing.
    set_debt(&mut st, 0, 4);
    let mut out = Vec::new();
    assert!(!economy::repay_debt(&mut st, PowerId::France, &mut out));
    assert_eq!(debt(&st), (0, 4));
    assert!(out.is_empty(), "{out:?}");

    // Less Gold than the deficit: all of it goes, the rest stays owed.
    set_debt(&mut st, 3, 4);
    assert!(!economy::repay_debt(&mut st, PowerId::France, &mut out));
    assert_eq!(debt(&st), (0, 1));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0].kind, empereur::rules::Kind::DeficitRepaid);

    // Exactly the deficit: paid off, free to spend again.
    set_debt(&mut st, 4, 4);
    out.clear();
    assert!(economy::repay_debt(&mut st, PowerId::France, &mut out));
    assert_eq!(debt(&st), (0, 0));
    assert_eq!(out.len(), 1, "{out:?}");

    // No deficit: nothing to do, nothing reported, Gold untouched.
    set_debt(&mut st, 9, 0);
    out.clear();
    assert!(economy::repay_debt(&mut st, PowerId::France, &mut out));
    assert_eq!(debt(&st), (9, 0));
    assert!(out.is_empty(), "{out:?}");
}

/// 2.7: the Enforced Peace Record Track holds the powers "on the date of
/// their release", so the peace binds every season before that date and
/// not on it: a declaration of war is refused the season before and
/// accepted on the date itself.
#[test]
fn enforced_peace_2_7_binds_until_the_release_date_and_not_on_it() {
    let (_s, mut state) = setup();
    let turn = |t: &str| Turn::parse(t).expect("a turn");
    let mut powers = [PowerId::France, PowerId::Austria];
    powers.sort();
    let until = turn("1807-fall");
    state.relations.enforced_peace.push(EnforcedPeace { powers, until });
    let (fr, at) = (PowerId::France, PowerId::Austria);
    assert!(state.relations.enforced(at, fr, turn("1807-summer")).is_some());
    assert!(state.relations.enforced(fr, at, until).is_none());
    assert!(state.relations.enforced(at, fr, turn("1808-winter")).is_none());

    state.phase.turn = turn("1807-summer");
    let barred = surrender::declaration_barred(&state, at, fr).map(|r| r.rule.to_string());
    assert_eq!(barred.as_deref(), Some("2.7"));
    state.phase.turn = until;
    assert!(surrender::declaration_barred(&state, at, fr).is_none());
}
