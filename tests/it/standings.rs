//! The `Standings` section of the turn reports and the VP chart they
//! carry (issue 34), read as the recipients read them: the mail a report
//! is, from the outbox. Who may see what: a power's report shows every
//! power's VP, Gold and wars (on the record for all, 2.5), but the source
//! of another power's VP only as far as the outcomes it sees, and a
//! kingdom's treasury only to its controller (11.x.2).
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::players_common::{new_game, now};
use empereur::ids::PowerId;
use empereur::mail::compose::{self, Resolved};
use empereur::ops::autoplay::autoplay;
use empereur::picture::chart;
use empereur::report::Templates;
use empereur::rules::{Kind, Outcome};
use empereur::state::{Kingdom, State};
use empereur::store::{GameDir, history};
use std::collections::BTreeMap;
use std::path::Path;

fn parse_eml(p: &Path) -> mail_parser::Message<'static> {
    let raw = std::fs::read(p).unwrap();
    mail_parser::MessageParser::default().parse(&raw).unwrap().into_owned()
}

/// The section headed `Standings` of a report body, up to the blank line
/// that ends it.
fn section(body: &str) -> String {
    let start = body
        .find("Standings after ")
        .unwrap_or_else(|| panic!("no Standings section:\n{body}"));
    let rest = &body[start..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
}

/// A phase of the 2-player game (France and Austria, the rest NPCs):
/// France collects 3 VP of land, Austria loses 1 in a battle everyone
/// sees, and France gains 2 in a battle only France sees; Austria
/// controls a kingdom with 17 Gold in its treasury; France and Austria
/// are at war. Returns each recipient's report: (who, body, attachment
/// names).
fn reports(g: &GameDir) -> Vec<(String, String, Vec<String>)> {
    let cfg = g.load_config().unwrap();
    let scenario = g.load_scenario(&cfg).unwrap();
    let before = g.load_state().unwrap();
    let mut after: State = before.clone();
    after.powers.get_mut(&PowerId::France).unwrap().vp += 5;
    after.powers.get_mut(&PowerId::France).unwrap().gold = 61;
    after.powers.get_mut(&PowerId::Austria).unwrap().vp -= 2;
    after.relations.set_war(PowerId::France, PowerId::Austria, true);
    after.political.kingdoms.insert(
        "illyria".into(),
        Kingdom {
            controller: PowerId::Austria,
            components: ["tyrol".to_string()].into(),
            created: after.phase.turn,
            gold: 17,
            ceded: false,
        },
    );
    let outcomes = vec![
        Outcome::new("4.23", Kind::VpCollection, "France collects 3 VP").vp(PowerId::France, 3),
        Outcome::new("5.6", Kind::BattleResult, "Battle of Ulm: Austria loses").vp(PowerId::Austria, -1),
        // A sea fight is a battle too, though its rule is not 5.6's.
        Outcome::new("5.4", Kind::NavalBattle, "A sea fight off Trieste").vp(PowerId::Austria, -1),
        Outcome::new("5.6", Kind::Battle, "A battle only France sees")
            .vp(PowerId::France, 2)
            .only(vec![PowerId::France]),
    ];
    let r = Resolved {
        phase: before.phase.to_string(),
        entry: "0001-standings".into(),
        after: &after,
        outcomes: &outcomes,
        seed: None,
        entropy: vec![],
        dice_log: None,
        pictures: Some((&scenario, &before)),
        lock: None,
        map_unchanged: Default::default(),
    };
    let t = Templates::defaults();
    let ids = compose::turn_reports(g, &t, &cfg, &r, now()).unwrap();
    ids.iter()
        .zip(["france", "austria", "moderator"])
        .map(|(id, who)| {
            let m = parse_eml(&g.outbox().join(format!("{id}.eml")));
            let body = m.body_text(0).unwrap().replace("\r\n", "\n");
            let names = m
                .attachments()
                .filter_map(|a| mail_parser::MimeHeaders::attachment_name(a).map(str::to_string))
                .collect();
            (who.to_string(), body, names)
        })
        .collect()
}

#[test]
fn every_report_has_a_standings_table_each_recipient_may_read() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(new_game(tmp.path()));
    let reports = reports(&g);
    assert_eq!(reports.len(), 3, "France, Austria and the moderator");
    for (who, body, names) in &reports {
        let s = section(body);
        // A phone shows about 60 columns.
        assert!(s.lines().all(|l| l.chars().count() <= 60), "{who}:\n{s}");
        // Every power, one line each.
        for p in PowerId::ALL {
            assert_eq!(
                s.lines().filter(|l| l.starts_with(&format!("  {}", p.name()))).count(),
                1,
                "{who}: {p:?}\n{s}"
            );
        }
        insta::assert_snapshot!(format!("standings-{who}"), s);
        // The chart goes with every report, as a PNG only.
        let phase = "1805-fall-turn-start";
        assert!(names.contains(&format!("vp-{phase}.png")), "{who}: {names:?}");
        assert!(
            !names.iter().any(|n| n.starts_with("vp-") && n.ends_with(".svg")),
            "{names:?}"
        );
    }
}

