//! OpenAI strict mode's schema subset: every object closed and every property required (optional
//! ones made nullable), unsupported keywords turned into words, and what cannot be expressed at
//! all reported with where it is.

use serde_json::{Map, Value, json};

use super::notes::{append_description, constraint_note, join_path};
use crate::chat::OutputSchema;
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

/// A typed answer's schema as OpenAI's structured outputs take it (Chat Completions'
/// `response_format`, Responses' `text.format`): rewritten to strict mode's subset when asked for
/// strict and the schema has one, with `true`; else as it is, with `false`, since strict mode
/// refuses a schema outside its subset.
pub(super) fn output_schema(output: &OutputSchema) -> (bool, Value) {
    match output
        .strict
        .then(|| strict_schema(&output.schema).ok())
        .flatten()
    {
        Some(schema) => (true, schema),
        None => (false, output.schema.clone()),
    }
}

/// Keywords strict mode rejects outright; what they mean cannot be moved into words.
const UNSUPPORTED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "prefixItems",
];

impl Strict {
    fn node(&mut self, schema: &Value, path: &str, depth: usize) -> Result<Value, StrictError> {
        let here = if path.is_empty() { "parameters" } else { path };
        let Value::Object(source) = schema else {
            return Err((
                here.to_owned(),
                "a value of any type (`true` schema) cannot be expressed in strict mode; \
                 use a concrete type"
                    .into(),
            ));
        };
        if depth > STRICT_MAX_DEPTH {
            return Err((
                here.to_owned(),
                format!("objects nest deeper than strict mode's limit of {STRICT_MAX_DEPTH}"),
            ));
        }
        let map = simplify(source).map_err(|message| (here.to_owned(), message))?;
        let has_shape = ["type", "anyOf", "enum", "$ref", "properties"]
            .iter()
            .any(|key| map.contains_key(*key));
        if !has_shape {
            return Err((
                here.to_owned(),
                "a value of any type cannot be expressed in strict mode; use a concrete type"
                    .into(),
            ));
        }
        let mut out = Map::new();
        let mut notes = Vec::new();
        for (key, value) in map {
            self.keyword(key, value, here, depth, &mut out, &mut notes)?;
        }
        if is_object_schema(source) {
            self.object(schema, path, depth, &mut out)?;
        }
        append_description(&mut out, &notes);
        Ok(Value::Object(out))
    }

    /// One keyword of a schema: kept, converted, moved into words (`notes`), or an error.
    /// `properties` and `required` are left to [`object`](Self::object).
    fn keyword(
        &mut self,
        key: String,
        value: Value,
        here: &str,
        depth: usize,
        out: &mut Map<String, Value>,
        notes: &mut Vec<String>,
    ) -> Result<(), StrictError> {
        match key.as_str() {
            "prefixItems" => Err((
                join_path(here, &key),
                "tuples (`prefixItems`) are not supported by strict mode; use a struct".into(),
            )),
            unsupported if UNSUPPORTED.contains(&unsupported) => Err((
                join_path(here, &key),
                format!("`{key}` is not supported by strict mode"),
            )),
            "minLength" | "maxLength" | "minProperties" | "maxProperties" | "uniqueItems"
            | "default" | "examples" => {
                notes.extend(constraint_note(&key, &value));
                Ok(())
            }
            "format" if !value.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f)) => {
                notes.extend(constraint_note(&key, &value));
                Ok(())
            }
            "additionalProperties" if value != Value::Bool(false) && !is_empty_false(&value) => {
                Err((
                    join_path(here, "additionalProperties"),
                    "an object with arbitrary keys (a map) cannot be expressed in strict mode: \
                     every key must be a named property; use a struct or a list of key/value pairs"
                        .into(),
                ))
            }
            // Set by `object`; and annotations for documentation tools, meaningless to a model.
            "additionalProperties"
            | "properties"
            | "required"
            | "$schema"
            | "$id"
            | "$comment"
            | "readOnly"
            | "writeOnly"
            | "deprecated"
            | "contentEncoding"
            | "contentMediaType" => Ok(()),
            "items" if value == Value::Bool(false) => Err((
                join_path(here, "items"),
                "tuples are not supported by strict mode; use a struct".into(),
            )),
            "items" => {
                let items = self.node(&value, &format!("{here}[]"), depth)?;
                out.insert(key, items);
                Ok(())
            }
            "anyOf" => {
                let Value::Array(branches) = value else {
                    return Err((join_path(here, "anyOf"), "`anyOf` is not a list".into()));
                };
                let branches = branches
                    .iter()
                    .map(|branch| self.node(branch, here, depth))
                    .collect::<Result<Vec<_>, _>>()?;
                out.insert(key, Value::Array(branches));
                Ok(())
            }
            "$defs" | "definitions" => self.definitions(value, out),
            _ => {
                if let ("enum", Value::Array(values)) = (key.as_str(), &value) {
                    self.enum_values += values.len();
                }
                out.insert(key, value);
                Ok(())
            }
        }
    }

    /// The definitions recursive types keep, each converted on its own (under `$defs`).
    fn definitions(
        &mut self,
        defs: Value,
        out: &mut Map<String, Value>,
    ) -> Result<(), StrictError> {
        if let Value::Object(defs) = defs {
            let mut converted = Map::new();
            for (name, def) in defs {
                let def_path = format!("$defs.{name}");
                converted.insert(name, self.node(&def, &def_path, 0)?);
            }
            out.insert("$defs".into(), Value::Object(converted));
        }
        Ok(())
    }

    /// An object: every property converted and required (optional ones made nullable), and no
    /// other keys allowed.
    fn object(
        &mut self,
        schema: &Value,
        path: &str,
        depth: usize,
        out: &mut Map<String, Value>,
    ) -> Result<(), StrictError> {
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        if !path.is_empty() && schema.get("properties").is_none() && !closed {
            return Err((
                path.to_owned(),
                "an object with arbitrary keys cannot be expressed in strict mode: every key \
                 must be a named property; use a struct"
                    .into(),
            ));
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let required = required_names(schema);
        let mut converted = Map::new();
        for (name, property) in properties.into_iter().flatten() {
            let property_path = join_path(path, name);
            let mut strict = self.node(property, &property_path, depth + 1)?;
            if !required.contains(&name.as_str()) {
                strict = nullable(strict);
            }
            converted.insert(name.clone(), strict);
        }
        self.properties += converted.len();
        let names: Vec<Value> = converted.keys().cloned().map(Value::String).collect();
        out.insert("properties".into(), Value::Object(converted));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
        Ok(())
    }
}

/// The same schema in fewer spellings: `allOf` of one schema (schemars' wrapper for a described
/// `$ref`) is that schema, `oneOf` is `anyOf` (the model only generates; our validator still
/// enforces "exactly one" on arrival), `const` is a one-value `enum`.
fn simplify(source: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut map = source.clone();
    if let Some(Value::Array(all)) = map.remove("allOf") {
        let [Value::Object(only)] = all.as_slice() else {
            return Err("`allOf` with several schemas is not supported by strict mode".into());
        };
        for (key, value) in only {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if let Some(constant) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![constant]));
    }
    Ok(map)
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
