//! Local `$ref`s: the one inliner every schema goes through (schemas built from Rust types,
//! schemas of tools built at run time, schemas sent by remote MCP servers), and the one resolver
//! for the references left in place.
//!
//! Many clients reject `$ref`, and models read inline schemas better, so every reference is
//! inlined except those that would recurse forever; only those keep a definition.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// Where definitions live: JSON Schema 2020-12's `$defs` and draft 7's `definitions`.
const CONTAINERS: [&str; 2] = ["$defs", "definitions"];

/// The schema with every local reference (`#/$defs/...`, `#/definitions/...`) replaced by what it
/// points to. A reference that would recurse forever stays, and its definition is kept (with
/// everything inside it inlined the same way) under the key it came from, sorted by name;
/// definitions nothing recursive needs are dropped.
///
/// Keywords written next to a `$ref` (a description, a default) win over the definition's; next
/// to a definition that is not an object (`true`), they wrap it in `allOf`.
///
/// ```
/// use serde_json::json;
/// use toolkit::schema::inline_refs;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"at": {"$ref": "#/$defs/Point", "description": "where"}},
///     "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}}}
/// });
/// assert_eq!(
///     inline_refs(&schema),
///     json!({
///         "type": "object",
///         "properties": {"at": {
///             "type": "object",
///             "properties": {"x": {"type": "number"}},
///             "description": "where"
///         }}
///     })
/// );
/// ```
pub fn inline_refs(schema: &Value) -> Value {
    let mut root = schema.clone();
    let Value::Object(map) = &mut root else {
        return root;
    };
    let mut definitions = Definitions::new();
    for container in CONTAINERS {
        if let Some(Value::Object(defs)) = map.shift_remove(container) {
            for (name, schema) in defs {
                let pointer = format!("#/{container}/{}", escape_pointer_segment(&name));
                let definition = Definition {
                    container,
                    name,
                    schema,
                };
                definitions.insert(pointer, definition);
            }
        }
    }
    if definitions.is_empty() {
        return root;
    }
    let mut recursive = BTreeSet::new();
    inline(&mut root, &definitions, &mut Vec::new(), &mut recursive);
    let kept = recursive_closure(&definitions, recursive);
    if let Value::Object(map) = &mut root {
        for container in CONTAINERS {
            let mut defs: Map<String, Value> = kept
                .iter()
                .filter(|(pointer, _)| definitions[pointer.as_str()].container == container)
                .map(|(pointer, schema)| {
                    (definitions[pointer.as_str()].name.clone(), schema.clone())
                })
                .collect();
            if !defs.is_empty() {
                defs.sort_keys();
                map.insert(container.to_owned(), Value::Object(defs));
            }
        }
    }
    root
}

/// What a local reference (`#/...`) points to inside `root`.
pub(crate) fn resolve_ref<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    root.pointer(reference.strip_prefix('#')?)
}

/// The last segment of a reference, decoded: the definition's name (`#/$defs/a~1b` -> `a/b`).
pub(crate) fn ref_name(reference: &str) -> String {
    let segment = reference.rsplit('/').next().unwrap_or_default();
    segment.replace("~1", "/").replace("~0", "~")
}

/// One definition, by the pointer references use for it.
struct Definition {
    container: &'static str,
    name: String,
    schema: Value,
}

type Definitions = BTreeMap<String, Definition>;

/// The recursive definitions, each inlined in turn, by pointer. A recursive definition may reach
/// other recursive ones, so the set grows to a fixed point.
fn recursive_closure(
    definitions: &Definitions,
    recursive: BTreeSet<String>,
) -> BTreeMap<&String, Value> {
    let mut kept = BTreeMap::new();
    let mut pending: Vec<String> = recursive.into_iter().collect();
    while let Some(pointer) = pending.pop() {
        let Some((key, definition)) = definitions.get_key_value(&pointer) else {
            continue;
        };
        if kept.contains_key(key) {
            continue;
        }
        let mut schema = definition.schema.clone();
        let mut found = BTreeSet::new();
        inline(&mut schema, definitions, &mut vec![pointer], &mut found);
        kept.insert(key, schema);
        pending.extend(found);
    }
    kept
}

fn inline(
    value: &mut Value,
    definitions: &Definitions,
    in_progress: &mut Vec<String>,
    recursive: &mut BTreeSet<String>,
) {
    match value {
        Value::Object(map) => {
            let target = match map.get("$ref") {
                Some(Value::String(reference)) => Some(reference.clone()),
                _ => None,
            };
            for (key, child) in map.iter_mut() {
                if key != "$ref" && !CONTAINERS.contains(&key.as_str()) {
                    inline(child, definitions, in_progress, recursive);
                }
            }
            let Some(pointer) = target else { return };
            let Some(definition) = definitions.get(&pointer) else {
                return;
            };
            if in_progress.contains(&pointer) {
                recursive.insert(pointer);
                return;
            }
            let mut inlined = definition.schema.clone();
            in_progress.push(pointer);
            inline(&mut inlined, definitions, in_progress, recursive);
            in_progress.pop();
            map.remove("$ref");
            *value = merge_siblings(inlined, std::mem::take(map));
        }
        Value::Array(items) => {
            for item in items {
                inline(item, definitions, in_progress, recursive);
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

fn escape_pointer_segment(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_are_inlined_and_required_is_kept_exactly() {
        let schema = json!({
            "type": "object",
            "properties": {
                "point": {"$ref": "#/$defs/Point", "description": "where"},
                "label": {"type": "string"}
            },
            "required": ["point"],
            "$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}}
        });
        assert_eq!(
            inline_refs(&schema),
            json!({
                "type": "object",
                "properties": {
                    "point": {
                        "type": "object",
                        "properties": {"x": {"type": "number"}},
                        "required": ["x"],
                        "description": "where"
                    },
                    "label": {"type": "string"}
                },
                "required": ["point"]
            })
        );
    }

    #[test]
    fn a_recursive_ref_keeps_its_definition() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        assert_eq!(
            inline_refs(&schema),
            json!({
                "type": "object",
                "properties": {"tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
                "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
            })
        );
    }

    #[test]
    fn draft_7_definitions_stay_under_their_own_key() {
        let schema = json!({
            "properties": {"a": {"$ref": "#/definitions/A"}, "l": {"$ref": "#/definitions/List"}},
            "definitions": {
                "A": {"type": "string"},
                "List": {"type": "object", "properties": {"next": {"$ref": "#/definitions/List"}}}
            }
        });
        let inlined = inline_refs(&schema);
        assert_eq!(inlined["properties"]["a"], json!({"type": "string"}));
        assert_eq!(
            inlined["definitions"],
            json!({"List": {"type": "object", "properties": {"next": {"$ref": "#/definitions/List"}}}})
        );
    }

    #[test]
    fn siblings_of_a_ref_to_a_non_object_wrap_it() {
        let schema = json!({
            "properties": {"any": {"$ref": "#/$defs/Any", "description": "anything"}},
            "$defs": {"Any": true}
        });
        assert_eq!(
            inline_refs(&schema)["properties"]["any"],
            json!({"description": "anything", "allOf": [true]})
        );
    }

    #[test]
    fn references_resolve_by_pointer_and_name_their_definition() {
        let root = json!({"$defs": {"a/b": {"type": "null"}}});
        assert_eq!(
            resolve_ref("#/$defs/a~1b", &root),
            Some(&json!({"type": "null"}))
        );
        assert_eq!(ref_name("#/$defs/a~1b"), "a/b");
        assert_eq!(resolve_ref("other.json#/x", &root), None);
    }
}
