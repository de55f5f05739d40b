//! JSON Schemas: built from Rust types, made self-contained, and read.
//!
//! - `build`: a tool's parameters schema and a type's schema, from schemars.
//! - `refs`: the one `$ref` inliner and resolver, for every schema whatever its source.
//! - `tidy`: what schemars writes that models and providers trip over, removed.
//! - `keywords`: the questions the call pipeline and the provider converters ask of a schema.

mod build;
pub(crate) mod keywords;
mod refs;
mod tidy;

pub use build::{
    ParamSpec, generator, param_schema, param_schema_option, parameters_schema, type_schema,
};
pub use refs::{InlineError, inline_refs};
pub(crate) use refs::{ref_name, resolve_ref};
