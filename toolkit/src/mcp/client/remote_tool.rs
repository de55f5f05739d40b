//! One remote tool as a toolkit tool: its definition as the server describes it, an async
//! [`ToolProxy`] that calls through the shared session, and the result as the model reads it.

use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::Options;
use super::listing::{SchemaRefused, json_len_within};
use super::session::Session;
use crate::schema::{InlineError, inline_refs};
use toolkit_runtime::__private::Forwarded;
use crate::{ToolAnnotations, ToolDefinition, ToolError, ToolProxy};

/// Why a remote call ends as [`ToolError::Cancelled`]: its context was cancelled (an MCP
/// client's `notifications/cancelled`, an agent stopped), and the server was told to stop.
const CANCELLED: &str = "its caller stopped it, and the MCP server was told to stop too";

/// Why a remote tool is left out.
#[derive(Debug, thiserror::Error)]
pub(super) enum LeftOut {
    #[error(transparent)]
    Schema(#[from] InlineError),
    #[error(transparent)]
    Refused(#[from] SchemaRefused),
}

/// One remote tool as an async proxy that calls through the shared session, or why it cannot
/// be used.
///
/// It takes a context: the server's progress for the call, and its log messages meanwhile, go
/// to the calling tool's context (an agent's events, or the client of an MCP server serving
/// this tool), and the call is cancelled on the server when the context is, when the call
/// times out, or when its future is dropped. Its result is content (`returning_content`):
/// images, audio and resources reach every format as what they are.
pub(super) fn remote_tool(
    session: &Arc<Session>,
    options: &Options,
    tool: rmcp::model::Tool,
) -> Result<ToolProxy, LeftOut> {
    let remote_name = tool.name.to_string();
    let definition = definition(options, &tool)?;
    let local_name = definition.name.clone();
    let session = Arc::clone(session);
    let timeout = options.timeout;
    let structured = options.structured;
    let idempotent = definition.options.annotations.idempotent == Some(true);
    let proxy = ToolProxy::from_async_fn_with_context(definition, move |arguments, ctx| {
        let session = Arc::clone(&session);
        let (name, local_name) = (remote_name.clone(), local_name.clone());
        async move {
            let call = async {
                let result = session
                    .call_tool(&name, arguments, idempotent, &ctx)
                    .await
                    .map_err(|message| ToolError::Failed {
                        tool: local_name.clone(),
                        message,
                    })?;
                let value = into_value(&result, structured).map_err(|message| {
                    ToolError::Failed {
                        tool: local_name.clone(),
                        message,
                    }
                })?;
                // The result itself rides beside the value: an MCP server serving this tool
                // answers with it.
                let result = serde_json::to_value(&result).unwrap_or(Value::Null);
                Ok(Forwarded { value, result })
            };
            // Either way the call's future is dropped, which tells the server to cancel it.
            tokio::select! {
                outcome = toolkit_runtime::within(timeout, call) => outcome.unwrap_or_else(|| {
                    Err(ToolError::TimedOut { tool: local_name.clone(), timeout })
                }),
                () = ctx.cancelled() => Err(ToolError::Cancelled {
                    tool: local_name.clone(),
                    reason: CANCELLED.to_owned(),
                }),
            }
        }
    });
    // Asked for structured content, a caller gets the server's JSON as it is.
    let proxy = proxy.forwarding();
    Ok(if structured {
        proxy
    } else {
        proxy.returning_content()
    })
}

/// The server's description of a tool, renamed with the prefix, `$ref`s inlined.
fn definition(options: &Options, tool: &rmcp::model::Tool) -> Result<ToolDefinition, LeftOut> {
    let limit = options.listing.max_schema_bytes;
    // Inlining can multiply a schema's size: measure it first, as the server sent it. Over
    // stdio and SSE the page was screened in its text already; rmcp's Streamable HTTP client
    // hands over a body it parsed itself, so this is the check there.
    let schemas = [
        ("input", Some(&tool.input_schema)),
        ("output", tool.output_schema.as_ref()),
    ];
    for (which, schema) in schemas {
        if schema.is_some_and(|schema| json_len_within(schema, limit).is_none()) {
            return Err(SchemaRefused::TooLarge { which, limit }.into());
        }
    }
    let mut definition = ToolDefinition::new(
        format!("{}{}", options.prefix, tool.name),
        tool.description.as_deref().unwrap_or_default(),
        inline_refs(&Value::Object((*tool.input_schema).clone()))?,
    );
    definition.output_schema = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object((**schema).clone()));
    definition.options.max_output_bytes = Some(options.max_output_bytes);
    // The title clients show; older servers put it in the annotations.
    definition.title = tool.title.clone().or_else(|| {
        let hints = tool.annotations.as_ref()?;
        hints.title.clone()
    });
    // rmcp's icons and ours are both MCP's `Icon`; an icon that does not read is left out.
    definition.icons = tool
        .icons
        .iter()
        .flatten()
        .filter_map(|icon| serde_json::to_value(icon).ok())
        .filter_map(|icon| serde_json::from_value(icon).ok())
        .collect();
    if let Some(hints) = &tool.annotations {
        definition.options.annotations = ToolAnnotations {
            read_only: hints.read_only_hint,
            destructive: hints.destructive_hint,
            idempotent: hints.idempotent_hint,
            open_world: hints.open_world_hint,
        };
    }
    // The per-call timeout is kept around the request (above), where its error can say that
    // the server did not answer; a pipeline deadline too would race it with a vaguer message.
    Ok(definition)
}

/// A call result as the model reads it, in a shape [`ToolOutput::from_value`](crate::ToolOutput)
/// reads back block by block: one text block is its string, any other single block its MCP
/// object, several blocks a list (text as strings). `structuredContent` is the value when asked
/// for or when there is no content; beside blocks other than text it is kept, the value then
/// being the whole `{"content": [...], "structuredContent": ...}` (beside text only it repeats
/// that text, as the protocol asks, and is left out). `isError` is a tool error with the text.
fn into_value(result: &CallToolResult, structured: bool) -> Result<Value, String> {
    let items: Vec<Value> = result
        .content
        .iter()
        .map(|block| match serde_json::to_value(block) {
            Ok(Value::Object(item)) if item.get("type").and_then(Value::as_str) == Some("text") => {
                item.get("text").cloned().unwrap_or(Value::Null)
            }
            Ok(other) => other,
            Err(err) => Value::String(format!("<content that could not be read: {err}>")),
        })
        .collect();
    if result.is_error == Some(true) {
        let message = items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Err(message);
    }
    if (structured || items.is_empty())
        && let Some(value) = &result.structured_content
    {
        return Ok(value.clone());
    }
    if let Some(value) = &result.structured_content
        && items.iter().any(|item| !item.is_string())
    {
        let content: Vec<Value> = items
            .into_iter()
            .map(|item| match item {
                Value::String(text) => json!({"type": "text", "text": text}),
                block => block,
            })
            .collect();
        return Ok(json!({"content": content, "structuredContent": value}));
    }
    let mut items = items;
    Ok(match items.len() {
        0 => Value::Null,
        1 => items.remove(0),
        _ => Value::Array(items),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).expect("a CallToolResult")
    }

    #[test]
    fn one_text_item_is_a_string_and_several_are_a_list_with_images_kept() {
        let one = result(json!({"content": [{"type": "text", "text": "hi"}]}));
        assert_eq!(into_value(&one, false).unwrap(), json!("hi"));
        let mixed = result(json!({"content": [
            {"type": "text", "text": "a chart"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        ]}));
        assert_eq!(
            into_value(&mixed, false).unwrap(),
            json!(["a chart", {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
        );
    }

    #[test]
    fn is_error_becomes_a_tool_error_with_the_server_text() {
        let failed =
            result(json!({"isError": true, "content": [{"type": "text", "text": "no such repo"}]}));
        match into_value(&failed, false) {
            Err(message) => assert_eq!(message, "no such repo"),
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn structured_content_beside_an_image_is_kept_in_a_shape_tool_output_reads() {
        let value = json!({
            "content": [
                {"type": "text", "text": "a chart"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            ],
            "structuredContent": {"points": 2}
        });
        let read = into_value(&result(value.clone()), false).unwrap();
        assert_eq!(read, value);
        let output = crate::ToolOutput::from_value(read);
        assert_eq!(output.structured_content, Some(json!({"points": 2})));
        assert_eq!(output.content.len(), 2);
    }

    #[test]
    fn structured_content_is_returned_only_when_asked_for() {
        let value = json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}});
        assert_eq!(
            into_value(&result(value.clone()), false).unwrap(),
            json!("{\"n\":1}")
        );
        assert_eq!(into_value(&result(value), true).unwrap(), json!({"n": 1}));
    }
}
