//! A counting global allocator for benches that report allocations per call next to timings.
//! A bench includes it with `#[path = "support/counting.rs"] mod counting;`.
//!
//! The workspace denies unsafe code; a `GlobalAlloc` is an unsafe trait, and this one only
//! forwards to `System`.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting allocations (reallocations count: they are allocations).
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations per call of `body`, averaged over a warm loop.
pub(crate) fn allocations_per_call<R>(mut body: impl FnMut() -> R) -> f64 {
    const ROUNDS: usize = 1_000;
    black_box(body());
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..ROUNDS {
        black_box(body());
    }
    (ALLOCATIONS.load(Ordering::Relaxed) - before) as f64 / ROUNDS as f64
}
