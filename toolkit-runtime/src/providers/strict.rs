//! OpenAI strict mode's schema subset: every object closed and every property required (optional
//! ones made nullable), unsupported keywords turned into words, and what cannot be expressed at
//! all reported with where it is.

use serde_json::{Map, Value, json};

use super::notes::{append_description, constraint_note, join_path};
use crate::schema::keywords::{accepts_null, is_object_schema, required_names};

/// OpenAI's documented limits for one strict schema.
const STRICT_MAX_DEPTH: usize = 10;
const STRICT_MAX_PROPERTIES: usize = 5000;
const STRICT_MAX_ENUM_VALUES: usize = 1000;

/// String formats OpenAI strict mode accepts.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

type StrictError = (String, String);

struct Strict {
    properties: usize,
    enum_values: usize,
}

pub(super) fn strict_schema(parameters: &Value) -> Result<Value, StrictError> {
    let Some(root) = parameters.as_object() else {
        return Err(("parameters".into(), "the schema is not an object".into()));
    };
    if !is_object_schema(root) || root.contains_key("anyOf") {
        return Err((
            "parameters".into(),
            "the root of a strict schema must be an object with properties, not a union".into(),
        ));
    }
    let mut state = Strict {
        properties: 0,
        enum_values: 0,
    };
    let converted = state.node(parameters, "", 0)?;
    if state.properties > STRICT_MAX_PROPERTIES {
        return Err((
            "parameters".into(),
            format!(
                "{} properties exceed strict mode's limit of {STRICT_MAX_PROPERTIES}",
                state.properties
            ),
        ));
    }
    if state.enum_values > STRICT_MAX_ENUM_VALUES {
        return Err((
            "parameters".into(),
            format!(
                "{} enum values exceed strict mode's limit of {STRICT_MAX_ENUM_VALUES}",
                state.enum_values
            ),
        ));
    }
    Ok(converted)
}

