//! Results that are more than JSON: images, audio, embedded resources and resource links, and
//! [`ToolOutput`], which mixes them with text and structured JSON.
//!
//! Each type serializes as its MCP content object (`{"type": "image", "data": ..., "mimeType":
//! ...}`), so a plain [`dynamic_call`](crate::ToolProxy::dynamic_call) still returns JSON. A tool
//! whose return type is one of them is marked as returning content, and every format renders its
//! result from [`ToolOutput::from_value`]: MCP as content blocks, Anthropic as `tool_result`
//! image and document blocks, Gemini as inline data, and so on.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An image a tool returns: base64 data and its MIME type.
///
/// ```
/// use toolkit::prelude::*;
///
/// let image = Image::png(vec![0x89, b'P', b'N', b'G']);
/// assert_eq!(image.mime_type, "image/png");
/// assert_eq!(image.bytes().unwrap(), vec![0x89, b'P', b'N', b'G']);
/// assert_eq!(serde_json::to_value(&image).unwrap()["type"], "image");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "image", rename_all = "camelCase")]
pub struct Image {
    /// The image, base64-encoded.
    pub data: String,
    /// Its MIME type: `image/png`, `image/jpeg`, `image/gif`, `image/webp`.
    pub mime_type: String,
}

impl Image {
    /// An image of the given MIME type from its bytes.
    pub fn new(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Image {
            data: BASE64.encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// A PNG image.
    pub fn png(bytes: impl AsRef<[u8]>) -> Self {
        Self::new(bytes, "image/png")
    }

    /// A JPEG image.
    pub fn jpeg(bytes: impl AsRef<[u8]>) -> Self {
        Self::new(bytes, "image/jpeg")
    }

    /// A GIF image.
    pub fn gif(bytes: impl AsRef<[u8]>) -> Self {
        Self::new(bytes, "image/gif")
    }

    /// A WebP image.
    pub fn webp(bytes: impl AsRef<[u8]>) -> Self {
        Self::new(bytes, "image/webp")
    }

    /// An image from data already base64-encoded.
    pub fn from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// The image's bytes, decoded.
    pub fn bytes(&self) -> Result<Vec<u8>, base64::DecodeError> {
        BASE64.decode(&self.data)
    }
}

/// Audio a tool returns: base64 data and its MIME type.
///
/// ```
/// use toolkit::prelude::*;
///
/// let audio = Audio::wav(b"RIFF....WAVE");
/// assert_eq!(audio.mime_type, "audio/wav");
/// assert_eq!(serde_json::to_value(&audio).unwrap()["type"], "audio");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "audio", rename_all = "camelCase")]
pub struct Audio {
    /// The audio, base64-encoded.
    pub data: String,
    /// Its MIME type, such as `audio/wav` or `audio/mpeg`.
    pub mime_type: String,
}

impl Audio {
    /// Audio of the given MIME type from its bytes.
    pub fn new(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Audio {
            data: BASE64.encode(bytes),
            mime_type: mime_type.into(),
        }
    }

    /// WAV audio.
    pub fn wav(bytes: impl AsRef<[u8]>) -> Self {
        Self::new(bytes, "audio/wav")
    }

    /// MP3 audio.
    pub fn mp3(bytes: impl AsRef<[u8]>) -> Self {
        Self::new(bytes, "audio/mpeg")
    }

    /// Audio from data already base64-encoded.
    pub fn from_base64(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// The audio's bytes, decoded.
    pub fn bytes(&self) -> Result<Vec<u8>, base64::DecodeError> {
        BASE64.decode(&self.data)
    }
}

/// The contents of a resource: its URI, MIME type, and text or bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text, for a text resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes, base64-encoded, for a binary resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A resource embedded in a result, as MCP's `{"type": "resource", "resource": {...}}`.
///
/// ```
/// use toolkit::prelude::*;
///
/// let readme = Resource::text("file:///README.md", "text/markdown", "# Hello");
/// assert_eq!(readme.resource.text.as_deref(), Some("# Hello"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "resource")]
pub struct Resource {
    /// What the resource holds.
    pub resource: ResourceContents,
}

impl Resource {
    /// A text resource.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Resource {
            resource: ResourceContents {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: Some(text.into()),
                blob: None,
            },
        }
    }

    /// A binary resource from its bytes.
    pub fn bytes(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl AsRef<[u8]>,
    ) -> Self {
        Resource {
            resource: ResourceContents {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: None,
                blob: Some(BASE64.encode(bytes)),
            },
        }
    }
}

/// A link to a resource the client can read, as MCP's `{"type": "resource_link", ...}`.
///
/// ```
/// use toolkit::prelude::*;
///
/// let link = ResourceLink::new("file:///data.csv", "data.csv").mime_type("text/csv");
/// assert_eq!(serde_json::to_value(&link).unwrap()["type"], "resource_link");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "resource_link", rename_all = "camelCase")]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// The link with a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The link with a MIME type.
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// One block of a tool's result.
///
/// ```
/// use toolkit::prelude::*;
///
/// let blocks = vec![Content::text("a chart"), Image::png([1, 2, 3]).into()];
/// assert_eq!(serde_json::to_value(&blocks).unwrap()[0], json!({"type": "text", "text": "a chart"}));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Content {
    /// Text.
    Text(Text),
    /// An image.
    Image(Image),
    /// Audio.
    Audio(Audio),
    /// An embedded resource.
    Resource(Resource),
    /// A link to a resource.
    ResourceLink(ResourceLink),
}

