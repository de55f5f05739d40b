//! What a resource's body may return, and how each becomes [`ResourceContents`].

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::Value;

use super::RequestError;
use crate::ResourceContents;

/// What a read's body may return: text (`String`, `&'static str`), bytes (`Vec<u8>`), JSON
/// (`serde_json::Value`, as `application/json` text), one [`ResourceContents`] or several, or
/// `Result<T, E>` of any of them with `E: Display` (a [`RequestError`] keeps its code).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a resource: return text, bytes, JSON or `ResourceContents`",
    note = "a resource returns `String`, `Vec<u8>`, `serde_json::Value`, `ResourceContents`, `Vec<ResourceContents>`, or `Result<T, E>` of one with `E: Display`"
)]
pub trait ResourceReturn {
    /// The contents, for the URI read and the resource's MIME type.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError>;
}

fn text_contents(
    uri: &str,
    mime_type: Option<&str>,
    default: &str,
    text: String,
) -> ResourceContents {
    ResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.unwrap_or(default).to_owned()),
        text: Some(text),
        blob: None,
    }
}

impl ResourceReturn for String {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        Ok(vec![text_contents(uri, mime, "text/plain", self)])
    }
}

impl ResourceReturn for &'static str {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        self.to_owned().into_contents(uri, mime)
    }
}

impl ResourceReturn for Value {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        Ok(vec![text_contents(
            uri,
            mime,
            "application/json",
            self.to_string(),
        )])
    }
}

impl ResourceReturn for Vec<u8> {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        Ok(vec![ResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(mime.unwrap_or("application/octet-stream").to_owned()),
            text: None,
            blob: Some(BASE64.encode(self)),
        }])
    }
}

impl ResourceReturn for ResourceContents {
    fn into_contents(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        Ok(vec![self])
    }
}

impl ResourceReturn for Vec<ResourceContents> {
    fn into_contents(
        self,
        _: &str,
        _: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        Ok(self)
    }
}

impl<T: ResourceReturn, E: std::fmt::Display + 'static> ResourceReturn for Result<T, E> {
    fn into_contents(
        self,
        uri: &str,
        mime: Option<&str>,
    ) -> Result<Vec<ResourceContents>, RequestError> {
        self.map_err(RequestError::from_error)?
            .into_contents(uri, mime)
    }
}
