//! The JSON Schema a model sees: built once per tool from its parameters, self-contained.
//!
//! schemars gives every named type a `$ref` into `$defs`. Many clients reject `$ref`, and models
//! read inline schemas better, so every reference is inlined except the ones that would recurse
//! forever; only those keep a `$defs` entry.

use std::collections::BTreeSet;

use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value};

/// One parameter of a tool, as the `#[toolset]` macro describes it.
///
/// Everything here is known at compile time, so a tool's parameters are a `static` slice.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The argument's name, as the model sends it.
    pub name: &'static str,
    /// Its description, from a doc comment or `#[arg(description = "...")]`.
    pub description: Option<&'static str>,
    /// Produces the schema of the parameter's type.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Whether the model must send it.
    pub required: bool,
    /// The default value shown in the schema, for `#[arg(default)]` parameters.
    pub default: Option<fn() -> Option<Value>>,
}

/// The schema of a parameter of type `T` (the function the macro stores in [`ParamSpec::schema`]).
pub fn param_schema<T: crate::ToolArgument>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The schema of an `Option<T>` parameter, with the bound on `T` (see `param_schema`).
pub fn param_schema_option<T: crate::ToolArgument>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<Option<T>>()
}

/// A generator configured the way every toolkit schema is made.
pub fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
}

/// Builds the object schema of a tool's arguments.
///
/// ```
/// use toolkit_runtime::schema::{ParamSpec, param_schema, parameters_schema};
/// use serde_json::json;
///
/// let params = [ParamSpec {
///     name: "text",
///     description: Some("The text to count"),
///     schema: param_schema::<String>,
///     required: true,
///     default: None,
/// }];
/// assert_eq!(
///     parameters_schema(&params),
///     json!({
///         "type": "object",
///         "properties": {"text": {"type": "string", "description": "The text to count"}},
///         "required": ["text"],
///         "additionalProperties": false
///     })
/// );
/// ```
pub fn parameters_schema(params: &[ParamSpec]) -> Value {
    let mut generator = generator();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in params {
        let mut schema = (param.schema)(&mut generator).to_value();
        // `serde_json::Value` is the schema `true` (anything); an empty object means the same
        // and can carry the parameter's description.
        if schema == Value::Bool(true) {
            schema = Value::Object(Map::new());
        }
        if let Value::Object(map) = &mut schema {
            if let Some(description) = param.description {
                map.insert("description".into(), Value::String(description.into()));
            }
            if let Some(default) = param.default.and_then(|make| make()) {
                map.insert("default".into(), default);
            }
        }
        properties.insert(param.name.into(), schema);
        if param.required {
            required.push(Value::String(param.name.into()));
        }
    }
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    root.insert("additionalProperties".into(), false.into());
    let definitions = generator.take_definitions(true);
    finish(Value::Object(root), &definitions)
}

/// The schema of a whole type `T`, made self-contained the same way as parameter schemas.
///
/// Used for output schemas (MCP `outputSchema`).
///
/// ```
/// use serde_json::json;
///
/// let schema = toolkit_runtime::schema::type_schema::<Vec<u8>>();
/// assert_eq!(
///     schema,
///     json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}})
/// );
/// ```
pub fn type_schema<T: JsonSchema + ?Sized>() -> Value {
    let mut generator = generator();
    let schema = generator.subschema_for::<T>().to_value();
    let definitions = generator.take_definitions(true);
    finish(schema, &definitions)
}

/// Inlines references, keeps `$defs` only for recursion, and strips generator noise.
fn finish(mut root: Value, definitions: &Map<String, Value>) -> Value {
    let mut recursive = BTreeSet::new();
    inline_refs(&mut root, definitions, &mut Vec::new(), &mut recursive);

    // A recursive definition may itself reach other recursive ones: grow the set to a fixed point.
    let mut kept = Map::new();
    let mut pending: Vec<String> = recursive.iter().cloned().collect();
    while let Some(name) = pending.pop() {
        if kept.contains_key(&name) {
            continue;
        }
        let Some(definition) = definitions.get(&name) else {
            continue;
        };
        let mut definition = definition.clone();
        let mut found = BTreeSet::new();
        inline_refs(
            &mut definition,
            definitions,
            &mut vec![name.clone()],
            &mut found,
        );
        kept.insert(name, definition);
        pending.extend(found.into_iter().filter(|n| !kept.contains_key(n)));
    }
    if !kept.is_empty() {
        kept.sort_keys();
        if let Value::Object(map) = &mut root {
            map.insert("$defs".into(), Value::Object(kept));
        }
    }
    strip_noise(&mut root);
    root
}

const DEFS_PREFIX: &str = "#/$defs/";

