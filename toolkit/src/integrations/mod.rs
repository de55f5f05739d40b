//! toolkit as the tool layer of other Rust LLM crates, each behind its own cargo feature.
//!
//! - [`async_openai`] (feature `async-openai`, async-openai `=0.43.0`): definitions as its typed
//!   `ChatCompletionTools`, its tool calls as [`ToolCall`](crate::ToolCall)s, results as its
//!   tool messages.
//!
//! The versions are pinned with `=`: a new release is adopted by a change here that our CI
//! checks, never by a user's `cargo update`.

#[cfg(feature = "async-openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "async-openai")))]
pub mod async_openai;