/// Read by its `"type"`: an untagged enum would take the first struct whose fields fit, and
/// audio has an image's fields.
impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;

        let value = Value::deserialize(deserializer)?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let read = match kind {
            "text" => Text::deserialize(value).map(Content::Text),
            "image" => Image::deserialize(value).map(Content::Image),
            "audio" => Audio::deserialize(value).map(Content::Audio),
            "resource" => Resource::deserialize(value).map(Content::Resource),
            "resource_link" => ResourceLink::deserialize(value).map(Content::ResourceLink),
            other => {
                return Err(D::Error::custom(format!(
                    "no content block of type {other:?}"
                )));
            }
        };
        read.map_err(D::Error::custom)
    }
}

/// A text block, as MCP's `{"type": "text", "text": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "text")]
pub struct Text {
    /// The text.
    pub text: String,
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(Text { text: text.into() })
    }

    /// The text, when this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text(Text { text }) => Some(text),
            _ => None,
        }
    }

    /// Reads one block from its MCP JSON; anything that is not a content object is kept as its
    /// JSON text, so nothing a remote tool sends is lost.
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::String(text) => Content::text(text),
            other => match serde_json::from_value::<Content>(other.clone()) {
                Ok(content) => content,
                Err(_) => Content::text(other.to_string()),
            },
        }
    }
}

impl From<Image> for Content {
    fn from(image: Image) -> Self {
        Content::Image(image)
    }
}

impl From<Audio> for Content {
    fn from(audio: Audio) -> Self {
        Content::Audio(audio)
    }
}

impl From<Resource> for Content {
    fn from(resource: Resource) -> Self {
        Content::Resource(resource)
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Self {
        Content::ResourceLink(link)
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

/// A tool's whole result: content blocks, and structured JSON beside them (MCP's
/// `structuredContent`).
///
/// ```
/// use toolkit::prelude::*;
///
/// let output = ToolOutput::new()
///     .with(Content::text("two points"))
///     .with(Image::png([1, 2, 3]))
///     .structured(json!({"points": 2}));
/// let value = serde_json::to_value(&output).unwrap();
/// assert_eq!(value["content"][1]["type"], "image");
/// assert_eq!(value["structuredContent"]["points"], 2);
/// assert_eq!(ToolOutput::from_value(value), output);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Structured JSON beside the content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
}

impl ToolOutput {
    /// An empty output.
    pub fn new() -> Self {
        Self::default()
    }

    /// The output with one more block.
    pub fn with(mut self, content: impl Into<Content>) -> Self {
        self.content.push(content.into());
        self
    }

    /// The output with structured JSON beside its content.
    pub fn structured(mut self, value: Value) -> Self {
        self.structured_content = Some(value);
        self
    }

    /// Reads a content tool's result from its JSON: one content object, an array of them (a
    /// string element is text), a whole `{"content": [...], "structuredContent": ...}`, or a
    /// string (text). Anything else becomes its JSON text, so nothing is lost.
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::Array(items) => ToolOutput {
                content: items.into_iter().map(Content::from_value).collect(),
                structured_content: None,
            },
            Value::Object(ref map) if map.get("content").is_some_and(Value::is_array) => {
                serde_json::from_value(value.clone()).unwrap_or_else(|_| ToolOutput {
                    content: vec![Content::text(value.to_string())],
                    structured_content: None,
                })
            }
            other => ToolOutput {
                content: vec![Content::from_value(other)],
                structured_content: None,
            },
        }
    }

    /// The text of the text blocks, joined by newlines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.content.iter().filter_map(Content::as_text).collect();
        texts.join("\n")
    }
}

impl From<Vec<Content>> for ToolOutput {
    fn from(content: Vec<Content>) -> Self {
        ToolOutput {
            content,
            structured_content: None,
        }
    }
}

/// The types a tool returns to say its result is content blocks, which generated code detects
/// (see `call::output::ContentProbe`).
pub trait IsContent {}

impl IsContent for Content {}
impl IsContent for Image {}
impl IsContent for Audio {}
impl IsContent for Resource {}
impl IsContent for ResourceLink {}
impl IsContent for ToolOutput {}
impl IsContent for Vec<Content> {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn blocks_read_back_from_their_mcp_json() {
        let blocks = vec![
            Content::text("hi"),
            Image::png([1, 2]).into(),
            Audio::wav([3]).into(),
            Resource::text("a://b", "text/plain", "t").into(),
            Resource::bytes("a://c", "application/octet-stream", [0, 255]).into(),
            ResourceLink::new("a://d", "d").into(),
        ];
        let value = serde_json::to_value(&blocks).unwrap();
        assert_eq!(value[2]["mimeType"], "audio/wav");
        assert_eq!(value[3]["resource"]["uri"], "a://b");
        assert_eq!(ToolOutput::from_value(value).content, blocks);
    }

    #[test]
    fn what_is_not_content_is_kept_as_text() {
        let output = ToolOutput::from_value(json!({"type": "hologram", "x": 1}));
        assert_eq!(output.text(), r#"{"type":"hologram","x":1}"#);
        assert_eq!(ToolOutput::from_value(json!("plain")).text(), "plain");
    }
}
