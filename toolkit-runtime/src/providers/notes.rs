//! Constraints a target format cannot express, kept as words in the description: the model
//! still reads them, and our own validation enforces them when the call arrives.

use serde_json::{Map, Value};

/// A sentence saying what a keyword the target does not support meant.
pub(super) fn constraint_note(keyword: &str, value: &Value) -> Option<String> {
    let shown = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Some(match keyword {
        "minLength" => format!("At least {shown} characters."),
        "maxLength" => format!("At most {shown} characters."),
        "minItems" => format!("At least {shown} items."),
        "maxItems" => format!("At most {shown} items."),
        "minProperties" => format!("At least {shown} entries."),
        "maxProperties" => format!("At most {shown} entries."),
        "uniqueItems" if value == &Value::Bool(true) => "Items must be unique.".into(),
        "exclusiveMinimum" => format!("Greater than {shown}."),
        "exclusiveMaximum" => format!("Less than {shown}."),
        "multipleOf" => format!("A multiple of {shown}."),
        "pattern" => format!("Matches the pattern {shown}."),
        "format" => format!("Format: {shown}."),
        "default" => format!("Default: {shown}."),
        _ => return None,
    })
}

/// Appends sentences to a schema's description.
pub(super) fn append_description(schema: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let mut text = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for note in notes {
        if !text.is_empty() {
            // The notes are sentences; end the description's last one first.
            if !text.ends_with(['.', '!', '?']) {
                text.push('.');
            }
            text.push(' ');
        }
        text.push_str(note);
    }
    schema.insert("description".into(), Value::String(text));
}

/// `a.b`: where a converter is in a schema, for its errors.
pub(super) fn join_path(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else {
        format!("{path}.{segment}")
    }
}
