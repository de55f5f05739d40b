//! The targets, by name. Each `run` takes any bytes and panics only when an invariant breaks.
//!
//! This folder is also compiled into the workspace's `tests/fuzz_smoke.rs` (`#[path]`), so it
//! names only `toolkit`, `serde`, `serde_json`, `schemars` and `tokio`.

mod coerce;
mod dynamic_call;
mod input;
mod mcp_server;
mod parse;
mod sse;
mod text;

/// A target's entry point: any bytes in, a panic when an invariant breaks.
pub type Target = fn(&[u8]);

/// Every target: its name and its entry point.
pub const TARGETS: [(&str, Target); 6] = [
    ("parse", parse::run),
    ("dynamic_call", dynamic_call::run),
    ("coerce", coerce::run),
    ("text", text::run),
    ("mcp_server", mcp_server::run),
    ("sse", sse::run),
];

/// The entry point of the target called `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS
        .iter()
        .find(|(target, _)| *target == name)
        .map(|(_, run)| *run)
}
