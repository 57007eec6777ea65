//! The order language against a small test scenario
//! (`tests/fixtures/orders-scenario`): the example folders (valid files
//! parse clean, invalid files give their diagnostics as insta snapshots), spans of
//! errors, normalised text that parses back, and property tests that no
//! input panics and every span lies inside the input.
#![allow(clippy::disallowed_methods)] // tests read files

use empereur::diagnostic::Diagnostic;
use empereur::ids::{PhaseId, PowerId};
use empereur::orders::{self, Checked};
use empereur::scenario::Scenario;
use empereur::state::State;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scenario() -> &'static Scenario {
    static S: OnceLock<Scenario> = OnceLock::new();
    S.get_or_init(|| empereur::store::load_scenario_dir(&root().join("tests/fixtures/orders-scenario")).unwrap())
}

/// France, Britain and Austria are Player Countries; the rest NPCs.
fn state_at(phase: &str) -> State {
    let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Britain, PowerId::Austria].into();
    let mut s = State::initial(scenario(), "orders-test", &players, BTreeSet::new());
    s.phase = phase.parse::<PhaseId>().unwrap();
    s
}

/// The phase a file is checked in: a `# test-phase:` line, else its PHASE.
fn phase_of(text: &str) -> String {
    for l in text.lines() {
        if let Some(p) = l.strip_prefix("# test-phase:") {
            return p.trim().to_string();
        }
    }
    for l in text.lines() {
        let t = l.trim().to_ascii_lowercase();
        if let Some(p) = t.strip_prefix("phase") {
            return p.trim_start_matches(':').trim().to_string();
        }
    }
    "1805-fall-france".to_string()
}

/// The situation an example needs, from `# test-…:` lines: `test-war: A B`
/// puts two powers at war, `test-alliance: A B` allies them; `test-at-sea: NATION N SEA` puts a squadron at
/// sea (naval orders other than sailing need one there, 5.4);
/// `test-at: NATION N PROVINCE` moves a corps; `test-controller: NATION
/// PROVINCE` hands a province to a nation (as a won siege would).
fn situation(text: &str, state: &mut State) {
    for l in text.lines() {
        let words: Vec<&str> = l.split_whitespace().collect();
        match words.as_slice() {
            ["#", "test-war:", a, b] => {
                state.relations.set_war(a.parse().unwrap(), b.parse().unwrap(), true);
            }
            ["#", "test-alliance:", a, b] => {
                state
                    .relations
                    .set_alliance(a.parse().unwrap(), b.parse().unwrap(), true);
            }
            ["#", "test-at-sea:", nation, n, sea] => {
                let nation: empereur::ids::Nation = nation.parse().unwrap();
                let n: u32 = n.parse().unwrap();
                let sq = state
                    .squadrons
                    .iter_mut()
                    .find(|s| s.nation == nation && s.number == n)
                    .unwrap();
                sq.location = empereur::state::Location::Sea(sea.to_string());
            }
            ["#", "test-at:", nation, n, province] => {
                let nation: empereur::ids::Nation = nation.parse().unwrap();
                let n: u32 = n.parse().unwrap();
                state.corps_mut(&nation, n).unwrap().location = Some(province.to_string());
            }
            ["#", "test-controller:", nation, province] => {
                state.provinces.get_mut(*province).unwrap().controller = Some(nation.parse().unwrap());
            }
            _ => {}
        }
    }
}

fn check_file(path: &Path) -> (String, Checked) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut state = state_at(&phase_of(&text));
    situation(&text, &mut state);
    let checked = orders::check(&text, scenario(), &state, None);
    (text, checked)
}

