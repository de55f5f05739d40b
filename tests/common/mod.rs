//! Fixtures shared by several test files; each includes them with `mod common;` (the binaries
//! `tests/mcp/` and `tests/agent/` with `#[path = "../common/mod.rs"]`, and their modules with
//! `use crate::common;`). Cargo does not build this directory as a test of its own.

pub mod durable_agent;
pub mod examples;
#[cfg(unix)]
pub mod fake_gh;
pub mod formats;
pub mod golden;
pub mod mcp;
pub mod memory;
pub mod model_server;
pub mod provider_sdk;
pub mod raw_mcp;
pub mod restate;
pub mod wire;
