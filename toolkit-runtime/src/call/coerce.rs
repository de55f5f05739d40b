//! Lax coercion: fixes the shapes models commonly get wrong, guided by the tool's schema.
//!
//! Only lossless, unambiguous repairs are made; anything else is left for validation to report:
//! - a string holding an integer (`"5"`), a number (`"2.5"`) or a boolean (`"true"`) where the
//!   schema wants that type;
//! - a whole number written as a float (`5.0`) where the schema wants an integer;
//! - an array or object sent as a JSON string;
//! - an enum value in the wrong case (`"HIGH"` for `"high"`), when exactly one value matches.
//!
//! `"abc"` for an integer stays a string, so the model is told, instead of the tool silently
//! receiving 0. Tools marked `#[tool(strict)]` skip this step.

use serde_json::{Map, Number, Value};

use crate::schema::keywords::{declared_types, json_kind, type_accepts};
use crate::schema::resolve_ref;

/// Coerces each argument toward the schema of its parameter.
pub(crate) fn coerce_arguments(arguments: &mut Map<String, Value>, parameters: &Value) {
    if let Some(schema) = parameters.as_object() {
        coerce_properties(arguments, &Keywords::of(schema), parameters, 0);
    }
}

/// Bounds `$ref` chasing through recursive schemas; deeper values are left as they are.
const MAX_DEPTH: usize = 64;

/// The keywords coercion reads from one schema object.
#[derive(Default)]
struct Keywords<'a> {
    reference: Option<&'a str>,
    any_of: Option<&'a [Value]>,
    one_of: Option<&'a [Value]>,
    all_of: Option<&'a [Value]>,
    types: Option<&'a Value>,
    enumeration: Option<&'a [Value]>,
    properties: Option<&'a Map<String, Value>>,
    additional: Option<&'a Value>,
    prefix_items: Option<&'a [Value]>,
    items: Option<&'a Value>,
}

impl<'a> Keywords<'a> {
    /// One pass over the schema's few keys: looking up each of the ten keywords by hash cost
    /// more than the rest of coercion together (measured with the `dispatch` bench).
    fn of(schema: &'a Map<String, Value>) -> Self {
        let mut keywords = Keywords::default();
        for (key, value) in schema {
            match key.as_str() {
                "$ref" => keywords.reference = value.as_str(),
                "anyOf" => keywords.any_of = value.as_array().map(Vec::as_slice),
                "oneOf" => keywords.one_of = value.as_array().map(Vec::as_slice),
                "allOf" => keywords.all_of = value.as_array().map(Vec::as_slice),
                "type" => keywords.types = Some(value),
                "enum" => keywords.enumeration = value.as_array().map(Vec::as_slice),
                "properties" => keywords.properties = value.as_object(),
                "additionalProperties" => {
                    keywords.additional = Some(value).filter(|s| s.is_object())
                }
                "prefixItems" => keywords.prefix_items = value.as_array().map(Vec::as_slice),
                "items" => keywords.items = Some(value).filter(|s| s.is_object()),
                _ => {}
            }
        }
        keywords
    }
}

fn coerce_properties(
    object: &mut Map<String, Value>,
    keywords: &Keywords<'_>,
    root: &Value,
    depth: usize,
) {
    for (name, value) in object.iter_mut() {
        let property = keywords
            .properties
            .and_then(|p| p.get(name))
            .or(keywords.additional);
        if let Some(property) = property {
            coerce(value, property, root, depth + 1);
        }
    }
}

