//! Buffers of many megabytes (the runs and bands of a picture, argon2's
//! blocks) in a memory mapping of their own, given back to the system
//! when they are dropped.
//!
//! glibc's allocator serves a request from its heap once the request is
//! under its mmap threshold, and a freed mapped buffer raises that
//! threshold to the buffer's size (up to 32 MiB): after one password check
//! every canvas came from the heap, and when freed stayed resident there,
//! fragmented by the small allocations made between them, so the canvases
//! and the next check's blocks added up (`demo` peaked 20 MiB above its
//! live heap). A reservation above 32 MiB is always mapped on its own;
//! the pages past the buffer are never touched, so they are never resident.

/// Above the largest threshold glibc's allocator ever sets (32 MiB).
const OWN_MAPPING: usize = (32 << 20) + (1 << 20);

/// A vector of `len` copies of `value`, in a mapping of its own.
pub(crate) fn vec<T: Clone>(len: usize, value: T) -> Vec<T> {
    let size = std::mem::size_of::<T>().max(1);
    let mut v = Vec::with_capacity(len.max(OWN_MAPPING.div_ceil(size)));
    v.resize(len, value);
    v
}
