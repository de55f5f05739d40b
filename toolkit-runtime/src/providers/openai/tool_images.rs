//! Images in tool results, for Chat Completions: a `role: tool` message carries text only, so
//! the images of a run of tool messages go in one `user` message right after them, each as an
//! `image_url` part with a `data:` URL, introduced by a text part naming its call. The tool
//! message keeps the result's text, with a line in each image's place saying where it went.

use serde_json::{Value, json};

use crate::ToolCallResult;
use crate::content::{Content, ToolOutput};

/// What one tool result becomes: its tool message, and the user-message parts of its images
/// (empty when it has none).
pub(super) fn tool_message_and_images(result: &ToolCallResult) -> (Value, Vec<Value>) {
    if result.is_error() || !holds_image(result.model_value()) {
        return (result.openai_message(), Vec::new());
    }
    let output = ToolOutput::from_value(result.model_value().clone());
    let call = result.id();
    let mut lines = Vec::with_capacity(output.content.len());
    let mut parts = vec![json!({
        "type": "text",
        "text": format!("The images returned by tool call {call} ({}):", result.name),
    })];
    for block in &output.content {
        match block {
            Content::Text(text) => lines.push(text.text.clone()),
            Content::Image(image) => {
                parts.push(json!({
                    "type": "image_url",
                    "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)},
                }));
                lines.push(format!(
                    "[image {} ({}): in the user message after the tool results]",
                    parts.len() - 1,
                    image.mime_type
                ));
            }
            // Audio and resources stay as their MCP JSON, as a tool message showed them before.
            other => lines.push(serde_json::to_string(other).unwrap_or_default()),
        }
    }
    if let Some(structured) = &output.structured_content {
        lines.push(structured.to_string());
    }
    let message = json!({"role": "tool", "tool_call_id": call, "content": lines.join("\n")});
    (message, parts)
}

/// The user message that carries the images of the tool messages before it.
pub(super) fn images_message(parts: Vec<Value>) -> Value {
    json!({"role": "user", "content": parts})
}

/// Whether a result holds an MCP image object: the result itself, an element of an array, or
/// a block of a `{"content": [...]}` output. Checked before anything is copied, so a result
/// without images costs a look at its top level.
fn holds_image(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(is_image),
        Value::Object(map) => match map.get("content") {
            Some(Value::Array(items)) => items.iter().any(is_image),
            _ => is_image(value),
        },
        _ => false,
    }
}

fn is_image(value: &Value) -> bool {
    value.get("type").and_then(Value::as_str) == Some("image")
        && value.get("data").is_some_and(Value::is_string)
        && value.get("mimeType").is_some_and(Value::is_string)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::content::Image;

    fn result(value: Value) -> ToolCallResult {
        ToolCallResult::new(Some("call_1".into()), "chart", value, false)
    }

    #[test]
    fn an_image_goes_to_user_parts_and_its_place_is_named() {
        let output = ToolOutput::new()
            .with(Content::text("two points"))
            .with(Image::png([1, 2, 3]));
        let (message, parts) =
            tool_message_and_images(&result(serde_json::to_value(output).unwrap()));
        assert_eq!(
            message,
            json!({"role": "tool", "tool_call_id": "call_1", "content":
                "two points\n[image 1 (image/png): in the user message after the tool results]"})
        );
        assert_eq!(
            parts[1],
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AQID"}})
        );
        assert_eq!(
            parts[0]["text"],
            "The images returned by tool call call_1 (chart):"
        );
    }

    #[test]
    fn a_result_without_images_is_the_plain_tool_message() {
        let value = json!({"type": "text", "text": "hi"});
        let (message, parts) = tool_message_and_images(&result(value.clone()));
        assert_eq!(message, result(value).openai_message());
        assert!(parts.is_empty());
        let error = ToolCallResult::new(None, "t", json!("Error: no"), true);
        assert!(tool_message_and_images(&error).1.is_empty());
    }
}
