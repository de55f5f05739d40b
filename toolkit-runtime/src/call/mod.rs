//! The call pipeline: a [`ToolProxy`] and everything one call goes through.
//!
//! ```text
//! input (JSON text or value)
//!   -> limits: size and nesting depth, before anything parses or recurses    (limits)
//!   -> JSON object of named arguments                                        (pipeline)
//!   -> validated against the parameters schema                              (validate)
//!        rejected as sent? drop omitted nulls, coerce, validate again        (nulls, coerce)
//!        still rejected: every problem, phrased for the model                (problems, suggest)
//!   -> typed arguments: the parameters' tuple, taken from them              (arguments, typed)
//!   (fast path: JSON text or object read straight into the parameters' types when the
//!    schema says nothing more than they do; anything else takes the path above) (typed)
//!   -> the body: sync, on the blocking pool, or async; panics caught,
//!      deadline kept                                                         (handler, panic, deadline, async_bridge)
//!      (a sync body bound for the blocking pool waits there for a place,
//!       and its arguments are checked on that thread too)                   (places)
//!   -> JSON result, still typed: Result<Value, ToolError>                   (output)
//!   (with state: a `#[toolset(state = T)]` method reads and writes the fields of `T`
//!    directly when it can; anything else fills and merges through JSON)     (typed_state)
//!   -> rendered once, at the edge: `Error: ` prefix and output bound        (render)
//! ```
//!
//! Sync and async calls share every step but the one that runs the body; each call runs in a
//! `tracing` span (`trace`, whose `ToolProxy::traced` is the one span -> policy -> pipeline
//! sequence every entry point goes through). `tool_call` holds a call and its rendered result;
//! `method_tool` adapts what `#[tool]` generates to the pipeline.

mod arguments;
mod async_bridge;
mod closures;
mod coerce;
mod complexity;
mod deadline;
mod definition;
mod handler;
mod limits;
mod method_tool;
mod nulls;
mod origin;
mod output;
mod panic;
mod pipeline;
mod places;
mod problems;
mod proxy;
mod render;
mod suggest;
mod tool_call;
mod trace;
mod typed;
mod typed_state;
mod validate;

pub use arguments::Arguments;
pub use async_bridge::{allow_async_to_sync, async_to_sync_allowed};
pub use deadline::within;
pub(crate) use definition::DefinitionCache;
pub(crate) use definition::TOOL_NAME_RULE;
pub use definition::{
    Icon, TaskSupport, ToolAnnotations, ToolDefinition, ToolOptions, is_valid_tool_name,
};
pub use handler::{BoxFuture, Handler, HandlerError, TypedHandler, TypedInput};
pub use limits::Limits;
pub use method_tool::MethodTool;
pub use output::{
    ContentProbe, DefaultHidden, DefaultShown, DefaultValue, HasOutputSchema, NoOutputSchema,
    OutputSchemaProbe, ReturnsContent, ReturnsJson, output, output_ref, result_output,
};
#[cfg(feature = "__test_hooks")]
pub use pipeline::__fast_path_calls;
pub use proxy::ToolProxy;
pub use render::Forwarded;
pub use tool_call::{ToolCall, ToolCallResult};
pub use typed::{Field, FieldReaders, FieldsProbe, HasFields, NoFields, ParseFields};

pub(crate) use nulls::drop_omitted_nulls;
pub(crate) use origin::CallOrigin;
pub(crate) use panic::{CatchUnwind, caught, panic_message};
pub(crate) use render::Rendering;
pub(crate) use trace::CallSpan;
pub(crate) use validate::ArgumentValidator;
