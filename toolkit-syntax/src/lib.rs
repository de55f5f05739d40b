//! The syntax rules toolset's macros and runtime share, so the two never disagree: which names
//! model providers accept for a tool, and the resource URI templates (`users://{id}/profile`)
//! `#[resource]` and `ResourceTemplate` read.
//!
//! Not meant to be used directly: `toolkit` re-exports what users need
//! (`toolkit::is_valid_tool_name`, `toolkit::resources::UriTemplate`).
//!
//! ```
//! use toolkit_syntax::uri_template::{self, Part};
//!
//! assert!(toolkit_syntax::is_valid_tool_name("stats_word_count"));
//! assert_eq!(
//!     uri_template::parse("file:///{+path}").unwrap(),
//!     [Part::Literal("file:///".into()), Part::Param { name: "path".into(), path: true }],
//! );
//! ```

#![forbid(unsafe_code)]

mod tool_name;
pub mod uri_template;

pub use tool_name::is_valid_tool_name;
