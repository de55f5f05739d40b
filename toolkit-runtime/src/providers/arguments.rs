//! A tool call's arguments as the model wrote them.

use serde_json::Value;

use super::repair::repair_arguments;

/// The arguments a model wrote as text, as a [`ToolCall`](crate::ToolCall) carries them to the
/// tool: the text itself when it is one well-formed JSON object, so the tool's pipeline reads it
/// straight into the parameters' types (the typed fast path) without a `Value` in between;
/// otherwise its repair, as before (an empty text is no arguments, a fenced or cut one is
/// mended, one beyond repair stays text for the pipeline to report).
///
/// The check reads the text without building anything (`IgnoredAny`), so a well-formed call is
/// parsed once into a value and once into types only when the fast path declines it.
pub(crate) fn call_arguments(text: &str) -> Value {
    let object_text = text.trim_start().starts_with('{')
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok();
    match object_text {
        true => Value::String(text.to_owned()),
        false => repair_arguments(text),
    }
}

/// `calls` with their argument text read into values, as the tool's pipeline reads it: what a
/// test compares a reply's calls with. A test hook, not public API.
#[cfg(any(test, feature = "__test_hooks"))]
#[doc(hidden)]
pub fn __read_arguments(calls: Vec<crate::ToolCall>) -> Vec<crate::ToolCall> {
    calls
        .into_iter()
        .map(|mut call| {
            if let Value::String(text) = &call.args {
                call.args = serde_json::from_str(text).unwrap_or(Value::Null);
            }
            call
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::call_arguments;

    #[test]
    fn well_formed_object_text_stays_text_and_the_rest_is_repaired() {
        assert_eq!(call_arguments(r#"{"a": 1}"#), json!(r#"{"a": 1}"#));
        assert_eq!(call_arguments(""), json!({}));
        assert_eq!(call_arguments(r#"{"a": 1,}"#), json!({"a": 1}));
        assert_eq!(call_arguments("a=1"), json!("a=1"));
        assert_eq!(call_arguments("[1]"), json!("[1]"));
    }
}