impl Strict {
    fn node(&mut self, schema: &Value, path: &str, depth: usize) -> Result<Value, StrictError> {
        let here = || {
            if path.is_empty() {
                "parameters".to_owned()
            } else {
                path.to_owned()
            }
        };
        let Value::Object(source) = schema else {
            return Err((
                here(),
                "a value of any type (`true` schema) cannot be expressed in strict mode; \
                 use a concrete type"
                    .into(),
            ));
        };
        if depth > STRICT_MAX_DEPTH {
            return Err((
                here(),
                format!("objects nest deeper than strict mode's limit of {STRICT_MAX_DEPTH}"),
            ));
        }
        let mut map = source.clone();
        // allOf of one schema (schemars' wrapper for a described `$ref`) is the schema itself.
        if let Some(Value::Array(all)) = map.remove("allOf") {
            match all.as_slice() {
                [Value::Object(only)] => {
                    for (key, value) in only {
                        map.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
                _ => {
                    return Err((
                        here(),
                        "`allOf` with several schemas is not supported by strict mode".into(),
                    ));
                }
            }
        }
        if let Some(one_of) = map.remove("oneOf") {
            // The model only generates; our validator still enforces "exactly one" on arrival.
            map.insert("anyOf".into(), one_of);
        }
        if let Some(constant) = map.remove("const") {
            map.insert("enum".into(), Value::Array(vec![constant]));
        }
        let has_shape = map.contains_key("type")
            || map.contains_key("anyOf")
            || map.contains_key("enum")
            || map.contains_key("$ref")
            || map.contains_key("properties");
        if !has_shape {
            return Err((
                here(),
                "a value of any type cannot be expressed in strict mode; use a concrete type"
                    .into(),
            ));
        }
        let mut notes = Vec::new();
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "not"
                | "if"
                | "then"
                | "else"
                | "dependentSchemas"
                | "dependentRequired"
                | "patternProperties"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contains"
                | "minContains"
                | "maxContains"
                | "prefixItems" => {
                    let what = if key == "prefixItems" {
                        "tuples (`prefixItems`) are not supported by strict mode; use a struct"
                            .to_owned()
                    } else {
                        format!("`{key}` is not supported by strict mode")
                    };
                    return Err((join_path(&here(), &key), what));
                }
                "minLength" | "maxLength" | "minProperties" | "maxProperties" | "uniqueItems"
                | "default" | "examples" => {
                    notes.extend(constraint_note(&key, &value));
                }
                "format" => {
                    let known = value.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f));
                    if known {
                        out.insert(key, value);
                    } else {
                        notes.extend(constraint_note(&key, &value));
                    }
                }
                "additionalProperties" => {
                    if value != Value::Bool(false) && !is_empty_false(&value) {
                        return Err((
                            join_path(&here(), "additionalProperties"),
                            "an object with arbitrary keys (a map) cannot be expressed in \
                             strict mode: every key must be a named property; use a struct or a \
                             list of key/value pairs"
                                .into(),
                        ));
                    }
                }
                "properties" | "required" => {}
                // Annotations for documentation tools, meaningless to the model.
                "$schema" | "$id" | "$comment" | "readOnly" | "writeOnly" | "deprecated"
                | "contentEncoding" | "contentMediaType" => {}
                "items" => {
                    if value == Value::Bool(false) {
                        return Err((
                            join_path(&here(), "items"),
                            "tuples are not supported by strict mode; use a struct".into(),
                        ));
                    }
                    let items = self.node(&value, &format!("{}[]", here()), depth)?;
                    out.insert(key, items);
                }
                "anyOf" => {
                    let Value::Array(branches) = value else {
                        return Err((join_path(&here(), "anyOf"), "`anyOf` is not a list".into()));
                    };
                    let branches = branches
                        .iter()
                        .map(|branch| self.node(branch, &here(), depth))
                        .collect::<Result<Vec<_>, _>>()?;
                    out.insert(key, Value::Array(branches));
                }
                "$defs" | "definitions" => {
                    let Value::Object(defs) = value else { continue };
                    let mut converted = Map::new();
                    for (name, def) in defs {
                        let def_path = format!("$defs.{name}");
                        converted.insert(name, self.node(&def, &def_path, 0)?);
                    }
                    out.insert("$defs".into(), Value::Object(converted));
                }
                "enum" => {
                    if let Value::Array(values) = &value {
                        self.enum_values += values.len();
                    }
                    out.insert(key, value);
                }
                _ => {
                    out.insert(key, value);
                }
            }
        }
        if is_object_schema(source) {
            let closed = source.get("additionalProperties") == Some(&Value::Bool(false));
            if !path.is_empty() && !source.contains_key("properties") && !closed {
                return Err((
                    here(),
                    "an object with arbitrary keys cannot be expressed in strict mode: every key \
                     must be a named property; use a struct"
                        .into(),
                ));
            }
            let properties = source
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let required = required_names(schema);
            self.properties += properties.len();
            let mut converted = Map::new();
            for (name, property) in &properties {
                let property_path = join_path(path, name);
                let mut strict = self.node(property, &property_path, depth + 1)?;
                if !required.contains(&name.as_str()) {
                    strict = nullable(strict);
                }
                converted.insert(name.clone(), strict);
            }
            let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
            out.insert("properties".into(), Value::Object(converted));
            out.insert("required".into(), Value::Array(names));
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        append_description(&mut out, &notes);
        Ok(Value::Object(out))
    }
}

/// `additionalProperties: {"not": {}}` is another spelling of `false`.
fn is_empty_false(value: &Value) -> bool {
    value == &json!({"not": {}})
}

/// The same schema, also accepting `null`: how strict mode says "optional".
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if accepts_null(&map) {
        return Value::Object(map);
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let single = std::mem::take(t);
            map.insert("type".into(), json!([single, "null"]));
            return Value::Object(map);
        }
        Some(Value::Array(types)) => {
            types.push("null".into());
            return Value::Object(map);
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return Value::Object(map);
    }
    if map.contains_key("enum") {
        return Value::Object(map);
    }
    // A bare `$ref`: wrap it, keeping the description outside where the model reads it.
    let description = map.remove("description");
    let mut wrapper = Map::new();
    if let Some(description) = description {
        wrapper.insert("description".into(), description);
    }
    wrapper.insert(
        "anyOf".into(),
        json!([Value::Object(map), {"type": "null"}]),
    );
    Value::Object(wrapper)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_ref_becomes_a_nullable_union_keeping_its_description_outside() {
        let schema = nullable(json!({"$ref": "#/$defs/Node", "description": "next"}));
        assert_eq!(
            schema,
            json!({"description": "next", "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
        );
    }

    #[test]
    fn optional_enum_accepts_null_in_its_values_and_its_type() {
        let schema = nullable(json!({"type": "string", "enum": ["a", "b"]}));
        assert_eq!(
            schema,
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
    }

    #[test]
    fn maps_are_a_strict_mode_error_naming_the_property() {
        let err = strict_schema(&json!({
            "type": "object",
            "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
            "required": ["counts"],
            "additionalProperties": false
        }))
        .unwrap_err();
        assert_eq!(err.0, "counts.additionalProperties");
    }
}
