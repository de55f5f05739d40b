//! The provider-neutral conversation a chat model takes and gives: messages, the request, the
//! reply, why a model call failed, and the assembler a streamed reply is fed to.
//!
//! Each provider's wire format turns these into its own bodies and back, in one folder per
//! provider under [`providers`](crate::providers) (`providers::openai`, `providers::anthropic`);
//! an HTTP client only moves the bytes.
//!
//! ```
//! use toolkit_runtime::chat::{ChatOptions, ChatRequest, Message};
//! use toolkit_runtime::providers::ToolDefinitions;
//!
//! let messages = [Message::system("Be brief."), Message::user("hi")];
//! let options = ChatOptions::default();
//! let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
//! assert_eq!(request.messages.len(), 2);
//! ```

pub(crate) mod caps;
pub(crate) mod decode;
mod error;
mod message;
mod stream;

pub use error::ModelError;
pub use message::{
    ChatOptions, ChatRequest, FinishReason, Message, ModelReply, OutputSchema, RefusedCall,
    ToolChoice, Usage,
};
pub use stream::{StreamAssembler, StreamDelta};
