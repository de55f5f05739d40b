//! Ready-made toolsets, name-compatible with DSPy.rb's built-ins so prompts written for those
//! keep working: [`TextProcessingToolset`] (`text_*`) and, with the opt-in `github` feature,
//! `GithubCliToolset` (`github_*`).
//!
//! Neither uses a shell. The text tools are pure Rust with bounded work; the GitHub tools run the
//! `gh` program with an argument vector and a timeout. Every refusal or failure is a
//! [`BuiltinError`], which a model reads as `"Error: ..."`. See `docs/builtin.md`.
//!
//! ```
//! use toolkit::builtin::TextProcessingToolset;
//! use toolkit::prelude::*;
//!
//! let names: Vec<_> = TextProcessingToolset::to_tools().iter().map(|t| t.name().to_owned()).collect();
//! assert_eq!(names.len(), 8);
//! assert_eq!(names[0], "text_grep");
//! ```

mod error;
#[cfg(feature = "github")]
mod github;
mod text;

pub use error::BuiltinError;
#[cfg(feature = "github")]
#[cfg_attr(docsrs, doc(cfg(feature = "github")))]
pub use github::{
    DEFAULT_GITHUB_TIMEOUT, GithubCliToolset, IssueState, IssueStatus, Mergeable, PrState,
    PrStatus, TrafficPeriod,
};
pub use text::{
    DEFAULT_MAX_TEXT_BYTES, MAX_PATTERN_BYTES, REGEX_SIZE_LIMIT, RG_MAX_LINES, RG_MAX_OUTPUT_BYTES,
    TextProcessingToolset,
};
