//! Gemini: function declarations in its OpenAPI 3.0 schema subset, `functionResponse` parts,
//! and the `generateContent` / `streamGenerateContent` wire format.
//!
//! The shapes are those of the Gemini API reference: "Generating content"
//! (<https://ai.google.dev/api/generate-content>: `contents`, `systemInstruction`, `tools`,
//! `toolConfig`, `generationConfig`, `candidates`, `usageMetadata`, `finishReason`), "Caching"
//! for `Content`/`Part`, and the function-calling guide
//! (<https://ai.google.dev/gemini-api/docs/function-calling>).
//!
//! | concept | where |
//! | --- | --- |
//! | tool definitions, `functionResponse` parts | here ([`Format::Gemini`](super::Format::Gemini)) |
//! | the request body | [`request_body`] |
//! | a whole reply | [`read_reply`] |
//! | a streamed reply (`alt=sse`) | [`GeminiStream`] |

mod call_id;
mod reply;
mod request;
mod stream;

use serde_json::{Map, Value, json};

pub use reply::read_reply;
pub use request::request_body;
pub use stream::GeminiStream;

/// The API's name in errors: "Gemini".
pub const API: &str = "Gemini";

use super::content::gemini_parts;
use super::notes::{append_description, constraint_note};
use crate::schema::keywords::schema_types;
use crate::schema::{ref_name, resolve_ref};
use crate::{ToolCallResult, ToolProxy};

/// Schema keywords Gemini's `Schema` object knows. Anything else is dropped or rewritten.
pub const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

impl ToolProxy {
    /// One Gemini function declaration: `{"name", "description", "parameters"}`, the parameters
    /// converted to Gemini's schema subset (upper-case types, `nullable`, string enums; no
    /// `$ref`, `additionalProperties`, `oneOf`, `const`, ...). A tool without parameters has no
    /// `parameters` key, as Gemini rejects an object schema without properties.
    pub(super) fn gemini_definition(&self) -> Value {
        let mut declaration = Map::new();
        declaration.insert("name".into(), self.name().into());
        declaration.insert("description".into(), self.description().into());
        let has_properties = self
            .parameters()
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if has_properties {
            declaration.insert("parameters".into(), gemini_schema(self.parameters()));
        }
        Value::Object(declaration)
    }
}

impl ToolCallResult {
    /// The Gemini part: `{"functionResponse": {"name", "response"}}`, with the result under
    /// `"output"` or the error under `"error"` (Gemini's response must be an object), and the
    /// call's `id` when Gemini gave it one. A content result's text goes under `"output"` (its
    /// structured content under `"structuredContent"`), and its images and PDFs in `"parts"`
    /// as `{"inlineData": {"mimeType", "data"}}`.
    pub(super) fn gemini_part(&self) -> Value {
        let key = if self.is_error { "error" } else { "output" };
        let mut response = Map::new();
        if let Some(id) = call_id::on_wire(self.call_id.as_deref()) {
            response.insert("id".into(), id.into());
        }
        response.insert("name".into(), self.name.clone().into());
        match self.content() {
            Some(output) => {
                let (text, parts) = gemini_parts(&output);
                let mut body = json!({ key: text });
                if let Some(structured) = output.structured_content {
                    body["structuredContent"] = structured;
                }
                response.insert("response".into(), body);
                if !parts.is_empty() {
                    response.insert("parts".into(), Value::Array(parts));
                }
            }
            None => {
                response.insert("response".into(), json!({ key: self.value }));
            }
        }
        json!({ "functionResponse": response })
    }
}

/// Converts a JSON Schema to Gemini's `Schema` subset.
///
/// `$ref`s are inlined (a recursive one becomes an untyped object described in words), unions
/// with `null` become `nullable`, `oneOf` becomes `anyOf`, every enum becomes a string enum, and
/// keywords Gemini rejects are dropped, their meaning moved into the description.
///
/// ```
/// use serde_json::json;
///
/// let gemini = toolkit::providers::gemini_schema(&json!({
///     "type": "object",
///     "properties": {"n": {"type": ["integer", "null"], "exclusiveMinimum": 0}},
///     "additionalProperties": false
/// }));
/// assert_eq!(
///     gemini,
///     json!({
///         "type": "OBJECT",
///         "properties": {"n": {"type": "INTEGER", "nullable": true, "description": "Greater than 0."}}
///     })
/// );
/// ```
pub fn gemini_schema(schema: &Value) -> Value {
    Gemini {
        root: schema,
        expanding: Vec::new(),
    }
    .node(schema)
}

