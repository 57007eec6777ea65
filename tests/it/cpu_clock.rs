//! Time a piece of work by this thread's time on a CPU (Linux), else the
//! wall clock: a loaded machine (the rest of the suite runs beside)
//! stretches wall time, not the work done. Shared by the tests that pin
//! a path as linear by a ratio of two sizes.
#![allow(clippy::disallowed_methods)] // the tests measure time; the core never does

use std::time::{Duration, Instant};

/// The least of `tries` measurements.
pub fn best(tries: usize, mut f: impl FnMut() -> Duration) -> Duration {
    (0..tries).map(|_| f()).min().unwrap()
}

/// A started measurement.
pub struct Clock(Instant, Option<u64>);

fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl Clock {
    pub fn start() -> Clock {
        Clock(Instant::now(), thread_cpu_ns())
    }
    pub fn elapsed(&self) -> Duration {
        match (self.1, thread_cpu_ns()) {
            (Some(a), Some(b)) => Duration::from_nanos(b - a),
            _ => self.0.elapsed(),
        }
    }
}
