//! Whether a parameters schema says anything the parameters' Rust types do not already enforce
//! when serde reads them: the question that decides if a call may take the typed fast path
//! (`call::typed`) and skip the validator.
//!
//! The answer is "nothing more" only for the keywords schemars writes for types whose
//! `Deserialize` enforces the same thing: object shapes, required names, `type`, arrays and
//! tuples, string enums and tags, unions, references, and integer ranges that are exactly one
//! of the primitive integer types' ranges. Anything else (a `format`, a length, a pattern, a
//! narrower range, `uniqueItems`, a float range, a keyword this list does not know) sends every
//! call of the tool through the validator.
//!
//! This trusts that a type's `Deserialize` accepts no more than its `JsonSchema` describes, which
//! holds for derived pairs. A type that breaks it (a serde `alias`, `deserialize_with`, a
//! hand-written impl) belongs on a tool with `ToolOptions::always_validate`.

use serde_json::{Map, Value};

/// The `(minimum, maximum)` of every primitive integer type up to 64 bits, as schemars writes
/// them.
const INTEGER_RANGES: [(i128, i128); 8] = [
    (0, u8::MAX as i128),
    (i8::MIN as i128, i8::MAX as i128),
    (0, u16::MAX as i128),
    (i16::MIN as i128, i16::MAX as i128),
    (0, u32::MAX as i128),
    (i32::MIN as i128, i32::MAX as i128),
    (0, u64::MAX as i128),
    (i64::MIN as i128, i64::MAX as i128),
];

/// Keywords that never change which instances a schema accepts.
const ANNOTATIONS: [&str; 8] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Whether every instance the Rust types read is one `schema` accepts.
pub(crate) fn implied_by_types(schema: &Value) -> bool {
    match schema {
        Value::Bool(accepts) => *accepts,
        Value::Object(keywords) => keywords
            .iter()
            .all(|(keyword, value)| keyword_implied(keywords, keyword, value)),
        _ => false,
    }
}

fn keyword_implied(schema: &Map<String, Value>, keyword: &str, value: &Value) -> bool {
    match keyword {
        "type" | "required" | "$ref" | "$schema" => true,
        _ if ANNOTATIONS.contains(&keyword) => true,
        "properties" | "$defs" | "definitions" => value
            .as_object()
            .is_some_and(|schemas| schemas.values().all(implied_by_types)),
        // `false`: no other names (serde's `deny_unknown_fields`, and our arguments reader) or
        // no items past a tuple's.
        "additionalProperties" | "items" => value.is_boolean() || implied_by_types(value),
        "prefixItems" | "oneOf" | "anyOf" => value
            .as_array()
            .is_some_and(|schemas| schemas.iter().all(implied_by_types)),
        // A tuple's length: serde reads exactly as many items as it has.
        "minItems" | "maxItems" => schema
            .get("prefixItems")
            .and_then(Value::as_array)
            .is_some_and(|items| value.as_u64() == Some(items.len() as u64)),
        // Unit variants and tags, which serde matches exactly.
        "enum" => value
            .as_array()
            .is_some_and(|names| names.iter().all(Value::is_string)),
        "const" => value.is_string(),
        "minimum" | "maximum" => integer_range(schema).is_some(),
        _ => false,
    }
}

/// The schema's integer range, when it is exactly a primitive integer type's.
fn integer_range(schema: &Map<String, Value>) -> Option<(i128, i128)> {
    let is_integer = match schema.get("type")? {
        Value::String(name) => name == "integer",
        Value::Array(names) => names.iter().any(|name| name == "integer"),
        _ => false,
    };
    let bound = |keyword| -> Option<i128> {
        let number = schema.get(keyword)?.as_number()?;
        number
            .as_i64()
            .map(i128::from)
            .or_else(|| number.as_u64().map(i128::from))
    };
    let range = (bound("minimum")?, bound("maximum")?);
    (is_integer && INTEGER_RANGES.contains(&range)).then_some(range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_serde_enforces_are_implied() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "minimum": 0, "maximum": 255},
                "b": {"type": ["integer", "null"], "minimum": -32768, "maximum": 32767},
                "c": {"type": "array", "items": {"type": "string"}},
                "d": {"type": "array", "prefixItems": [{"type": "boolean"}, {}],
                      "minItems": 2, "maxItems": 2},
                "e": {"oneOf": [{"type": "string", "enum": ["C"]},
                                {"type": "object", "properties": {"kind": {"const": "Circle"}}}]},
                "f": {"$ref": "#/$defs/F", "description": "an f"},
            },
            "$defs": {"F": {"type": "object", "additionalProperties": {"type": "number"}}},
            "required": ["a"],
            "additionalProperties": false
        });
        assert!(implied_by_types(&schema));
    }

    #[test]
    fn constraints_beyond_the_types_are_not() {
        for extra in [
            json!({"type": "string", "minLength": 1}),
            json!({"type": "string", "format": "email"}),
            json!({"type": "string", "pattern": "^a"}),
            json!({"type": "integer", "minimum": 1, "maximum": 4294967295u64}),
            json!({"type": "integer", "minimum": 0, "maximum": 300}),
            json!({"type": "number", "minimum": -3.4e38, "maximum": 3.4e38}),
            json!({"type": "array", "uniqueItems": true}),
            json!({"type": "array", "minItems": 1}),
            json!({"enum": [1, 2]}),
            json!({"not": {"const": 0}}),
            json!(false),
        ] {
            let schema = json!({"type": "object", "properties": {"x": extra.clone()}});
            assert!(!implied_by_types(&schema), "{extra}");
        }
    }
}
