//! Argument strings as models write them: fenced, with trailing commas, cut short. Repaired only
//! when the intent is unambiguous; otherwise the string goes on to be reported to the model.

use serde_json::{Map, Value};

/// Parses an argument string, repairing what models commonly get wrong when the intent is
/// unambiguous: code fences around the JSON, trailing commas, missing closing brackets.
/// An empty string is `{}`. Anything else, JSON that is not an object included (`"5"`,
/// `"[1]"`), comes back as the original string.
///
/// ```
/// use serde_json::json;
/// use toolkit::providers::repair_arguments;
///
/// assert_eq!(repair_arguments("```json\n{\"a\": 1,}\n```"), json!({"a": 1}));
/// assert_eq!(repair_arguments("{\"a\": [1, 2"), json!({"a": [1, 2]}));
/// assert_eq!(repair_arguments(""), json!({}));
/// assert_eq!(repair_arguments("a=1"), json!("a=1"));
/// assert_eq!(repair_arguments("```\n[1, 2]\n```"), json!("```\n[1, 2]\n```"));
/// ```
pub fn repair_arguments(text: &str) -> Value {
    match parse_json_text(text) {
        Some(object @ Value::Object(_)) => object,
        _ => Value::String(text.to_owned()),
    }
}

/// The JSON in a model's text, repaired where the intent is clear; `None` when it is not JSON.
pub(super) fn parse_json_text(text: &str) -> Option<Value> {
    let trimmed = strip_fences(text.trim());
    if trimmed.is_empty() {
        return Some(Value::Object(Map::new()));
    }
    if let Ok(value) = serde_json::from_str(trimmed) {
        return Some(value);
    }
    let repaired = repair(trimmed)?;
    serde_json::from_str(&repaired).ok()
}

/// "```json\n{...}\n```" -> "{...}".
fn strip_fences(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    // The info string ("json") runs to the end of the first line.
    let body = match rest.find('\n') {
        Some(newline) => &rest[newline + 1..],
        None => rest.trim_start_matches(|c: char| c.is_ascii_alphabetic()),
    };
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// Removes trailing commas and closes brackets left open, outside string literals.
/// `None` when the text ends inside a string or its brackets do not match: then the intent is
/// not clear, and guessing could call the tool with arguments the model did not mean.
fn repair(text: &str) -> Option<String> {
    if !text.starts_with('{') {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 4);
    let mut open: Vec<char> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => open.push('}'),
            '[' => open.push(']'),
            '}' | ']' => {
                if open.pop() != Some(c) {
                    return None;
                }
                drop_trailing_comma(&mut out);
            }
            _ => {}
        }
        out.push(c);
    }
    if in_string {
        return None;
    }
    while let Some(close) = open.pop() {
        drop_trailing_comma(&mut out);
        out.push(close);
    }
    Some(out)
}

fn drop_trailing_comma(out: &mut String) {
    let kept = out.trim_end().len();
    if out[..kept].ends_with(',') {
        out.truncate(kept - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn trailing_commas_inside_nested_values_are_removed() {
        assert_eq!(
            repair_arguments(r#"{"a": [1, 2,], "b": {"c": 3,},}"#),
            json!({"a": [1, 2], "b": {"c": 3}})
        );
    }

    #[test]
    fn commas_and_brackets_inside_strings_are_left_alone() {
        assert_eq!(
            repair_arguments(r#"{"text": "a, b,}", "n": 1,"#),
            json!({"text": "a, b,}", "n": 1})
        );
    }

    #[test]
    fn an_unterminated_string_is_not_guessed_at() {
        assert_eq!(
            repair_arguments(r#"{"text": "abc"#),
            json!(r#"{"text": "abc"#)
        );
    }

    #[test]
    fn mismatched_brackets_are_not_guessed_at() {
        assert_eq!(repair_arguments(r#"{"a": [1}"#), json!(r#"{"a": [1}"#));
    }

    /// Found by fuzzing: a fenced or padded text holding JSON that is not an object came back
    /// as that JSON (a number, an array, a shorter string), not as the text.
    #[test]
    fn json_that_is_not_an_object_comes_back_as_the_text() {
        for text in ["```jso1, {\"x\": [[\n2\n```", "\n\t\"f\"\t", "[1, 2]", "5"] {
            assert_eq!(repair_arguments(text), json!(text), "{text:?}");
        }
    }
}
