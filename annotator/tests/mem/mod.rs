//! A counting allocator for tests that bound a reader's memory. Counts are per thread, so
//! tests running in parallel do not see each other's allocations.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static CUR: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(n: isize) {
    let _ = CUR.try_with(|c| {
        let v = c.get() + n;
        c.set(v);
        let _ = PEAK.try_with(|p| p.set(p.get().max(v)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        add(l.size() as isize);
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        add(l.size() as isize);
        System.alloc_zeroed(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        add(-(l.size() as isize));
        System.dealloc(p, l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        add(new as isize - l.size() as isize);
        System.realloc(p, l, new)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Runs `f`; returns its result and the most bytes it had allocated at once (this thread).
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CUR.with(|c| c.get());
    PEAK.with(|p| p.set(base));
    let r = f();
    let peak = PEAK.with(|p| p.get()) - base;
    (r, peak.max(0) as usize)
}

/// What reading a file of `len` bytes may allocate: the two 1 MiB read buffers and the id
/// tables (a constant), plus a small multiple of the file.
pub fn bound(len: usize) -> usize {
    (4 << 20) + 64 * len
}
