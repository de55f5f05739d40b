//! toolkit as the tool layer of other Rust LLM crates, each behind its own cargo feature.
//!
//! - [`async_openai`] (feature `async-openai`, async-openai `=0.43.0`): definitions as its typed
//!   `ChatCompletionTools`, its tool calls as [`ToolCall`](crate::ToolCall)s, results as its
//!   tool messages.
//! - [`rig`] (feature `rig`, rig-core `=0.44.0`): toolkit tools as rig's `DynamicTool`s for a rig
//!   agent, and rig tools as [`ToolProxy`](crate::ToolProxy)s for a
//!   [`Toolbox`](crate::Toolbox).
//!
//! The versions are pinned with `=`: a new release is adopted by a change here that our CI
//! checks, never by a user's `cargo update`.

#[cfg(feature = "async-openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "async-openai")))]
pub mod async_openai;

#[cfg(feature = "rig")]
#[cfg_attr(docsrs, doc(cfg(feature = "rig")))]
pub mod rig;