/// Gemini has no `$ref`: references are expanded in place, and one met again inside its own
/// expansion becomes an object described in words.
struct Gemini<'a> {
    root: &'a Value,
    /// The names of the references being expanded, innermost last.
    expanding: Vec<String>,
}

impl Gemini<'_> {
    fn node(&mut self, schema: &Value) -> Value {
        let Value::Object(source) = schema else {
            // `true`: any value; Gemini has no spelling for it but an untyped schema.
            return json!({});
        };
        let mut map = source.clone();
        for key in ["$defs", "definitions", "$schema", "$id"] {
            map.remove(key);
        }
        if let Some(Value::String(reference)) = map.remove("$ref") {
            return self.reference(&reference, map);
        }
        if let Some(Value::Array(all)) = map.remove("allOf") {
            for part in all {
                if let Value::Object(part) = part {
                    for (key, value) in part {
                        map.entry(key).or_insert(value);
                    }
                }
            }
            return self.node(&Value::Object(map));
        }
        free_form_map(&map).unwrap_or_else(|| self.shape(map))
    }

    /// A `$ref` with the keywords written next to it, which win over the definition's.
    fn reference(&mut self, reference: &str, mut map: Map<String, Value>) -> Value {
        let name = ref_name(reference);
        if self.expanding.contains(&name) {
            let description = match map.get("description") {
                Some(Value::String(description)) => format!(
                    "{description} (a nested {name}, with the same fields as the enclosing one)"
                ),
                _ => format!("A nested {name}, with the same fields as the enclosing one."),
            };
            return json!({"type": "OBJECT", "description": description});
        }
        if let Some(Value::Object(definition)) = resolve_ref(reference, self.root) {
            for (key, value) in definition {
                map.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        self.expanding.push(name);
        let converted = self.node(&Value::Object(map));
        self.expanding.pop();
        converted
    }

    /// A schema without references: its union, its type or enum, then every other keyword.
    fn shape(&mut self, mut map: Map<String, Value>) -> Value {
        let mut out = Map::new();
        let mut nullable = self.union(&mut map, &mut out);
        let mut types: Vec<String> = schema_types(&map).into_iter().map(str::to_owned).collect();
        if types.iter().any(|t| t == "null") {
            nullable = true;
            types.retain(|t| t != "null");
        }
        if let Some(constant) = map.remove("const") {
            map.insert("enum".into(), Value::Array(vec![constant]));
        }
        if let Some(Value::Array(values)) = map.remove("enum") {
            nullable |= string_enum(values, &mut out);
            types.clear();
        }
        match types.as_slice() {
            [] => {}
            [one] => {
                out.insert("type".into(), Value::String(one.to_uppercase()));
            }
            many => {
                let branches = self.one_type_each(many, &map);
                out.insert("anyOf".into(), Value::Array(branches));
            }
        }
        let notes = self.keywords(map, types.len() <= 1, &mut out);
        if nullable {
            out.insert("nullable".into(), true.into());
        }
        append_description(&mut out, &notes);
        Value::Object(out)
    }

    /// `anyOf`/`oneOf`: null branches become `nullable` (returned); one branch left is the
    /// schema itself, several stay a union.
    fn union(&mut self, map: &mut Map<String, Value>, out: &mut Map<String, Value>) -> bool {
        let Some(Value::Array(branches)) = map.remove("anyOf").or_else(|| map.remove("oneOf"))
        else {
            return false;
        };
        let (nulls, kept): (Vec<Value>, Vec<Value>) = branches.into_iter().partition(|branch| {
            branch
                .as_object()
                .is_some_and(|b| schema_types(b) == ["null"])
        });
        if let [only] = kept.as_slice() {
            if let Value::Object(inner) = self.node(only) {
                for (key, value) in inner {
                    if key == "description" && map.contains_key("description") {
                        continue;
                    }
                    out.insert(key, value);
                }
            }
        } else if !kept.is_empty() {
            let branches: Vec<Value> = kept.iter().map(|b| self.node(b)).collect();
            out.insert("anyOf".into(), Value::Array(branches));
        }
        !nulls.is_empty()
    }

    /// `["string", "integer"]`: Gemini takes one type per schema, so one branch per type.
    fn one_type_each(&mut self, types: &[String], map: &Map<String, Value>) -> Vec<Value> {
        types
            .iter()
            .map(|t| {
                let mut single = map.clone();
                single.insert("type".into(), Value::String(t.clone()));
                single.remove("description");
                self.node(&Value::Object(single))
            })
            .collect()
    }

    /// Every keyword but the type, enum and union (already converted): kept, converted,
    /// described in words, or dropped. Returns the sentences for the description.
    fn keywords(
        &mut self,
        map: Map<String, Value>,
        single_type: bool,
        out: &mut Map<String, Value>,
    ) -> Vec<String> {
        let mut notes = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "type" | "enum" | "anyOf" | "oneOf" | "additionalProperties" => {}
                "properties" if single_type => {
                    if let Value::Object(properties) = value {
                        let converted: Map<String, Value> = properties
                            .iter()
                            .map(|(name, p)| (name.clone(), self.node(p)))
                            .collect();
                        out.insert(key, Value::Object(converted));
                    }
                }
                // `items: false` closes a tuple; `prefixItems` already said what it holds.
                "items" if value == Value::Bool(false) => {}
                "items" if single_type => {
                    out.insert(key, self.node(&value));
                }
                "prefixItems" if single_type => {
                    if let Value::Array(positions) = value {
                        notes.push(self.tuple(&positions, out));
                    }
                }
                // An enum already set `format: enum`.
                "format" if out.contains_key("format") => {}
                "format" | "description" => {
                    out.insert(key, value);
                }
                _ if single_type && GEMINI_KEYWORDS.contains(&key.as_str()) => {
                    out.insert(key, value);
                }
                _ if single_type => notes.extend(constraint_note(&key, &value)),
                _ => {}
            }
        }
        notes
    }

    /// A tuple: Gemini has no positional items, so the positions are described instead.
    fn tuple(&mut self, positions: &[Value], out: &mut Map<String, Value>) -> String {
        let shapes: Vec<Value> = positions.iter().map(|p| self.node(p)).collect();
        let count = shapes.len();
        let first = shapes.first().cloned().unwrap_or_else(|| json!({}));
        let items = if shapes.iter().all(|s| *s == first) {
            first
        } else {
            json!({ "anyOf": shapes })
        };
        out.insert("items".into(), items);
        out.insert("minItems".into(), count.into());
        out.insert("maxItems".into(), count.into());
        format!("A list of exactly {count} values, in order.")
    }
}