fn coerce(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(schema_map) = schema.as_object() else {
        return;
    };
    let keywords = Keywords::of(schema_map);
    if let Some(target) = keywords.reference
        && let Some(resolved) = resolve_ref(target, root)
    {
        coerce(value, resolved, root, depth + 1);
    }
    for branches in [keywords.any_of, keywords.one_of].into_iter().flatten() {
        coerce_union(value, branches, root, depth);
    }
    for branch in keywords.all_of.into_iter().flatten() {
        coerce(value, branch, root, depth + 1);
    }

    let types = declared_types(keywords.types);
    if let Value::String(text) = value {
        if let Some(repaired) = repair_string(text, &types, keywords.enumeration) {
            *value = repaired;
        }
    } else if let Value::Number(number) = value
        && types.contains(&"integer")
        && !types.contains(&"number")
        && let Some(whole) = whole_number(number)
    {
        *value = Value::Number(whole);
    }

    match value {
        Value::Object(object) => coerce_properties(object, &keywords, root, depth),
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                let item_schema = keywords
                    .prefix_items
                    .and_then(|p| p.get(index))
                    .or(keywords.items);
                if let Some(item_schema) = item_schema {
                    coerce(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// In a union, a value that already fits one branch's type is left alone; otherwise the first
/// branch that accepts a repaired value wins.
fn coerce_union(value: &mut Value, branches: &[Value], root: &Value, depth: usize) {
    let kind = json_kind(value);
    let matching = branches.iter().find(|branch| {
        branch.as_object().is_some_and(|b| {
            declared_types(b.get("type"))
                .iter()
                .any(|t| type_accepts(t, kind))
        })
    });
    if let Some(branch) = matching {
        coerce(value, branch, root, depth + 1);
        return;
    }
    for branch in branches {
        let mut candidate = value.clone();
        coerce(&mut candidate, branch, root, depth + 1);
        if candidate != *value {
            *value = candidate;
            return;
        }
    }
}

fn repair_string(text: &str, types: &[&str], enumeration: Option<&[Value]>) -> Option<Value> {
    if types.contains(&"string") || types.is_empty() {
        return fix_enum_case(text, enumeration?);
    }
    let trimmed = text.trim();
    if types.contains(&"integer") {
        if let Ok(n) = trimmed.parse::<i64>() {
            return Some(n.into());
        }
        if let Ok(n) = trimmed.parse::<u64>() {
            return Some(n.into());
        }
    }
    if types.contains(&"number")
        && let Some(n) = trimmed.parse::<f64>().ok().and_then(Number::from_f64)
    {
        return Some(Value::Number(n));
    }
    if types.contains(&"boolean") {
        match trimmed.to_ascii_lowercase().as_str() {
            "true" => return Some(true.into()),
            "false" => return Some(false.into()),
            _ => {}
        }
    }
    if (types.contains(&"array") || types.contains(&"object"))
        && let Ok(parsed) = serde_json::from_str::<Value>(trimmed)
        && types.iter().any(|t| type_accepts(t, json_kind(&parsed)))
    {
        return Some(parsed);
    }
    if types.contains(&"null") && trimmed == "null" {
        return Some(Value::Null);
    }
    None
}

fn fix_enum_case(text: &str, options: &[Value]) -> Option<Value> {
    if options.iter().any(|o| o.as_str() == Some(text)) {
        return None;
    }
    let mut matches = options
        .iter()
        .filter_map(Value::as_str)
        .filter(|o| o.eq_ignore_ascii_case(text.trim()));
    let first = matches.next()?;
    // Two values differing only in case: guessing would be a silent wrong value.
    matches
        .next()
        .is_none()
        .then(|| Value::String(first.to_owned()))
}

fn whole_number(number: &Number) -> Option<Number> {
    if number.is_i64() || number.is_u64() {
        return None;
    }
    let float = number.as_f64()?;
    if float.fract() != 0.0 || !float.is_finite() {
        return None;
    }
    // Beyond 2^53 a float is not necessarily the integer the model wrote (JSON text
    // `-9223372036854775809` reads as the float nearest to it, which is i64::MIN): converting it
    // would be a silent wrong value.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    (float.abs() <= EXACT).then(|| (float as i64).into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn coerced(value: Value, schema: Value) -> Value {
        let mut args = Map::new();
        args.insert("x".into(), value);
        let parameters = json!({"type": "object", "properties": {"x": schema}});
        coerce_arguments(&mut args, &parameters);
        args.remove("x").unwrap()
    }

    #[test]
    fn numeric_strings_become_numbers_only_when_they_parse() {
        assert_eq!(coerced(json!("5"), json!({"type": "integer"})), json!(5));
        assert_eq!(
            coerced(json!(" -7 "), json!({"type": "integer"})),
            json!(-7)
        );
        assert_eq!(coerced(json!("2.5"), json!({"type": "number"})), json!(2.5));
        assert_eq!(
            coerced(json!("abc"), json!({"type": "integer"})),
            json!("abc")
        );
        assert_eq!(
            coerced(json!("2.5"), json!({"type": "integer"})),
            json!("2.5")
        );
    }

    #[test]
    fn whole_floats_become_integers_and_fractions_do_not() {
        assert_eq!(coerced(json!(5.0), json!({"type": "integer"})), json!(5));
        assert_eq!(coerced(json!(5.5), json!({"type": "integer"})), json!(5.5));
        assert_eq!(
            coerced(json!(-1e19), json!({"type": "integer"})),
            json!(-1e19)
        );
    }

    #[test]
    fn boolean_words_become_booleans() {
        assert_eq!(
            coerced(json!("true"), json!({"type": "boolean"})),
            json!(true)
        );
        assert_eq!(
            coerced(json!("False"), json!({"type": "boolean"})),
            json!(false)
        );
        assert_eq!(
            coerced(json!("yes"), json!({"type": "boolean"})),
            json!("yes")
        );
    }

    #[test]
    fn json_strings_become_arrays_and_objects() {
        let schema = json!({"type": "array", "items": {"type": "integer"}});
        assert_eq!(coerced(json!("[1, \"2\"]"), schema), json!([1, 2]));
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        assert_eq!(coerced(json!("{\"n\": \"3\"}"), schema), json!({"n": 3}));
    }

    #[test]
    fn enum_case_is_fixed_only_when_unambiguous() {
        let schema = json!({"type": "string", "enum": ["low", "high"]});
        assert_eq!(coerced(json!("HIGH"), schema), json!("high"));
        let schema = json!({"type": "string", "enum": ["a", "A"]});
        assert_eq!(coerced(json!("a"), schema.clone()), json!("a"));
        let schema = json!({"type": "string", "enum": ["ab", "AB"]});
        assert_eq!(coerced(json!("Ab"), schema), json!("Ab"));
    }

    #[test]
    fn nullable_unions_coerce_the_non_null_branch() {
        let schema = json!({"type": ["integer", "null"]});
        assert_eq!(coerced(json!("4"), schema.clone()), json!(4));
        assert_eq!(coerced(json!(null), schema), json!(null));
        let schema = json!({"anyOf": [{"type": "object", "properties": {"n": {"type": "integer"}}}, {"type": "null"}]});
        assert_eq!(coerced(json!({"n": "1"}), schema), json!({"n": 1}));
    }
}
