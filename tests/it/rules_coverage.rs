#![allow(clippy::disallowed_methods)] // test adapter: reads the docs and the case files
//! `docs/rules-coverage.md` says one thing per section, and a section it
//! lists as done (or impl) is cited by at least one rule case
//! (`rule = "…"` in `tests/cases/` or `tests/war_cases/`) unless its row
//! says why no case can exist (`editorial`, or `data:` for set-up data that
//! `tests/it/scenario.rs` checks).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cited(dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            cited(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&p).expect("case file");
            let v: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            if let Some(r) = v.get("rule").and_then(|r| r.as_str()) {
                out.extend(r.split(',').map(|s| s.trim().to_string()));
            }
        }
    }
}

/// (section, status, row text) of every table row whose first cell is a
/// section number.
fn rows(doc: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 {
            continue;
        }
        let status = cells[3].to_string();
        for sec in cells[1].split(',').map(str::trim) {
            let sec = sec.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            if !sec.is_empty() && sec.chars().next().is_some_and(|c| c.is_ascii_digit()) && sec.contains('.') {
                out.push((sec.to_string(), status.clone(), line.to_string()));
            }
        }
    }
    out
}

fn kind(status: &str) -> &'static str {
    let s = status.to_lowercase();
    if s.starts_with("not yet") {
        "not yet"
    } else if s.starts_with("done") || s.starts_with("impl") || s.starts_with("house") {
        "implemented"
    } else {
        "other"
    }
}

#[test]
fn one_status_per_section() {
    let doc = std::fs::read_to_string(root().join("docs/rules-coverage.md")).expect("coverage doc");
    let mut seen: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for (sec, status, _) in rows(&doc) {
        seen.entry(sec).or_default().insert(kind(&status));
    }
    let bad: Vec<String> = seen
        .iter()
        .filter(|(_, k)| k.len() > 1)
        .map(|(s, k)| format!("{s}: {k:?}"))
        .collect();
    assert!(
        bad.is_empty(),
        "sections listed both as implemented and not yet:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_done_section_has_a_case() {
    let doc = std::fs::read_to_string(root().join("docs/rules-coverage.md")).expect("coverage doc");
    let mut cases = BTreeSet::new();
    cited(&root().join("tests/cases"), &mut cases);
    cited(&root().join("tests/war_cases"), &mut cases);
    let mut missing = BTreeSet::new();
    for (sec, status, row) in rows(&doc) {
        let s = status.to_lowercase();
        let claimed = s.starts_with("done") || s.starts_with("impl");
        let exempt = row.contains("editorial") || row.contains("data:");
        if claimed && !exempt && !cases.contains(&sec) {
            missing.insert(sec);
        }
    }
    assert!(
        missing.is_empty(),
        "sections listed as done with no rule case citing them (add a case, or say `editorial`/`data:` in the row): {missing:?}"
    );
}

/// Every worked example of the rules notes (the table "Worked examples of
/// the rules notes") names rule cases that exist and cite its rule, or
/// gives the reason it has none.
#[test]
fn every_worked_example_has_a_case_or_a_reason() {
    let doc = std::fs::read_to_string(root().join("docs/rules-coverage.md")).expect("coverage doc");
    let start = doc
        .find("## Worked examples of the rules notes")
        .expect("the worked-examples section");
    let section = &doc[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut ids = BTreeSet::new();
    let mut bad = Vec::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !cells[1].contains('-') || cells[1].starts_with("---") {
            continue;
        }
        let (id, rule, what) = (cells[1], cells[2].split(' ').next().unwrap_or(""), cells[3]);
        if !ids.insert(id.to_string()) {
            bad.push(format!("{id}: listed twice"));
        }
        let cases: Vec<&str> = what
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| s.starts_with("cases/") || s.starts_with("war_cases/"))
            .collect();
        if cases.is_empty() {
            if !what.starts_with("reason: ") || what.len() < 20 {
                bad.push(format!("{id}: neither a case nor a reason"));
            }
            continue;
        }
        for c in cases {
            let path = root().join("tests").join(format!("{c}.toml"));
            let Ok(text) = std::fs::read_to_string(&path) else {
                bad.push(format!("{id}: no case {c}"));
                continue;
            };
            let v: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{c}: {e}"));
            let cites = v
                .get("rule")
                .and_then(|r| r.as_str())
                .is_some_and(|r| r.split(',').any(|s| s.trim() == rule));
            if !cites {
                bad.push(format!("{id}: case {c} does not cite {rule}"));
            }
        }
    }
    assert!(ids.len() >= 30, "the worked examples are missing: {ids:?}");
    assert!(bad.is_empty(), "worked examples:\n{}", bad.join("\n"));
}
