//! Every attribute and key the macros read, in one table (serde_derive's `symbol.rs`).
//!
//! Adding a key means adding it here and to its attribute's list below, which is also what an
//! unknown-key error offers the user.

use std::fmt::{self, Display};

use syn::{Ident, Path};

#[derive(Copy, Clone)]
pub struct Symbol(&'static str);

// The attributes.
pub(crate) const TOOLSET: Symbol = Symbol("toolset");
pub(crate) const TOOL: Symbol = Symbol("tool");
pub(crate) const RESOURCE: Symbol = Symbol("resource");
pub(crate) const PROMPT: Symbol = Symbol("prompt");
pub(crate) const ARG: Symbol = Symbol("arg");
pub(crate) const DOC: Symbol = Symbol("doc");
/// `#[state(...)]` on a field of a `#[derive(AgentState)]` struct.
pub(crate) const STATE: Symbol = Symbol("state");
/// The crate `#[toolkit::tool]` is spelled with.
pub(crate) const TOOLKIT: Symbol = Symbol("toolkit");

// Their keys.
pub(crate) const NAME: Symbol = Symbol("name");
pub(crate) const CRATE: Symbol = Symbol("crate");
pub(crate) const REGISTER: Symbol = Symbol("register");
pub(crate) const DESCRIPTION: Symbol = Symbol("description");
pub(crate) const STRICT: Symbol = Symbol("strict");
pub(crate) const BLOCKING: Symbol = Symbol("blocking");
pub(crate) const INLINE: Symbol = Symbol("inline");
pub(crate) const NEEDS_APPROVAL: Symbol = Symbol("needs_approval");
pub(crate) const READ_ONLY: Symbol = Symbol("read_only");
pub(crate) const DESTRUCTIVE: Symbol = Symbol("destructive");
pub(crate) const IDEMPOTENT: Symbol = Symbol("idempotent");
pub(crate) const OPEN_WORLD: Symbol = Symbol("open_world");
pub(crate) const TIMEOUT_MS: Symbol = Symbol("timeout_ms");
pub(crate) const MAX_INPUT_BYTES: Symbol = Symbol("max_input_bytes");
pub(crate) const MAX_OUTPUT_BYTES: Symbol = Symbol("max_output_bytes");
pub(crate) const MAX_DEPTH: Symbol = Symbol("max_depth");
pub(crate) const DEFAULT: Symbol = Symbol("default");
pub(crate) const REQUIRED: Symbol = Symbol("required");
pub(crate) const FROM_STATE: Symbol = Symbol("from_state");
pub(crate) const OUTPUTS_TO_STATE: Symbol = Symbol("outputs_to_state");
pub(crate) const OUTPUTS_TO_STRING: Symbol = Symbol("outputs_to_string");
pub(crate) const WITH: Symbol = Symbol("with");
pub(crate) const REPLACE: Symbol = Symbol("replace");
pub(crate) const MERGE: Symbol = Symbol("merge");
pub(crate) const TITLE: Symbol = Symbol("title");
pub(crate) const ICON: Symbol = Symbol("icon");
pub(crate) const SCOPES: Symbol = Symbol("scopes");
pub(crate) const TASK: Symbol = Symbol("task");
pub(crate) const COMPLETE: Symbol = Symbol("complete");
pub(crate) const URI: Symbol = Symbol("uri");
pub(crate) const MIME_TYPE: Symbol = Symbol("mime_type");
/// `#[arg(header = "Region")]`: the HTTP header an MCP client mirrors the argument into.
pub(crate) const HEADER: Symbol = Symbol("header");

/// The keys of `#[toolset(...)]`, in the order an unknown-key error lists them.
pub(crate) const TOOLSET_KEYS: &[Symbol] = &[NAME, STATE, CRATE, REGISTER];

/// The keys of `#[tool(...)]`, in the order an unknown-key error lists them.
pub(crate) const TOOL_KEYS: &[Symbol] = &[
    NAME,
    TITLE,
    DESCRIPTION,
    ICON,
    STRICT,
    BLOCKING,
    INLINE,
    NEEDS_APPROVAL,
    READ_ONLY,
    DESTRUCTIVE,
    IDEMPOTENT,
    OPEN_WORLD,
    TIMEOUT_MS,
    MAX_INPUT_BYTES,
    MAX_OUTPUT_BYTES,
    MAX_DEPTH,
    OUTPUTS_TO_STATE,
    OUTPUTS_TO_STRING,
    SCOPES,
    TASK,
];

/// The keys of `#[arg(...)]`, in the order an unknown-key error lists them.
pub(crate) const ARG_KEYS: &[Symbol] = &[
    DESCRIPTION,
    DEFAULT,
    REQUIRED,
    FROM_STATE,
    COMPLETE,
    NAME,
    HEADER,
];

/// The keys of `#[resource(...)]`, in the order an unknown-key error lists them.
pub(crate) const RESOURCE_KEYS: &[Symbol] = &[URI, NAME, TITLE, DESCRIPTION, MIME_TYPE, ICON];

/// The keys of `#[prompt(...)]`, in the order an unknown-key error lists them.
pub(crate) const PROMPT_KEYS: &[Symbol] = &[NAME, TITLE, DESCRIPTION, ICON];

/// The keys of `#[state(...)]` on a field, in the order an unknown-key error lists them.
pub(crate) const STATE_KEYS: &[Symbol] = &[REPLACE, MERGE];

/// The keys of `#[state(...)]` on the struct, in the order an unknown-key error lists them.
pub(crate) const STATE_CONTAINER_KEYS: &[Symbol] = &[CRATE];

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl Display for Symbol {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_is_listed_once_per_attribute() {
        for keys in [
            TOOLSET_KEYS,
            TOOL_KEYS,
            ARG_KEYS,
            RESOURCE_KEYS,
            PROMPT_KEYS,
            STATE_KEYS,
            STATE_CONTAINER_KEYS,
        ] {
            let mut names: Vec<&str> = keys.iter().map(|key| key.0).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), keys.len());
        }
    }
}
