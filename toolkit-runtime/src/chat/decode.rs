//! Reading a response body field by field, so a wrong body is an error naming the field.

use serde_json::Value;

use super::ModelError;

/// A value in a response body and the path to it (`choices[0].message.content`).
#[derive(Clone)]
pub(crate) struct At<'a> {
    api: &'static str,
    path: String,
    value: Option<&'a Value>,
}

impl<'a> At<'a> {
    /// The whole body of an `api` response.
    pub(crate) fn root(api: &'static str, value: &'a Value) -> Self {
        At {
            api,
            path: String::new(),
            value: Some(value),
        }
    }

    /// The field `key` (absent when this is not an object or has no such key).
    pub(crate) fn get(&self, key: &str) -> At<'a> {
        let path = match self.path.is_empty() {
            true => key.to_owned(),
            false => format!("{}.{key}", self.path),
        };
        At {
            api: self.api,
            path,
            value: self.value.and_then(|v| v.get(key)),
        }
    }

    /// The value, if present.
    pub(crate) fn raw(&self) -> Option<&'a Value> {
        self.value
    }

    /// Whether the value is absent or null.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self.value, None | Some(Value::Null))
    }

    /// The value, which must be present.
    pub(crate) fn value(&self) -> Result<&'a Value, ModelError> {
        self.value.ok_or_else(|| self.error("is missing"))
    }

    /// The elements of an array, each with its path.
    pub(crate) fn items(&self) -> Result<Vec<At<'a>>, ModelError> {
        match self.value {
            Some(Value::Array(items)) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, value)| At {
                    api: self.api,
                    path: format!("{}[{i}]", self.path),
                    value: Some(value),
                })
                .collect()),
            other => Err(self.wrong("an array", other)),
        }
    }

    /// The elements of an array, or none when it is absent or null.
    pub(crate) fn items_or_none(&self) -> Result<Vec<At<'a>>, ModelError> {
        if self.is_null() {
            return Ok(Vec::new());
        }
        self.items()
    }

    /// A string, which must be present.
    pub(crate) fn str(&self) -> Result<&'a str, ModelError> {
        match self.value {
            Some(Value::String(text)) => Ok(text),
            other => Err(self.wrong("a string", other)),
        }
    }

    /// A string, or `None` when absent or null.
    pub(crate) fn opt_str(&self) -> Result<Option<&'a str>, ModelError> {
        if self.is_null() {
            return Ok(None);
        }
        self.str().map(Some)
    }

    /// A count, or 0 when absent or null.
    pub(crate) fn count(&self) -> Result<u64, ModelError> {
        match self.value {
            None | Some(Value::Null) => Ok(0),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or_default()),
            other => Err(self.wrong("a non-negative integer", other)),
        }
    }

    /// An error about this value.
    pub(crate) fn error(&self, problem: &str) -> ModelError {
        ModelError::Decode {
            api: self.api,
            message: format!("{} {problem}", self.shown_path()),
        }
    }

    fn wrong(&self, expected: &str, got: Option<&Value>) -> ModelError {
        let got = match got {
            None => "nothing".to_owned(),
            Some(value) => {
                let text = value.to_string();
                match text.char_indices().nth(60) {
                    Some((end, _)) => format!("{}...", &text[..end]),
                    None => text,
                }
            }
        };
        self.error(&format!("should be {expected}, got {got}"))
    }

    fn shown_path(&self) -> String {
        match self.path.is_empty() {
            true => "the body".into(),
            false => format!("`{}`", self.path),
        }
    }
}
