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
