//! rig's tools and toolkit's, both ways: toolkit tools in a rig agent, rig tools in a [`Toolbox`].
//!
//! Supported: rig-core `0.44.0` (its traits and types only: `default-features = false`, no
//! provider HTTP stack). rig-core 0.44 needs Rust 1.95; the rest of toolkit keeps its own
//! minimum. rig's agent runtime lives in the rig-agent crate of the same version, whose
//! `AgentBuilder::dynamic_tools` takes what [`dynamic_tools`] returns.
//!
//! rig 0.44 names a typed tool by a constant (`Tool::NAME`); a tool whose name is only known at
//! run time is a [`DynamicTool`]: a definition and a callback over the JSON arguments. Every
//! toolkit tool becomes one, and its callback runs the tool's own pipeline (coercion,
//! validation, limits; a whole toolbox's hooks too), so a failed call reaches the model as our
//! `Error: ...` text, as a failed rig tool result.
//!
//! ```
//! use toolkit::integrations::rig::dynamic_tools;
//! use toolkit::prelude::*;
//!
//! /// Add two numbers
//! #[tool]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
//! let tools = dynamic_tools(&toolbox).unwrap(); // for rig_agent::AgentBuilder::dynamic_tools
//! assert_eq!(tools[0].name().as_str(), "add");
//!
//! let sum = tools[0].execute(json!({"a": 2, "b": "3"})).await.unwrap(); // "3" coerced to 3
//! assert_eq!(sum.as_json(), Some(&json!(5)));
//!
//! let error = tools[0].execute(json!({"a": 2})).await.unwrap_err();
//! assert_eq!(
//!     error.model_feedback(),
//!     Some(r#"Error: missing required argument "b" for add"#)
//! );
//! # }
//! ```

use std::sync::Arc;

use rig_core::completion::message::{ImageMediaType, MimeType, ToolResultContent};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ErasedTool, Tool, ToolContext, ToolExecutionError, ToolOutput};
use rig_core::wasm_compat::WasmBoxedFuture;
use serde_json::Value;

use crate::{ToolCall, ToolCallResult, ToolDefinition, ToolError, ToolProxy, Toolbox};

/// A toolkit tool as a rig [`DynamicTool`]: the same name, description and parameters, and a
/// callback that runs the tool's pipeline on every call.
///
/// The tool's own limits apply, over the defaults, as with [`ToolProxy::acall`]. An error is a
/// failed rig result whose model feedback is our `Error: ...` text. A tool without a name
/// (possible only for a definition taken as it is, through [`ToolProxy::from_fn`] or
/// [`ToolProxy::from_async_fn`]) is an error, as rig refuses empty names.
pub fn dynamic_tool(tool: &ToolProxy) -> Result<DynamicTool, ToolError> {
    // A toolbox of one runs the call exactly as the proxy would (its limits over the defaults),
    // and bounds an error's text as it bounds every result; one tool cannot be a duplicate.
    let toolbox = Toolbox::builder().tool(tool.clone()).build();
    let toolbox = toolbox.map_err(|error| ToolError::InvalidDefinition {
        tool: tool.name().to_string(),
        message: error.to_string(),
    })?;
    dispatched(Arc::new(toolbox), tool)
}

/// Every tool of a toolbox as a rig [`DynamicTool`], in the toolbox's order, each call
/// dispatched through [`Toolbox::acall`]: the toolbox's limits and policy hooks apply, as they
/// do to any other call of it.
pub fn dynamic_tools(toolbox: &Toolbox) -> Result<Vec<DynamicTool>, ToolError> {
    let shared = Arc::new(toolbox.clone());
    let tools = toolbox.tools().iter();
    tools
        .map(|tool| dispatched(Arc::clone(&shared), tool))
        .collect()
}

/// `tool` (one of `toolbox`'s) as a rig tool whose calls `toolbox` dispatches.
fn dispatched(toolbox: Arc<Toolbox>, tool: &ToolProxy) -> Result<DynamicTool, ToolError> {
    let name = ToolName::new(tool.name()).map_err(|empty| ToolError::InvalidDefinition {
        tool: tool.name().to_string(),
        message: empty.to_string(),
    })?;
    let tool_name = tool.name().to_string();
    let callback = move |arguments| -> WasmBoxedFuture<'static, _> {
        let (toolbox, call) = (Arc::clone(&toolbox), ToolCall::new(&tool_name, arguments));
        Box::pin(async move { rig_outcome(toolbox.acall(&call).await) })
    };
    Ok(DynamicTool::new(
        name,
        tool.description(),
        tool.parameters().clone(),
        callback,
    ))
}

/// A toolkit result as rig's: a value as JSON (a string as text), an error as a failed call
/// whose model feedback is the `Error: ...` text.
fn rig_outcome(result: ToolCallResult) -> Result<ToolOutput, ToolExecutionError> {
    if result.is_error {
        return Err(ToolExecutionError::other(result.text()));
    }
    if let Some(output) = result.content() {
        return rig_content(&output);
    }
    Ok(match result.value {
        Value::String(text) => ToolOutput::text(text),
        value => ToolOutput::json(value),
    })
}

