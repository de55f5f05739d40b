//! `#[resource]` and `#[prompt]` methods of a `#[toolset]` impl block, served over MCP beside
//! its tools: `ast` reads them into our model, `template` parses resource URI templates,
//! `valid` checks them and `expand` writes what the `Toolset` impl returns for them.

mod ast;
mod expand;
mod template;
mod valid;

pub(crate) use ast::{PromptFn, ResourceFn};
pub(crate) use expand::overrides;
pub(crate) use valid::check;
