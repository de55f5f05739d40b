//! Helpers that cut the fuzzer's bytes into the pieces a target needs.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The first byte (a selector) and the rest; `None` for empty input.
pub fn split_first(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(first, rest)| (*first, rest))
}

/// The input cut at the first NUL byte: (before, after). Without a NUL, after is empty.
pub fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[]),
    }
}

/// One tokio runtime per process, reused by every input (AFL runs many inputs per process).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(8)
            .enable_all()
            .build()
            .unwrap_or_else(|err| panic!("cannot start the fuzz runtime: {err}"))
    })
}

/// Runs `work` and panics if it takes longer than `limit`: a call must stay within its limits.
pub fn within<T>(what: &str, limit: Duration, work: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = work();
    let took = started.elapsed();
    assert!(took <= limit, "{what} took {took:?}, over {limit:?}");
    out
}

/// Checks that a tool's answer stays within `cap` bytes, measured as `max_output_bytes` is.
pub fn assert_within_output_cap(answer: &serde_json::Value, cap: usize) {
    let size = match answer {
        serde_json::Value::String(text) => text.len(),
        other => other.to_string().len(),
    };
    assert!(
        size <= cap,
        "an answer of {size} bytes passed a {cap}-byte cap: {answer}"
    );
}
