//! Shared by the benches: the smoke switch. With `EMPEREUR_BENCH_SMOKE`
//! set, each bench does one tiny iteration of everything it measures, so
//! CI (`.ci/run`) proves that every bench still builds, runs and checks
//! its own results in seconds; the figures it prints then mean nothing.

/// Whether this is a smoke run (`EMPEREUR_BENCH_SMOKE` set).
pub fn smoke() -> bool {
    std::env::var_os("EMPEREUR_BENCH_SMOKE").is_some()
}

/// `full` in a timing run, `tiny` in a smoke run.
pub fn size<T>(full: T, tiny: T) -> T {
    if smoke() { tiny } else { full }
}

/// CPU seconds (user + system) used so far by this process (`self_`) or
/// by its waited-for children (`!self_`), from `/proc/self/stat`; `None`
/// off Linux. On a shared machine wall times measure the queue for the
/// cores as much as the work: the CPU time beside them tells which.
#[allow(dead_code)] // not every bench prints it
pub fn cpu_secs(self_: bool) -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), from field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime, stime, cutime, cstime are fields 14-17 (indices 11-14 here).
    let (u, s) = if self_ { (11, 12) } else { (13, 14) };
    let ticks: f64 = f.get(u)?.parse::<f64>().ok()? + f.get(s)?.parse::<f64>().ok()?;
    // USER_HZ is 100 on every Linux platform Rust targets.
    Some(ticks / 100.0)
}

/// A new game of the 1805 scenario in `dir` with the players of
/// `players_toml` (house seating, no options) under the id `id`.
#[allow(dead_code)] // not every bench makes a game
pub fn new_game(dir: &std::path::Path, players_toml: &str, id: &str) {
    let players = empereur::store::players::parse("players.toml", players_toml).unwrap();
    empereur::ops::new::create_from(
        &empereur::ops::new::NewOptions {
            dir: dir.to_path_buf(),
            scenario: "1805".into(),
            players: Default::default(),
            options: vec![],
            id: Some(id.into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
}
