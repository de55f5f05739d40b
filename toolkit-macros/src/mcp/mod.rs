//! `#[resource]` and `#[prompt]` methods of a `#[toolset]` impl block, served over MCP beside
//! its tools (read into our model by `ast::served`, their URI templates parsed by `template`):
//! `valid` checks them and `expand` writes what the `Toolset` impl returns for them.

mod expand;
mod valid;

pub(crate) use expand::overrides;
pub(crate) use valid::check;
