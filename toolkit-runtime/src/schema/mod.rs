//! JSON Schemas: built from Rust types, made self-contained, and read.
//!
//! - `build`: a tool's parameters schema and a type's schema, from schemars.
//! - `refs`: the one `$ref` inliner and resolver, for every schema whatever its source.
//! - `tidy`: what schemars writes that models and providers trip over, removed.
//! - `implied`: whether a schema says more than serde enforces (the typed fast path's test).
//! - `keywords`: the questions the call pipeline and the provider converters ask of a schema.

pub(crate) mod build;
mod implied;
pub(crate) mod keywords;
mod refs;
mod tidy;

// `ParamSpec`, `param_schema*` and `parameters_schema` are the macro's: reachable only through
// `__private`.
pub(crate) use build::ParamSpec;
pub use build::{MCP_HEADER, generator, type_schema};
pub(crate) use implied::implied_by_types;
pub use refs::{InlineError, inline_refs};
pub(crate) use refs::{ref_name, resolve_ref};
