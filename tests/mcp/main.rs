//! The MCP tests, one module per subject, in one test binary: each file here once was a binary of
//! its own, and each linked and monomorphized the whole MCP/HTTP stack again. The Python and
//! Node peers they start live beside them.

#[path = "../common/mod.rs"]
mod common;

mod client;
mod client_context;
mod client_era;
mod client_hardening;
mod context;
mod eras;
mod header_params;
mod input_required;
mod load_faults;
mod lookups;
mod oauth_client;
mod oauth_server;
mod proxy;
mod proxy_tasks;
mod resources;
mod server;
mod server_hardening;
mod server_peers;
mod stdio_hardening;
mod streams;
mod tasks;
mod tasks_bounds;
mod tasks_extension;