fn examples(kind: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("orders/examples").join(kind))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("txt"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_valid_example_parses_clean() {
    let files = examples("valid");
    assert!(files.len() >= 10, "{files:?}");
    for f in files {
        let (text, c) = check_file(&f);
        let shown = orders::render_all(&c, &f.display().to_string(), &text);
        assert!(c.diagnostics.is_empty(), "{}:\n{shown}", f.display());
        assert!(!c.accepted.is_empty(), "{} accepted nothing", f.display());
    }
}

/// Each invalid example's rendered diagnostics and accepted orders are an
/// insta snapshot (`tests/it/snapshots/it__orders__invalid-<name>.snap`): a
/// missing or different snapshot fails, and CI never writes one. After a
/// deliberate change: `INSTA_UPDATE=always cargo test --test it orders::` (or
/// `cargo insta review`), then read the diff before committing.
#[test]
fn every_invalid_example_gives_its_golden_diagnostics() {
    let files = examples("invalid");
    assert!(files.len() >= 8, "{files:?}");
    let mut failures = Vec::new();
    for f in files {
        let (text, c) = check_file(&f);
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let mut got = orders::render_all(&c, &name, &text);
        got.push_str("accepted:\n");
        for o in &c.accepted {
            got.push_str(&format!("  {}\n", o.text));
        }
        assert!(!c.all_accepted(), "{name} has no error");
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        // Every example is compared (and every new snapshot written as
        // .snap.new) before the test fails.
        let compared = std::panic::catch_unwind(|| {
            insta::with_settings!({ description => format!("orders/examples/invalid/{name}"), omit_expression => true }, {
                insta::assert_snapshot!(format!("invalid-{stem}"), got);
            });
        });
        if compared.is_err() {
            failures.push(name);
        }
    }
    assert!(failures.is_empty(), "snapshots missing or different: {failures:?}");
}

/// Every example, valid or invalid, gets the same verdicts from the
/// checker and the engine: the orders `check` refuses are exactly those
/// `rules::resolve` refuses before running them (`order-rejected`). The
/// examples that apply nothing (no power, another game or phase) have no
/// verdicts to compare.
#[test]
fn checker_and_engine_agree_on_every_example() {
    use empereur::diagnostic::Problem;
    use empereur::rules::{self, Kind, PhaseOrders};
    let mut compared = 0;
    for f in examples("valid").into_iter().chain(examples("invalid")) {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut state = state_at(&phase_of(&text));
        situation(&text, &mut state);
        let c = orders::check(&text, scenario(), &state, None);
        let applies_nothing = c.diagnostics.iter().any(|d| d.code == Problem::NotApplied);
        let Some(power) = c.header.power.filter(|_| !applies_nothing) else {
            continue;
        };
        let mut lines = c.accepted.clone();
        lines.extend(c.refused.iter().cloned());
        lines.sort_by_key(|l| l.span.line);
        let orders: PhaseOrders = [(power, lines)].into();
        let mut dice = empereur::testing::ScriptedDice::new(Default::default(), Some(1));
        let outcomes = rules::resolve(scenario(), &state, &orders, &mut dice)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
            .outcomes;
        let engine: BTreeSet<String> = outcomes
            .iter()
            .filter(|o| o.kind == Kind::OrderRejected)
            .filter_map(|o| o.order.clone())
            .collect();
        let checker: BTreeSet<String> = c.refused.iter().map(|l| l.text.clone()).collect();
        let why: Vec<&str> = outcomes
            .iter()
            .filter(|o| o.kind == Kind::OrderRejected)
            .map(|o| o.summary.as_str())
            .collect();
        assert_eq!(checker, engine, "{}: checker and engine disagree: {why:?}", f.display());
        compared += 1;
    }
    assert!(compared >= 15, "only {compared} examples compared");
}

#[test]
fn normalised_orders_parse_back_to_the_same_orders() {
    for f in examples("valid") {
        let (_, c) = check_file(&f);
        let text = std::fs::read_to_string(&f).unwrap();
        let phase = phase_of(&text);
        let power = c.header.power.unwrap();
        let mut state = state_at(&phase);
        situation(&text, &mut state);
        let again: String = c.accepted.iter().map(|o| format!("{}\n", o.text)).collect();
        let c2 = orders::check(&again, scenario(), &state, Some(power));
        let shown = orders::render_all(&c2, "normalised", &again);
        assert!(c2.diagnostics.is_empty(), "{}:\n{shown}", f.display());
        let a: Vec<_> = c.accepted.iter().map(|o| &o.order).collect();
        let b: Vec<_> = c2.accepted.iter().map(|o| &o.order).collect();
        assert_eq!(a, b, "{}", f.display());
    }
}

/// (order line, code, column, length) in France's Player Turn.
const SPANS: &[(&str, &str, usize, usize)] = &[
    ("MOVE corps 1 -> Viena", "unknown-province", 17, 5),
    ("MOVE corps 1 -> Alsace -> Bavria", "unknown-province", 27, 6),
    ("MOVE corps 3 -> Galicia", "ambiguous-province", 17, 7),
    ("MOVE corps 9 -> Alsace", "unknown-unit", 6, 7),
    ("MOVE corps 1 WITH Napolean -> Alsace", "unknown-commander", 19, 8),
    ("MOVE Prusian corps 1 -> Alsace", "unknown-nation", 6, 7),
    ("MOVE corps -> Alsace", "syntax", 6, 5),
    ("MOVE corps 1", "syntax", 12, 1),
    ("MOVE corps 1 -> Alsace Bavaria extra ,", "unknown-province", 17, 20),
    ("MOOVE corps 1 -> Alsace", "unknown-order", 1, 5),
    ("SAIL squadron 1 -> Paris", "not-a-port", 20, 5),
    ("DECLARE WAR ON Austira", "unknown-power", 16, 7),
    ("DECLARE WAR ON France", "self", 16, 6),
    ("BLOCKADE squadron 1 AT Alsace", "not-a-port", 24, 6),
    ("GIFT 99999999999 GOLD TO Britain", "number-too-large", 6, 11),
    // A refusal of the legality gate points at the one argument at
    // fault: the amount, the power, the province, the unit, the commander.
    ("GIFT 40 GOLD TO Britain", "cannot-pay", 6, 2),
    ("NPC ALLIANCE WITH Britain", "not-an-npc", 19, 7),
    ("WITHDRAW GARRISON FROM Paris INTO corps 1", "illegal", 24, 5),
    ("MOVE corps 3 -> East Galicia", "not-connected", 17, 12),
    ("MOVE Austrian corps 1 -> Bohemia", "not-your-unit", 6, 16),
    ("MOVE corps 5 -> Alsace", "not-on-map", 6, 7),
    ("MOVE corps 1, corps 3 -> Alsace", "not-stacked", 15, 7),
    ("SAIL squadron 1 -> North Sea", "not-connected", 20, 9),
    ("MOVE corps 3 WITH Napoleon -> Bavaria", "not-there", 19, 8),
    ("MOVE corps 1 WITH Archduke Charles -> Alsace", "not-your-unit", 19, 16),
    ("BESIEGE corps 1 IN Alsace", "not-there", 9, 7),
    // The province may follow the corps without IN.
    ("GARRISON corps 1 Alsace", "not-there", 10, 7),
    ("BREAK ALLIANCE WITH Austria", "illegal", 21, 7),
    ("OFFER PEACE TO Austria", "illegal", 16, 7),
    // A word written twice: the writing at fault, not the first.
    (
        "SAIL squadron 1 -> English Channel -> Atlantic Ocean -> English Channel -> North Sea",
        "illegal",
        57,
        15,
    ),
    // and the first writing when the first is at fault
    (
        "MOVE corps 3 -> East Galicia -> West Galicia -> Warsaw -> East Galicia",
        "not-connected",
        17,
        12,
    ),
    ("MOVE corps 1, corps 1 -> Alsace", "illegal", 15, 7),
    // A Continental System order: its action.
    ("JOIN CONTINENTAL SYSTEM", "illegal", 1, 4),
    ("CONTINENTAL SYSTEM: LEAVE", "illegal", 21, 5),
    ("DECLARE CONTINENTAL SYSTEM", "illegal", 1, 7),
    // Where the whole order is at fault, the whole order is underlined.
    ("BUILD 1 inf IN corps 2", "wrong-phase", 1, 22),
    // A TIMEZONE line: its keyword when the zone is missing, else the
    // zone, wherever the line stands.
    ("  TIMEZONE", "syntax", 3, 8),
    ("TIMEZONE Europe/Pari", "unknown-zone", 10, 11),
    ("  TIMEZONE  Europe/Pari", "unknown-zone", 13, 11),
];

#[test]
fn errors_point_at_the_words_that_are_wrong() {
    let state = state_at("1805-fall-france");
    let mut bad = Vec::new();
    for (line, code, col, len) in SPANS {
        let c = orders::check(line, scenario(), &state, Some(PowerId::France));
        let hit = c.diagnostics.iter().find(|d| d.code == *code);
        match hit {
            Some(d) if d.span.line == 1 && d.span.col == *col && d.span.len == *len => {}
            _ => bad.push(format!(
                "{line}: want {code} at {col}+{len}, got {:?}",
                c.diagnostics
                    .iter()
                    .map(|d| (&d.code, d.span.col, d.span.len, &d.message))
                    .collect::<Vec<_>>()
            )),
        }
        assert!(c.accepted.is_empty(), "{line} was accepted");
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn suggestions_and_ambiguity_are_explained() {
    let state = state_at("1805-fall-france");
    let c = orders::check(
        "POWER France\nMOVE corps 1 -> Alsace -> Bavria\nMOVE corps 3 -> Galicia\n",
        scenario(),
        &state,
        None,
    );
    let helps: Vec<_> = c
        .diagnostics
        .iter()
        .map(|d| (d.message.as_str(), d.help.as_deref()))
        .collect();
    assert_eq!(
        helps,
        vec![
            ("no province 'Bavria'", Some("did you mean Bavaria?")),
            (
                "'Galicia' could be West Galicia or East Galicia",
                Some("write the full name")
            ),
        ]
    );
}

#[test]
fn a_stale_phase_applies_nothing() {
    let state = state_at("1805-fall-france");
    let c = orders::check(
        "POWER France\nPHASE 1805-fall-turn-start\nMOVE corps 1 -> Alsace\n",
        scenario(),
        &state,
        None,
    );
    assert!(c.accepted.is_empty());
    assert_eq!(c.diagnostics[0].code, "stale-phase");
    assert_eq!(
        c.diagnostics[0].message,
        "orders are for phase 1805-fall-turn-start but the open phase is 1805-fall-france"
    );
    assert_eq!(c.diagnostics[1].code, "not-applied");
}

#[test]
fn capacity_counts_four_boxes_in_french_corps_one_to_four() {
    let state = state_at("1805-fall-build");
    // French corps 3 holds inf, art: two more fit (four boxes, 2.5).
    let ok = orders::check("BUILD corps 3: 1 inf, 1 cav", scenario(), &state, Some(PowerId::France));
    assert!(ok.all_accepted(), "{:?}", ok.diagnostics);
    let full = orders::check("BUILD corps 3: 2 inf, 1 cav", scenario(), &state, Some(PowerId::France));
    assert!(
        full.diagnostics[0].message.contains("would pass its 4 boxes"),
        "{:?}",
        full.diagnostics
    );
    // An Austrian corps has three boxes: corps 2 holds inf, cav.
    let austria = orders::check("BUILD corps 2: 2 inf", scenario(), &state, Some(PowerId::Austria));
    assert!(
        austria.diagnostics[0].message.contains("would pass its 3 boxes"),
        "{:?}",
        austria.diagnostics
    );
}

#[test]
fn a_deficit_blocks_every_purchase() {
    let mut state = state_at("1806-winter");
    // A deficit the Winter's income cannot repay (a small one is repaid
    // before the purchase, 4.221).
    state.power_mut(PowerId::France).debt = 500;
    let c = orders::check("BUY VP WITH 10 GOLD", scenario(), &state, Some(PowerId::France));
    assert_eq!(c.diagnostics[0].code, "cannot-pay");
    assert!(
        c.diagnostics[0].message.contains("4.221"),
        "{}",
        c.diagnostics[0].message
    );
}

#[test]
fn only_the_phasing_power_gives_military_orders() {
    let state = state_at("1805-fall-france");
    let c = orders::check("MOVE corps 1 -> Bohemia", scenario(), &state, Some(PowerId::Austria));
    assert_eq!(c.diagnostics[0].code, "wrong-phase");
    let c = orders::check("STANDING INTERCEPT ON", scenario(), &state, Some(PowerId::Austria));
    assert!(c.all_accepted());
}

#[test]
fn whoever_runs_an_npc_orders_its_units() {
    let mut state = state_at("1805-fall-spain");
    // 3.31: an Allied NPC's units are run by its ally and share its wars
    // (a Controlled NPC's could not leave home for Brest).
    state.power_mut(PowerId::Spain).control = empereur::state::Control::Allied { with: PowerId::Britain };
    state.relations.set_alliance(PowerId::Spain, PowerId::Britain, true);
    state.relations.set_war(PowerId::Spain, PowerId::France, true);
    state.relations.set_war(PowerId::Britain, PowerId::France, true);
    let c = orders::check(
        "MOVE Spanish corps 1 -> Brest",
        scenario(),
        &state,
        Some(PowerId::Britain),
    );
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    // In France's own turn the phase takes France's moves, and the gate
    // refuses the Spanish corps as another power's.
    state.phase = "1805-fall-france".parse().unwrap();
    let c = orders::check(
        "MOVE Spanish corps 1 -> Brest",
        scenario(),
        &state,
        Some(PowerId::France),
    );
    assert!(
        c.diagnostics.iter().any(|d| d.code == "not-your-unit"),
        "{:?}",
        c.diagnostics
    );
}

fn spans_inside(source: &str, ds: &[Diagnostic]) -> Result<(), String> {
    let lines: Vec<&str> = source.lines().collect();
    for d in ds {
        let s = d.span;
        if lines.is_empty() {
            if (s.line, s.col, s.len) != (1, 1, 0) {
                return Err(format!("{d:?} on empty input"));
            }
            continue;
        }
        let Some(l) = lines.get(s.line.wrapping_sub(1)) else {
            return Err(format!("{d:?}: line outside 1..={}", lines.len()));
        };
        let n = l.chars().count();
        if s.col < 1 || s.col - 1 + s.len > n.max(1) {
            return Err(format!("{d:?}: outside line of {n} chars {l:?}"));
        }
        let _ = d.render("x", source);
    }
    Ok(())
}

fn corpus() -> &'static [String] {
    static C: OnceLock<Vec<String>> = OnceLock::new();
    C.get_or_init(corpus_files)
}

fn corpus_files() -> Vec<String> {
    let mut v: Vec<String> = examples("valid")
        .into_iter()
        .chain(examples("invalid"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    v.push(SPANS.iter().map(|s| s.0).collect::<Vec<_>>().join("\n"));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let state = state_at("1805-fall-france");
        let c = orders::check(&text, scenario(), &state, Some(PowerId::France));
        prop_assert!(spans_inside(&text, &c.diagnostics).is_ok(), "{:?}", spans_inside(&text, &c.diagnostics));
    }

    #[test]
    fn random_order_like_text_never_panics(
        words in proptest::collection::vec(
            prop_oneof![
                Just("MOVE"), Just("corps"), Just("1"), Just("->"), Just("Alsace"), Just("SAIL"),
                Just("squadron"), Just("BUILD"), Just("inf"), Just(","), Just(":"), Just("IN"),
                Just("Galicia"), Just("-"), Just("\n"), Just("STANDING"), Just("WITHDRAW"), Just("3:1"),
                Just("GARRISON"), Just("OFFER"), Just("PEACE"), Just("TO"), Just("GOLD"), Just("CEDE"),
                Just("POWER"), Just("PHASE"), Just("#"), Just(">"), Just("END"), Just("the"), Just("\t"),
                Just("I"), Just("Corps"), Just("Vienna-Bavaria"), Just("é"), Just("\u{0}"), Just("WITH"),
            ],
            0..40,
        ),
        phase in prop_oneof![Just("1805-fall-france"), Just("1805-fall-build"), Just("1806-winter"), Just("1805-bid")],
    ) {
        let text = words.join(" ");
        let state = state_at(phase);
        let c = orders::check(&text, scenario(), &state, Some(PowerId::France));
        prop_assert!(spans_inside(&text, &c.diagnostics).is_ok(), "{:?}", spans_inside(&text, &c.diagnostics));
    }

    #[test]
    fn mutated_examples_never_panic(pick in 0usize..100, cuts in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let all = corpus();
        let mut bytes = all[pick % all.len()].clone().into_bytes();
        for (at, b) in cuts {
            if bytes.is_empty() { break; }
            let i = at % bytes.len();
            match b % 3 {
                0 => bytes[i] = b,
                1 => { bytes.remove(i); }
                _ => bytes.insert(i, b),
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let state = state_at("1805-fall-france");
        let c = orders::check(&text, scenario(), &state, None);
        prop_assert!(spans_inside(&text, &c.diagnostics).is_ok(), "{:?}", spans_inside(&text, &c.diagnostics));
    }
}

/// Order lines that parse (real units, places, powers, commanders and
/// amounts) but that the legality gate often refuses: template `which`,
/// its names picked by `picks`, indented by `indent` spaces.
fn gate_line(which: usize, picks: [u8; 6], indent: usize) -> String {
    const UNITS: &[&str] = &[
        "corps 1",
        "corps 3",
        "corps 5",
        "Austrian corps 1",
        "Austrian corps 2",
        "squadron 1",
        "British squadron 2",
    ];
    const POWERS: &[&str] = &["France", "Austria", "Britain", "Spain", "Russia"];
    const COMMANDERS: &[&str] = &["Napoleon", "Archduke Charles", "Kutuzov"];
    const AMOUNTS: &[&str] = &["1", "2", "5", "40", "100"];
    let map = &scenario().map;
    let pick = |i: usize, names: &[String]| names[usize::from(picks[i]) % names.len()].clone();
    let provinces: Vec<String> = map.provinces.iter().map(|p| p.name.clone()).collect();
    let ports: Vec<String> = map
        .provinces
        .iter()
        .filter(|p| p.port)
        .map(|p| p.name.clone())
        .collect();
    let seas: Vec<String> = map.seas.iter().map(|s| s.name.clone()).collect();
    let list = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let (units, powers, commanders, amounts) = (list(UNITS), list(POWERS), list(COMMANDERS), list(AMOUNTS));
    let (u, u2, w, c, n) = (
        pick(0, &units),
        pick(1, &units),
        pick(2, &powers),
        pick(3, &commanders),
        pick(4, &amounts),
    );
    let (p, p2, s, port) = (
        pick(5, &provinces),
        pick(2, &provinces),
        pick(5, &seas),
        pick(1, &ports),
    );
    let line = match which % 16 {
        0 => format!("MOVE {u} -> {p}"),
        1 => format!("MOVE {u}, {u2} WITH {c} -> {p} -> {p2}"),
        2 => format!("SAIL {u} CARRYING {u2} -> {s} INTO {port}"),
        3 => format!("SAIL {u} -> {s}"),
        4 => format!("BESIEGE {u} IN {p}"),
        5 => format!("GARRISON {u} IN {p}"),
        6 => format!("WITHDRAW GARRISON FROM {p} INTO {u}"),
        7 => format!("BLOCKADE {u} AT {port}"),
        8 => format!("DECLARE WAR ON {w}"),
        9 => format!("OFFER PEACE TO {w}"),
        10 => format!("BREAK ALLIANCE WITH {w}"),
        11 => format!("NPC ALLIANCE WITH {w}"),
        12 => format!("GIFT {n} GOLD TO {w}"),
        13 => format!("BUY VP WITH {n} GOLD"),
        14 => format!("BUILD {n} SQUADRONS IN {port}"),
        _ => format!("BUILD {u}: {n} inf"),
    };
    format!("{}{line}", " ".repeat(indent))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A refusal points at one word of its own order, or at the whole
    /// order: never outside the order's line or its span, whichever
    /// argument the refusal names and wherever the line stands.
    #[test]
    fn a_refusal_points_inside_its_own_order(
        lines in proptest::collection::vec((0usize..16, any::<[u8; 6]>(), 0usize..4), 1..6),
        phase in prop_oneof![Just("1805-fall-france"), Just("1805-fall-build"), Just("1806-winter")],
    ) {
        let text: Vec<String> = lines.iter().map(|(w, p, i)| gate_line(*w, *p, *i)).collect();
        let text = text.join("\n");
        let state = state_at(phase);
        let c = orders::check(&text, scenario(), &state, Some(PowerId::France));
        prop_assert!(spans_inside(&text, &c.diagnostics).is_ok(), "{:?}", spans_inside(&text, &c.diagnostics));
        // Codes that always name one unit, place, commander or power.
        let one_word = ["not-your-unit", "not-connected", "not-there", "not-stacked", "not-on-map", "not-an-npc"];
        for l in &c.refused {
            let (from, to) = (l.span.col, l.span.col + l.span.len);
            for d in c.diagnostics.iter().filter(|d| d.span.line == l.span.line) {
                prop_assert!(
                    d.span.col >= from && d.span.col + d.span.len <= to && d.span.len > 0,
                    "{text}\n{d:?} outside {:?}", l.span
                );
                prop_assert!(
                    !one_word.contains(&d.code.as_str()) || d.span.len < l.span.len,
                    "{text}\n{d:?} underlines the whole order"
                );
            }
        }
    }
}

#[test]
fn a_megabyte_line_and_control_characters_are_handled() {
    let state = state_at("1805-fall-france");
    let long = format!("POWER France\nMOVE corps 1 -> {}\n", "Alsace ".repeat(150_000));
    let c = orders::check(&long, scenario(), &state, None);
    assert!(!c.all_accepted());
    spans_inside(&long, &c.diagnostics).unwrap();
    let ctl = "POWER France\nMOVE\u{7}corps\t1 ->\u{1b}[31m Alsace\r\n";
    let c = orders::check(ctl, scenario(), &state, None);
    spans_inside(ctl, &c.diagnostics).unwrap();
}

#[test]
fn every_order_in_the_readme_is_grammatical() {
    let readme = std::fs::read_to_string(root().join("orders/README.md")).unwrap();
    let mut in_block = false;
    let mut checked = 0;
    let mut bad = Vec::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block && let Some((written, normal)) = line.split_once("  ->  ") {
            // The normalisation table: what is written, what is echoed.
            let ph = if written.starts_with("build") {
                "1805-fall-build"
            } else {
                "1805-fall-france"
            };
            let c = orders::check(written.trim(), scenario(), &state_at(ph), Some(PowerId::France));
            let got: Vec<_> = c.accepted.iter().map(|o| o.text.as_str()).collect();
            if got != [normal.trim()] {
                bad.push(format!("{written} => {got:?}, README says {normal}"));
            }
            checked += 1;
            continue;
        }
        let body = line.split('#').next().unwrap_or("").trim();
        let first = body.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        if !in_block || !orders::parse::KEYWORDS.contains(&first.as_str()) || body.contains("…") {
            continue;
        }
        checked += 1;
        let grammatical = [
            "1805-fall-france",
            "1805-fall-build",
            "1806-winter",
            "1805-bid",
            "1805-fall-turn-start",
        ]
        .iter()
        .any(|ph| {
            let c = orders::check(body, scenario(), &state_at(ph), Some(PowerId::France));
            !c.diagnostics
                .iter()
                .any(|d| d.code == "syntax" || d.code == "unknown-order")
        });
        if !grammatical {
            bad.push(body.to_string());
        }
    }
    assert!(checked > 40, "only {checked} orders found in the README");
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn the_other_side_answers_an_offer_in_the_movers_turn() {
    // 5.1, 5.2: France offers in its turn; Britain answers in the same phase.
    let mut state = state_at("1805-fall-france");
    state.relations.set_war(PowerId::France, PowerId::Britain, true);
    let c = orders::check("ACCEPT PEACE FROM France", scenario(), &state, Some(PowerId::Britain));
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    let c = orders::check(
        "ACCEPT ALLIANCE FROM France",
        scenario(),
        &state,
        Some(PowerId::Britain),
    );
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    // Offers and declarations stay the mover's.
    let c = orders::check("DECLARE WAR ON Austria", scenario(), &state, Some(PowerId::Britain));
    assert_eq!(c.diagnostics[0].code, "wrong-phase");
}

/// A standing switch reads ON and OFF and their synonyms, and nothing
/// else: a word that is neither is refused where it stands, never read as
/// OFF (or ON).
#[test]
fn a_standing_switch_is_on_or_off_and_anything_else_is_refused() {
    let state = state_at("1805-fall-france");
    for (text, on) in [
        ("STANDING INTERCEPT ON", true),
        ("STANDING INTERCEPT yes", true),
        ("STANDING INTERCEPT always", true),
        ("STANDING INTERCEPT OFF", false),
        ("STANDING INTERCEPT no", false),
        ("STANDING INTERCEPT never", false),
    ] {
        let c = orders::check(text, scenario(), &state, Some(PowerId::Austria));
        assert!(c.all_accepted(), "{text}: {:?}", c.diagnostics);
        assert!(
            matches!(c.accepted[0].order, empereur::orders::ast::Order::Standing(empereur::orders::ast::Standing::Intercept { enabled }) if enabled == on),
            "{text}: {:?}",
            c.accepted[0].order
        );
    }
    for text in ["STANDING INTERCEPT maybe", "STANDING INTERCEPT", "STANDING INTERCEPT 1"] {
        let c = orders::check(text, scenario(), &state, Some(PowerId::Austria));
        assert!(c.accepted.is_empty(), "{text} was accepted");
        assert!(
            c.diagnostics.iter().any(|d| d.message.contains("expected ON or OFF")),
            "{text}: {:?}",
            c.diagnostics
        );
    }
}