/// A map (an object whose keys are chosen freely) has no Gemini spelling: an OBJECT needs named
/// properties. It travels as JSON text, which lax coercion parses back on arrival.
fn free_form_map(map: &Map<String, Value>) -> Option<Value> {
    let types = schema_types(map);
    let open = !matches!(map.get("additionalProperties"), Some(Value::Bool(false)));
    if !types.contains(&"object") || map.contains_key("properties") || !open {
        return None;
    }
    let mut text = Map::new();
    text.insert("type".into(), "STRING".into());
    if let Some(description) = map.get("description") {
        text.insert("description".into(), description.clone());
    }
    if types.contains(&"null") {
        text.insert("nullable".into(), true.into());
    }
    append_description(
        &mut text,
        &["A JSON object whose keys are chosen freely, written as JSON text.".into()],
    );
    Some(Value::Object(text))
}

/// Gemini's enums are string enums (our coercion turns "3" back into 3 on arrival); a `null`
/// value makes the schema nullable instead (returned).
fn string_enum(values: Vec<Value>, out: &mut Map<String, Value>) -> bool {
    let mut nullable = false;
    let mut strings = Vec::new();
    for value in values {
        match value {
            Value::Null => nullable = true,
            Value::String(s) => strings.push(Value::String(s)),
            other => strings.push(Value::String(other.to_string())),
        }
    }
    out.insert("type".into(), "STRING".into());
    out.insert("format".into(), "enum".into());
    out.insert("enum".into(), Value::Array(strings));
    nullable
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursive_refs_become_described_objects_for_gemini() {
        let gemini = gemini_schema(&json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
            }}
        }));
        assert_eq!(
            gemini["properties"]["root"]["properties"]["children"]["items"],
            json!({"type": "OBJECT", "description": "A nested Node, with the same fields as the enclosing one."})
        );
    }
}