/// A content result as rig's blocks: text as text, an image of a type rig knows as an image
/// (base64), any other block as the line naming it ([`Content::note`](crate::Content::note)).
fn rig_content(output: &crate::ToolOutput) -> Result<ToolOutput, ToolExecutionError> {
    let blocks = output.content.iter().map(|block| match block {
        crate::Content::Image(image) => match ImageMediaType::from_mime_type(&image.mime_type) {
            Some(media_type) => {
                ToolResultContent::image_base64(image.data.clone(), Some(media_type), None)
            }
            None => ToolResultContent::text(block.note().unwrap_or_default()),
        },
        other => match other.as_text() {
            Some(text) => ToolResultContent::text(text),
            None => ToolResultContent::text(other.note().unwrap_or_default()),
        },
    });
    let mut blocks: Vec<ToolResultContent> = blocks.collect();
    if blocks.is_empty() {
        blocks.push(ToolResultContent::text(""));
    }
    ToolOutput::content(blocks)
}

/// A typed rig tool (one with a `Tool::NAME`) as a toolkit tool, for a [`Toolbox`].
///
/// The proxy has the tool's definition; its arguments are coerced and validated against the
/// tool's parameters first, then handed to the tool as rig hands them, with an empty
/// [`ToolContext`]. A failed rig call is our error, its model feedback the message.
///
/// ```
/// use rig_core::tool::PortableTool;
/// use toolkit::integrations::rig::from_rig_tool;
/// use toolkit::prelude::*;
///
/// struct Shout;
///
/// impl PortableTool for Shout {
///     const NAME: &'static str = "shout";
///     type Args = serde_json::Value;
///     type Output = String;
///     type Error = std::convert::Infallible;
///
///     fn description(&self) -> String {
///         "Upper-case the text".into()
///     }
///
///     fn parameters(&self) -> serde_json::Value {
///         json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
///     }
///
///     async fn call(&self, args: Self::Args) -> Result<String, Self::Error> {
///         Ok(args["text"].as_str().unwrap_or_default().to_uppercase())
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let toolbox = Toolbox::builder().tool(from_rig_tool(Shout)).build().unwrap();
/// let result = toolbox.acall(&ToolCall::new("shout", json!({"text": "hi"}))).await;
/// assert_eq!(result.value, json!("HI"));
/// # }
/// ```
pub fn from_rig_tool<T: Tool + 'static>(tool: T) -> ToolProxy {
    let definition = ToolDefinition::new(
        ErasedTool::name(&tool),
        ErasedTool::description(&tool),
        ErasedTool::parameters(&tool),
    );
    let tool = Arc::new(tool);
    ToolProxy::from_async_fn(definition, move |arguments| {
        let tool = Arc::clone(&tool);
        async move {
            let mut context = ToolContext::new();
            let arguments = Value::Object(arguments).to_string();
            let result = ErasedTool::execute(&*tool, arguments, &mut context).await;
            toolkit_outcome(result.into_result())
        }
    })
}

/// A rig [`DynamicTool`] as a toolkit tool, for a [`Toolbox`]: its definition, and every call
/// validated against its parameters before [`DynamicTool::execute`] runs it.
pub fn from_dynamic_tool(tool: DynamicTool) -> ToolProxy {
    let definition = tool.definition();
    let definition = ToolDefinition::new(
        definition.name.as_str(),
        definition.description,
        definition.parameters,
    );
    ToolProxy::from_async_fn(definition, move |arguments| {
        let tool = tool.clone();
        async move { toolkit_outcome(tool.execute(Value::Object(arguments)).await) }
    })
}

/// A rig outcome as a tool body's: JSON output as it is, text as a string, anything richer
/// (images, several parts) as rig renders it; an error as the text rig would show the model.
fn toolkit_outcome(outcome: Result<ToolOutput, ToolExecutionError>) -> Result<Value, String> {
    match outcome {
        Ok(output) => Ok(output_value(&output)),
        Err(error) => Err(error.model_output().render()),
    }
}

fn output_value(output: &ToolOutput) -> Value {
    if let Some(json) = output.as_json() {
        return json.clone();
    }
    match output.as_text() {
        Some(text) => Value::String(text.to_string()),
        None => Value::String(output.render()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Audio, Image, ToolOutput};

    /// A content result reaches rig as its blocks: the image as rig's base64 image, text as
    /// text, audio (which rig's tool results cannot hold) as the line naming it.
    #[test]
    fn a_content_result_is_rig_image_and_text_blocks() {
        let call = ToolCall::new("chart", json!({})).with_id("call_1");
        let output = ToolOutput::new()
            .with("a chart")
            .with(Image::png([1, 2, 3]))
            .with(Audio::wav([4]));
        let rig = rig_outcome(ToolCallResult::from_content(&call, output)).unwrap();
        assert_eq!(
            rig.as_content(),
            [
                ToolResultContent::text("a chart"),
                ToolResultContent::image_base64("AQID", Some(ImageMediaType::PNG), None),
                ToolResultContent::text("[audio (audio/wav), 1 bytes]"),
            ]
        );
    }
}
