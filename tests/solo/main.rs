//! Tests that need the process to themselves (issue 36): each counts or
//! arms something process-wide (the store's fault injection, the picture
//! encoder's counter and its hold), so they may not share a binary with
//! the `it` tests, and they take [`alone`] so as not to run beside each
//! other. Out of the mutation sample. `cargo test --test solo NAME::`.

use std::sync::{Mutex, MutexGuard};

mod crash;
mod picture_games;

static ALONE: Mutex<()> = Mutex::new(());

/// Held for the whole of each test of this binary.
fn alone() -> MutexGuard<'static, ()> {
    ALONE.lock().unwrap_or_else(|e| e.into_inner())
}
