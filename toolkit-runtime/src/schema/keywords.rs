//! Reading a schema's keywords: the few questions every consumer of a schema asks (the call
//! pipeline's coercion and null handling, every provider converter).

use serde_json::{Map, Value};

/// The JSON types a `type` keyword names: `"string"`, or each of `["string", "null"]`; none when
/// the keyword is absent or malformed.
pub(crate) fn declared_types(type_keyword: Option<&Value>) -> Vec<&str> {
    match type_keyword {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The JSON types a schema object declares with `type`.
pub(crate) fn schema_types(schema: &Map<String, Value>) -> Vec<&str> {
    declared_types(schema.get("type"))
}

/// Whether the schema describes an object (by its type, or by naming properties).
pub(crate) fn is_object_schema(schema: &Map<String, Value>) -> bool {
    schema_types(schema).contains(&"object") || schema.contains_key("properties")
}

/// Whether the schema accepts `null`: by its type, or through a `null` branch of `anyOf`.
pub(crate) fn accepts_null(schema: &Map<String, Value>) -> bool {
    schema_types(schema).contains(&"null")
        || schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches
                    .iter()
                    .any(|b| b.as_object().is_some_and(|b| schema_types(b) == ["null"]))
            })
}

/// The names an object schema lists under `required`.
pub(crate) fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The JSON type of a value, as a schema's `type` names it (whole numbers are `integer`).
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Whether a declared type accepts a value of `kind` (a `number` accepts an `integer`).
pub(crate) fn type_accepts(declared: &str, kind: &str) -> bool {
    declared == kind || (declared == "number" && kind == "integer")
}
