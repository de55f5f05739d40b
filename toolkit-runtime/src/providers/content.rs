//! A content result ([`ToolOutput`]) in each provider's blocks: what the model reads when a tool
//! returns an image, audio, a resource or a link. Each shape is the provider's documented one;
//! `tests/content.rs` asserts them whole, with the page each comes from.
//!
//! | block | Anthropic `tool_result` | OpenAI Responses `output` | Gemini `functionResponse` | Chat Completions |
//! | --- | --- | --- | --- | --- |
//! | text | `text` | `input_text` | `response.output` | tool message text |
//! | image (png, jpeg, gif, webp) | `image`, base64 source | `input_image`, data URL | `parts[].inlineData` (not gif) | a note; the image in the user message after |
//! | audio | a note (no audio block) | a note | a note | a note |
//! | text resource | `document`, text source | `input_text` | `response.output` | its text |
//! | PDF resource | `document`, base64 source | `input_file`, data URL | `parts[].inlineData` | a note |
//! | other binary resource | a note | a note | a note | a note |
//! | resource link | a note | a note | a note | a note |

use serde_json::{Value, json};

use crate::content::{Content, Resource, ToolOutput};

/// The image types every provider takes as image input (Anthropic's vision page names these
/// four; OpenAI and Gemini take them too).
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

const PDF: &str = "application/pdf";

/// A binary block's MIME type and base64 data: an image, audio, or a resource with a blob.
fn binary(block: &Content) -> Option<(&str, &str)> {
    match block {
        Content::Image(image) => Some((&image.mime_type, &image.data)),
        Content::Audio(audio) => Some((&audio.mime_type, &audio.data)),
        Content::Resource(Resource { resource }) => {
            let blob = resource.blob.as_deref()?;
            Some((resource.mime_type.as_deref().unwrap_or_default(), blob))
        }
        _ => None,
    }
}

fn is_image(mime: &str) -> bool {
    IMAGE_TYPES.contains(&mime)
}

fn data_url(mime: &str, data: &str) -> String {
    format!("data:{mime};base64,{data}")
}

/// A block as text: a text block's text, any other block's note, with `why` after a note when
/// the format has no block for it.
fn as_text(block: &Content, why: &str) -> String {
    match block.as_text() {
        Some(text) => text.to_owned(),
        None => {
            let note = block.note().unwrap_or_default();
            match why.is_empty() {
                true => note,
                false => format!("{note} ({why})"),
            }
        }
    }
}

/// The `content` of an Anthropic `tool_result`: text, `image` and `document` blocks. Audio,
/// non-PDF binaries and links have no block there and become text saying so.
pub(super) fn anthropic_blocks(output: &ToolOutput) -> Vec<Value> {
    output
        .content
        .iter()
        .map(|block| {
            if let Content::Resource(Resource { resource }) = block
                && let Some(text) = &resource.text
            {
                return json!({
                    "type": "document",
                    "source": {"type": "text", "media_type": "text/plain", "data": text},
                    "title": resource.uri,
                });
            }
            match binary(block) {
                Some((mime, data)) if is_image(mime) => json!({
                    "type": "image",
                    "source": {"type": "base64", "media_type": mime, "data": data},
                }),
                Some((PDF, data)) => {
                    let mut document = json!({
                        "type": "document",
                        "source": {"type": "base64", "media_type": PDF, "data": data},
                    });
                    if let Content::Resource(Resource { resource }) = block {
                        document["title"] = json!(resource.uri);
                    }
                    document
                }
                Some(_) if matches!(block, Content::Audio(_)) => {
                    let why = "Anthropic's tool results carry no audio";
                    json!({"type": "text", "text": as_text(block, why)})
                }
                _ => json!({"type": "text", "text": as_text(block, "")}),
            }
        })
        .collect()
}

/// The `output` of an OpenAI Responses `function_call_output`: `input_text`, `input_image`
/// (a data URL) and `input_file` (a PDF as a data URL) parts.
pub(super) fn responses_parts(output: &ToolOutput) -> Vec<Value> {
    output
        .content
        .iter()
        .map(|block| match binary(block) {
            Some((mime, data)) if is_image(mime) => {
                json!({"type": "input_image", "image_url": data_url(mime, data)})
            }
            Some((PDF, data)) => json!({
                "type": "input_file",
                "filename": file_name(block),
                "file_data": data_url(PDF, data),
            }),
            _ => json!({"type": "input_text", "text": as_text(block, "")}),
        })
        .collect()
}

/// The last segment of a resource's URI, as OpenAI's `input_file` wants a file name.
fn file_name(block: &Content) -> String {
    match block {
        Content::Resource(Resource { resource }) => resource
            .uri
            .rsplit('/')
            .find(|segment| !segment.is_empty())
            .unwrap_or("document.pdf")
            .to_owned(),
        _ => "document.pdf".to_owned(),
    }
}

/// The MIME types Gemini's function-calling page lists for media in a function response.
const GEMINI_INLINE: [&str; 5] = ["image/png", "image/jpeg", "image/webp", PDF, "text/plain"];

/// A Gemini function response's text (`response.output`) and media (`parts`, each
/// `{"inlineData": {"mimeType", "data"}}`): PNG, JPEG and WebP images and PDFs go inline,
/// everything else (audio included) is text.
pub(super) fn gemini_parts(output: &ToolOutput) -> (String, Vec<Value>) {
    let mut lines = Vec::new();
    let mut parts = Vec::new();
    for block in &output.content {
        match binary(block) {
            Some((mime, data)) if GEMINI_INLINE.contains(&mime) => {
                parts.push(json!({"inlineData": {"mimeType": mime, "data": data}}));
            }
            _ => lines.push(as_text(block, "")),
        }
    }
    (lines.join("\n"), parts)
}

/// The text of a Chat Completions tool message: text blocks as they are, and a note for each
/// other block; an image's note says it follows in the next user message
/// ([`chat_images`]).
pub(super) fn chat_text(output: &ToolOutput) -> String {
    let lines: Vec<String> = output
        .content
        .iter()
        .map(|block| match block {
            Content::Image(image) if is_image(&image.mime_type) => {
                as_text(block, "shown in the user message after the tool results")
            }
            _ => as_text(block, ""),
        })
        .collect();
    lines.join("\n")
}

/// The images of a content result as Chat Completions user content parts: `image_url` parts
/// holding data URLs.
pub(super) fn chat_images(output: &ToolOutput) -> Vec<Value> {
    output
        .content
        .iter()
        .filter_map(|block| match block {
            Content::Image(image) if is_image(&image.mime_type) => Some(json!({
                "type": "image_url",
                "image_url": {"url": data_url(&image.mime_type, &image.data)},
            })),
            _ => None,
        })
        .collect()
}