#[test]
fn a_power_never_reads_a_treasury_or_a_source_of_vp_it_may_not_see() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(new_game(tmp.path()));
    let reports = reports(&g);
    let of = |who: &str| section(&reports.iter().find(|r| r.0 == who).unwrap().1);
    let (france, austria, moderator) = (of("france"), of("austria"), of("moderator"));
    // The kingdom's treasury: its controller and the moderator only.
    assert!(!france.contains("illyria") && !france.contains("17 Gold"), "{france}");
    assert!(austria.contains("illyria (Austria) 17 Gold"), "{austria}");
    assert!(moderator.contains("illyria (Austria) 17 Gold"), "{moderator}");
    // France's gain: its source for France and the moderator; for
    // Austria, which did not see the battle, only that it was gained.
    assert!(france.contains("France +5: land +3, battles +2"), "{france}");
    assert!(moderator.contains("France +5: land +3, battles +2"), "{moderator}");
    assert!(austria.contains("France +5: land +3, other +2"), "{austria}");
    assert!(austria.contains("Austria -2: battles -2"), "{austria}");
    // Gold and VP are on the record for all: the same row for everyone.
    for s in [&france, &austria, &moderator] {
        let row = s.lines().find(|l| l.starts_with("  France")).unwrap();
        assert!(row.ends_with(" 61"), "{row}");
        assert!(row.contains("/") && row.contains(" +5 "), "{row}");
        assert!(s.contains("At war: France-Austria."), "{s}");
    }
}

/// The `points` of each `<polyline data-power="…">` of the chart's SVG.
fn polylines(svg: &str) -> BTreeMap<String, Vec<(f64, f64)>> {
    let mut out = BTreeMap::new();
    for part in svg.split("<polyline").skip(1) {
        let attr = |name: &str| {
            let at = part.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
            part[at..at + part[at..].find('"').unwrap()].to_string()
        };
        let points = attr("points")
            .split(' ')
            .map(|xy| {
                let (x, y) = xy.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        out.insert(attr("data-power"), points);
    }
    out
}

#[test]
fn the_vp_chart_draws_every_power_to_its_vp_now() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(new_game(tmp.path()));
    autoplay(&g, 6, 7, Some("2026-01-05T10:00:00Z")).unwrap();
    let entries = history::list(&g).unwrap();
    let (_, last) = entries.last_key_value().unwrap();
    let state = g.load_state().unwrap();
    let chart = empereur::report::standings::vp_history(&g, last).unwrap();
    // A point for the start and one after each phase.
    assert_eq!(chart.phases.len(), entries.len() + 1, "{:?}", chart.phases);
    let lines = polylines(&chart.svg());
    assert_eq!(lines.len(), 7, "{:?}", lines.keys());
    let axis = chart.axis();
    for p in PowerId::ALL {
        let points = &lines[p.id()];
        assert_eq!(points.len(), chart.phases.len(), "{p:?}");
        let (x, y) = *points.last().unwrap();
        assert_eq!(axis.vp(y).round() as i64, state.power(p).vp, "{p:?}: {points:?}");
        assert!((x - chart.x(chart.phases.len() - 1)).abs() < 0.1, "{p:?}");
        // and the first point is the VP the game started with
        let start = chart.series[&p][0];
        assert_eq!(axis.vp(points[0].1).round() as i64, start, "{p:?}");
    }
    // The PNG a report carries: the chart's size, and tiny.
    let png = chart.png().unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(&png));
    let info = decoder.read_info().unwrap().info().clone();
    assert_eq!((info.width, info.height), (chart::WIDTH, chart::HEIGHT));
    assert!(png.len() <= 12 * 1024, "{} bytes", png.len());
}
