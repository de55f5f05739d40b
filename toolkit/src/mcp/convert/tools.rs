//! Tools and their results: a tool as `tools/list` gives it and a remote one as a toolkit
//! definition, a toolkit call's result as a `tools/call` answer and a remote answer as the value
//! a model reads.

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolkit_runtime::__private::Forwarded;

use crate::providers::{Format, McpResult};
use crate::schema::{InlineError, inline_refs};
use crate::{ToolAnnotations, ToolCallResult, ToolDefinition, ToolProxy};

/// A tool as `tools/list` describes it: its [`Format::Mcp`] definition, in rmcp's type.
pub(in crate::mcp) fn mcp_tool(tool: &ToolProxy) -> Tool {
    let listed = tool
        .definition_in(Format::Mcp)
        .map_err(|err| err.to_string())
        .and_then(|definition| serde_json::from_value(definition).map_err(|err| err.to_string()));
    listed.unwrap_or_else(|err| {
        // Only a parameters schema that is not a JSON object could fail here, and tools are
        // built with object schemas; list the tool without its schema rather than not at all.
        tracing::warn!(tool = tool.name(), error = %err, "tool listed without its schema");
        Tool::new(
            tool.name().to_owned(),
            tool.description().to_owned(),
            Map::from_iter([("type".to_owned(), json!("object"))]),
        )
    })
}

/// A result's content blocks in rmcp's type. Ours serialize as MCP's own JSON, so rmcp reads
/// them as they are; a block it could not read (none today) goes as the result's text.
fn content_blocks(parts: &McpResult) -> Vec<ContentBlock> {
    serde_json::to_value(&parts.content)
        .and_then(serde_json::from_value)
        .unwrap_or_else(|_| vec![ContentBlock::text(parts.text.clone())])
}

/// A toolkit call's result as the `tools/call` answer: a forwarding tool's remote result as its
/// server sent it (what its output schema promises), unless a hook or a bound changed the
/// result; else what `McpResult::to_json` renders, built in rmcp's types without a JSON round
/// trip.
pub(in crate::mcp) fn call_result(tool: &ToolProxy, result: ToolCallResult) -> CallToolResult {
    if let Some(forwarded) = result.forwarded()
        && let Ok(remote) = CallToolResult::deserialize(forwarded)
    {
        return remote;
    }
    let parts = tool.mcp_result(result);
    let content = content_blocks(&parts);
    let mut answer = match parts.is_error {
        true => CallToolResult::error(content),
        false => CallToolResult::success(content),
    };
    answer.structured_content = parts.structured;
    answer
}

/// A remote server's tool as a toolkit definition named `name`, its `$ref`s inlined.
pub(in crate::mcp) fn tool_definition(
    tool: &Tool,
    name: String,
) -> Result<ToolDefinition, InlineError> {
    let mut definition = ToolDefinition::new(
        name,
        tool.description.as_deref().unwrap_or_default(),
        inline_refs(&Value::Object((*tool.input_schema).clone()))?,
    );
    definition.output_schema = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object((**schema).clone()));
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
    Ok(definition)
}

/// A remote answer as a forwarding tool returns it: the value a model reads
/// ([`model_value`]), and the answer itself beside it; an `isError` answer is the tool error
/// with its text. The protocol's own `_meta` keys (`io.modelcontextprotocol/...`: the
/// upstream server's info, its task's id) are its answer to this client, not part of the
/// result: served again, they would speak for the wrong server, so they are left out.
pub(in crate::mcp) fn forwarded(
    result: &CallToolResult,
    structured: bool,
) -> Result<Forwarded, String> {
    let value = model_value(result, structured)?;
    let mut result = serde_json::to_value(result).map_err(|err| err.to_string())?;
    if let Some(Value::Object(meta)) = result.get_mut("_meta") {
        meta.retain(|key, _| !key.starts_with(PROTOCOL_META_PREFIX));
        if meta.is_empty()
            && let Value::Object(result) = &mut result
        {
            result.remove("_meta");
        }
    }
    Ok(Forwarded { value, result })
}

/// The `_meta` keys the protocol reserves for itself.
const PROTOCOL_META_PREFIX: &str = "io.modelcontextprotocol/";

/// A call result as the model reads it, in a shape [`ToolOutput::from_value`](crate::ToolOutput)
/// reads back block by block: one text block is its string, any other single block its MCP
/// object, several blocks a list (text as strings). `structuredContent` is the value when asked
/// for or when there is no content; beside blocks other than text it is kept, the value then
/// being the whole `{"content": [...], "structuredContent": ...}` (beside text only it repeats
/// that text, as the protocol asks, and is left out). `isError` is a tool error with the text.
fn model_value(result: &CallToolResult, structured: bool) -> Result<Value, String> {
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
        assert_eq!(model_value(&one, false).unwrap(), json!("hi"));
        let mixed = result(json!({"content": [
            {"type": "text", "text": "a chart"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
        ]}));
        assert_eq!(
            model_value(&mixed, false).unwrap(),
            json!(["a chart", {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}])
        );
    }

    #[test]
    fn is_error_becomes_a_tool_error_with_the_server_text() {
        let failed =
            result(json!({"isError": true, "content": [{"type": "text", "text": "no such repo"}]}));
        match model_value(&failed, false) {
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
        let read = model_value(&result(value.clone()), false).unwrap();
        assert_eq!(read, value);
        let output = crate::ToolOutput::from_value(read);
        assert_eq!(output.structured_content, Some(json!({"points": 2})));
        assert_eq!(output.content.len(), 2);
    }

    #[test]
    fn structured_content_is_returned_only_when_asked_for() {
        let value = json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}});
        assert_eq!(
            model_value(&result(value.clone()), false).unwrap(),
            json!("{\"n\":1}")
        );
        assert_eq!(model_value(&result(value), true).unwrap(), json!({"n": 1}));
    }
}