fn inline_refs(
    value: &mut Value,
    definitions: &Map<String, Value>,
    in_progress: &mut Vec<String>,
    recursive: &mut BTreeSet<String>,
) {
    match value {
        Value::Object(map) => {
            let target = match map.get("$ref") {
                Some(Value::String(reference)) => reference
                    .strip_prefix(DEFS_PREFIX)
                    .map(decode_pointer_segment),
                _ => None,
            };
            for (key, child) in map.iter_mut() {
                if key != "$ref" {
                    inline_refs(child, definitions, in_progress, recursive);
                }
            }
            let Some(name) = target else { return };
            if in_progress.contains(&name) {
                recursive.insert(name);
                return;
            }
            let Some(definition) = definitions.get(&name) else {
                return;
            };
            let mut inlined = definition.clone();
            in_progress.push(name);
            inline_refs(&mut inlined, definitions, in_progress, recursive);
            in_progress.pop();
            map.remove("$ref");
            *value = merge_siblings(inlined, std::mem::take(map));
        }
        Value::Array(items) => {
            for item in items {
                inline_refs(item, definitions, in_progress, recursive);
            }
        }
        _ => {}
    }
}

/// Keywords written next to a `$ref` (a parameter's description) win over the definition's.
fn merge_siblings(definition: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return definition;
    }
    match definition {
        Value::Object(mut merged) => {
            for (key, value) in siblings {
                merged.insert(key, value);
            }
            Value::Object(merged)
        }
        other => {
            let mut wrapper = siblings;
            wrapper.insert("allOf".into(), Value::Array(vec![other]));
            Value::Object(wrapper)
        }
    }
}

fn decode_pointer_segment(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// Removes what schemars adds for documentation tools but a model or provider only trips over:
/// `$schema`, `title`, and the non-standard numeric formats (`uint8`, `double`), whose meaning
/// the `minimum`/`maximum` keywords carry instead.
fn strip_noise(value: &mut Value) {
    match value {
        Value::Object(map) => {
            // `shift_remove` keeps the order of the remaining keys: the bytes a model sees
            // read in the order schemars wrote them.
            map.shift_remove("$schema");
            if matches!(map.get("title"), Some(Value::String(_))) {
                map.shift_remove("title");
            }
            if is_numeric(map) {
                replace_format_with_range(map);
            }
            for (key, child) in map.iter_mut() {
                // `properties` and `$defs` hold names, not schemas: a property named "title"
                // must survive.
                if key == "properties" || key == "$defs" || key == "patternProperties" {
                    if let Value::Object(children) = child {
                        children.values_mut().for_each(strip_noise);
                    }
                } else if key != "enum" && key != "const" && key != "default" && key != "examples" {
                    strip_noise(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_noise),
        _ => {}
    }
}

fn is_numeric(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "integer" || t == "number",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer" || t == "number"),
        _ => false,
    }
}

/// Puts `minimum` and `maximum` where schemars wrote its `format`, so every integer type shows
/// its whole range (schemars states it only for the 8- and 16-bit types) and `f32` shows the
/// largest value it can hold instead of silently becoming infinity.
///
/// 128-bit integers get the range a JSON number can carry into them: serde_json reads an integer
/// beyond `i64`/`u64` as a float, which no integer type accepts.
fn replace_format_with_range(map: &mut Map<String, Value>) {
    let Some(Value::String(format)) = map.get("format") else {
        return;
    };
    let range: Option<(Value, Value)> = match format.as_str() {
        "int8" => Some((i8::MIN.into(), i8::MAX.into())),
        "int16" => Some((i16::MIN.into(), i16::MAX.into())),
        "int32" => Some((i32::MIN.into(), i32::MAX.into())),
        "int64" => Some((i64::MIN.into(), i64::MAX.into())),
        "int128" => Some((i64::MIN.into(), u64::MAX.into())),
        "int" => Some(((isize::MIN as i64).into(), (isize::MAX as i64).into())),
        "uint8" => Some((0.into(), u8::MAX.into())),
        "uint16" => Some((0.into(), u16::MAX.into())),
        "uint32" => Some((0.into(), u32::MAX.into())),
        "uint64" | "uint128" => Some((0.into(), u64::MAX.into())),
        "uint" => Some((0.into(), (usize::MAX as u64).into())),
        "float" => Some((f64::from(-f32::MAX).into(), f64::from(f32::MAX).into())),
        _ => None,
    };
    let Some((min, max)) = range else {
        map.shift_remove("format");
        return;
    };
    // A bound already written (`#[schemars(range(...))]`) is narrower than the type's: keep it.
    let minimum = map.get("minimum").cloned().unwrap_or(min);
    let maximum = map.get("maximum").cloned().unwrap_or(max);
    for (key, value) in std::mem::take(map) {
        match key.as_str() {
            "format" => {
                map.insert("minimum".into(), minimum.clone());
                map.insert("maximum".into(), maximum.clone());
            }
            "minimum" | "maximum" => {
                map.entry(key).or_insert(value);
            }
            _ => {
                map.insert(key, value);
            }
        }
    }
}
