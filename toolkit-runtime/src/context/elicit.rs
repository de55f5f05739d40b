//! The schema of what a tool asks the user for: MCP elicitation allows a flat object whose
//! properties are strings, numbers, integers, booleans, enums, and arrays of enums
//! (multi-select), and nothing nested.

use schemars::JsonSchema;
use serde_json::{Map, Value};

use super::error::ContextError;
use crate::schema::{generator, inline_refs};

/// The elicitation schema of `T`, or why `T` cannot be asked for.
pub(crate) fn elicitation_schema<T: JsonSchema>() -> Result<Value, ContextError> {
    let mut generator = generator();
    let root = generator.root_schema_for::<T>().to_value();
    let mut schema = inline_refs(&root).map_err(|err| unsupported(err.to_string()))?;
    let Value::Object(map) = &mut schema else {
        return Err(unsupported("the type's schema is not an object".into()));
    };
    map.shift_remove("$schema");
    map.shift_remove("$defs");
    if map.get("type") != Some(&Value::String("object".into())) {
        return Err(unsupported(
            "the answer must be a struct (a JSON object)".into(),
        ));
    }
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        return Err(unsupported("the struct has no fields".into()));
    };
    for (name, property) in properties.iter_mut() {
        check_property(name, property)?;
    }
    Ok(schema)
}

fn unsupported(why: String) -> ContextError {
    ContextError::UnsupportedSchema(why)
}

/// Checks one property, and writes an `Option`'s `["string", "null"]` as `"string"` (a field
/// that may be left out is one not in `required`; elicitation has no null).
fn check_property(name: &str, property: &mut Value) -> Result<(), ContextError> {
    let Value::Object(map) = property else {
        return Err(unsupported(format!("field `{name}` has no schema")));
    };
    drop_null_type(map);
    // `Option<Enum>` comes out as `anyOf: [{enum...}, {type: null}]`: keep the enum.
    if let Some(Value::Array(options)) = map.get("anyOf").cloned() {
        let kept: Vec<Value> = options
            .into_iter()
            .filter(|option| option.get("type") != Some(&Value::String("null".into())))
            .collect();
        if let [only] = kept.as_slice()
            && let Value::Object(inner) = only
        {
            map.shift_remove("anyOf");
            for (key, value) in inner {
                map.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
    if is_primitive(map) || is_enum(map) {
        return Ok(());
    }
    if map.get("type") == Some(&Value::String("array".into()))
        && let Some(Value::Object(items)) = map.get("items")
        && is_enum(items)
    {
        return Ok(());
    }
    Err(unsupported(format!(
        "field `{name}` is not a string, number, integer, boolean, enum or list of enum values \
         (elicitation asks for a flat form)"
    )))
}

fn drop_null_type(map: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|kind| *kind != "null")
            .cloned()
            .collect();
        if let [only] = kept.as_slice() {
            map.insert("type".into(), only.clone());
        }
    }
}

fn is_primitive(map: &Map<String, Value>) -> bool {
    matches!(
        map.get("type").and_then(Value::as_str),
        Some("string" | "number" | "integer" | "boolean")
    ) && !map.contains_key("properties")
}

fn is_enum(map: &Map<String, Value>) -> bool {
    let consts = |key: &str| {
        matches!(map.get(key), Some(Value::Array(options))
            if options.iter().all(|option| option.get("const").is_some()))
    };
    map.contains_key("enum") || consts("oneOf") || consts("anyOf")
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Colour {
        Red,
        Green,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Form {
        name: String,
        age: Option<u32>,
        colour: Colour,
        tags: Vec<Colour>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        form: Form,
    }

    #[test]
    fn a_flat_form_is_allowed_and_options_lose_null() {
        let schema = elicitation_schema::<Form>().unwrap();
        assert_eq!(schema["properties"]["age"]["type"], json!("integer"));
        assert_eq!(schema["properties"]["colour"]["enum"], json!(["Red", "Green"]));
        assert_eq!(schema["required"], json!(["name", "colour", "tags"]));
    }

    #[test]
    fn a_nested_form_is_refused_naming_the_field() {
        let err = elicitation_schema::<Nested>().unwrap_err();
        assert!(err.to_string().contains("field `form`"), "{err}");
        assert!(elicitation_schema::<String>().is_err());
    }
}
