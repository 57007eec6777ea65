//! Injected failures for crash tests: after `arm(n)`, the n-th durable
//! write on this thread (counting from 0) fails as if the process had
//! died right after it. Only tests arm it; it costs one thread-local read
//! per write otherwise.

use std::cell::Cell;

thread_local! {
    static REMAINING: Cell<Option<u32>> = const { Cell::new(None) };
    static COUNT: Cell<u32> = const { Cell::new(0) };
}

/// Fail at the `n`-th write point from now (0 = the next one).
pub fn arm(n: u32) {
    REMAINING.with(|r| r.set(Some(n)));
    COUNT.with(|c| c.set(0));
}

/// Stop failing; returns how many write points were passed since `arm`.
pub fn disarm() -> u32 {
    REMAINING.with(|r| r.set(None));
    COUNT.with(|c| c.get())
}

/// A write point: called after each durable write (atomic replace,
/// rename into place). Errors when the armed count is reached.
pub fn point(what: &str) -> anyhow::Result<()> {
    COUNT.with(|c| c.set(c.get() + 1));
    REMAINING.with(|r| match r.get() {
        Some(0) => {
            r.set(None);
            Err(anyhow::anyhow!("injected failure after writing {what}"))
        }
        Some(n) => {
            r.set(Some(n - 1));
            Ok(())
        }
        None => Ok(()),
    })
}
