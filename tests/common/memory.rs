//! This process's memory, as Linux's `/proc/self/status` tells it, for the tests that measure
//! what a flood costs.

#![allow(dead_code)]

/// A field of `/proc/self/status` in kB (`VmRSS`, resident now; `VmHWM`, the peak so far);
/// `None` where `/proc` does not tell it.
fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))?;
    line.split_whitespace().next()?.parse().ok()
}

/// Resident memory now, in kB.
pub fn resident_kb() -> Option<u64> {
    status_kb("VmRSS")
}

/// Resident memory now, in MB.
pub fn resident_mb() -> Option<u64> {
    resident_kb().map(|kb| kb / 1024)
}

/// The peak resident memory so far, in bytes (0 where `/proc` does not tell it).
pub fn peak_bytes() -> u64 {
    status_kb("VmHWM").unwrap_or(0) * 1024
}
