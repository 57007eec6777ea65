//! Link options that shrink the shipped binary (issue 37; docs/performance.md,
//! "The binary"), given only where the toolchain and the C library the
//! binary will load with support them, so that a build never fails or makes
//! a binary its own machine cannot start. A build script reads the
//! environment Cargo gives it: it is an adapter, not the pure core.
#![allow(clippy::disallowed_methods)]

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| env::var(name).unwrap_or_default();
    // Only the release profiles (and those inheriting from them), and only a
    // native build: the C library probed below is the one the binary runs on.
    if var("PROFILE") != "release" || var("TARGET") != var("HOST") {
        return;
    }
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" && glibc_at_least(2, 36) {
        // Relative relocations packed (DT_RELR): 1.3 MB of `.rela.dyn` in a
        // position-independent binary become a few KB, and the binary keeps
        // its randomised address. glibc reads them from 2.36 on; GNU ld
        // from 2.38 and lld from 15 write them.
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Is the C library of this machine glibc `major.minor` or later?
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    // "glibc 2.36"
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text
        .trim()
        .trim_start_matches("glibc ")
        .split('.')
        .map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}
