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
/// A schema that would grow past [`InlineError::MAX_NODES`] values or nest past
/// [`InlineError::MAX_DEPTH`] levels is an error, found before it is built whole and without
/// deep recursion.
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
///     inline_refs(&schema).unwrap(),
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
pub fn inline_refs(schema: &Value) -> Result<Value, InlineError> {
    let mut root = schema.clone();
    let Value::Object(map) = &mut root else {
        return Ok(root);
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
        return Ok(root);
    }
    let mut inliner = Inliner {
        definitions: &definitions,
        in_progress: Vec::new(),
        recursive: BTreeSet::new(),
        nodes: 0,
    };
    inliner.inline(&mut root, 0)?;
    let kept = inliner.recursive_closure()?;
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
    Ok(root)
}

/// Why a schema could not be made self-contained: inlined, it would be larger or deeper than any
/// tool needs, as a hostile or broken schema can be (references chained thousands deep, or each
/// used twice by the next, doubling at every step).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InlineError {
    /// Inlined, the schema would hold more than `limit` JSON values.
    #[error("the schema would hold more than {limit} values once its references are inlined")]
    TooLarge {
        /// The most values an inlined schema may hold.
        limit: usize,
    },
    /// Inlined, the schema would nest more than `limit` levels deep.
    #[error("the schema would nest more than {limit} levels deep once its references are inlined")]
    TooDeep {
        /// The deepest an inlined schema may nest.
        limit: usize,
    },
}

impl InlineError {
    /// The most JSON values an inlined schema may hold: far more than any tool's arguments
    /// need, far less than the memory a doubling chain of references would take.
    pub const MAX_NODES: usize = 100_000;
    /// The deepest an inlined schema may nest; walking it recurses, so this also bounds the
    /// stack every later step (validation, provider conversions) needs.
    pub const MAX_DEPTH: usize = 128;
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

/// One inlining: the definitions, the references being expanded (innermost last), the ones
/// found to recurse, and the values written so far (the budget).
struct Inliner<'a> {
    definitions: &'a Definitions,
    in_progress: Vec<String>,
    recursive: BTreeSet<String>,
    nodes: usize,
}

impl<'a> Inliner<'a> {
    /// Inlines every reference under `value`, which sits `depth` levels down in the result.
    fn inline(&mut self, value: &mut Value, depth: usize) -> Result<(), InlineError> {
        self.nodes += 1;
        if self.nodes > InlineError::MAX_NODES {
            return Err(InlineError::TooLarge {
                limit: InlineError::MAX_NODES,
            });
        }
        if depth > InlineError::MAX_DEPTH {
            return Err(InlineError::TooDeep {
                limit: InlineError::MAX_DEPTH,
            });
        }
        match value {
            Value::Object(map) => {
                let target = match map.get("$ref") {
                    Some(Value::String(reference)) => Some(reference.clone()),
                    _ => None,
                };
                for (key, child) in map.iter_mut() {
                    if key != "$ref" && !CONTAINERS.contains(&key.as_str()) {
                        self.inline(child, depth + 1)?;
                    }
                }
                let Some(pointer) = target else {
                    return Ok(());
                };
                self.expand(value, pointer, depth)?;
            }
            Value::Array(items) => {
                for item in items {
                    self.inline(item, depth + 1)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Replaces the object `value`, which holds a `$ref` to `pointer`, with the definition it
    /// names (inlined in turn) under the keywords written beside the reference.
    fn expand(
        &mut self,
        value: &mut Value,
        pointer: String,
        depth: usize,
    ) -> Result<(), InlineError> {
        let Some(definition) = self.definitions.get(&pointer) else {
            return Ok(());
        };
        if self.in_progress.contains(&pointer) {
            self.recursive.insert(pointer);
            return Ok(());
        }
        // References expanded inside each other deepen the walk even where the result does not
        // (a chain of definitions that each only point to the next).
        if self.in_progress.len() >= InlineError::MAX_DEPTH {
            return Err(InlineError::TooDeep {
                limit: InlineError::MAX_DEPTH,
            });
        }
        let mut inlined = definition.schema.clone();
        self.in_progress.push(pointer);
        let done = self.inline(&mut inlined, depth);
        self.in_progress.pop();
        done?;
        if let Value::Object(map) = value {
            map.remove("$ref");
            *value = merge_siblings(inlined, std::mem::take(map));
        }
        Ok(())
    }

    /// The recursive definitions, each inlined in turn, by pointer. A recursive definition may
    /// reach other recursive ones, so the set grows to a fixed point.
    fn recursive_closure(&mut self) -> Result<BTreeMap<&'a String, Value>, InlineError> {
        let mut kept = BTreeMap::new();
        let mut pending: Vec<String> = std::mem::take(&mut self.recursive).into_iter().collect();
        while let Some(pointer) = pending.pop() {
            let Some((key, definition)) = self.definitions.get_key_value(&pointer) else {
                continue;
            };
            if kept.contains_key(key) {
                continue;
            }
            let mut schema = definition.schema.clone();
            self.in_progress = vec![pointer];
            self.inline(&mut schema, 1)?;
            kept.insert(key, schema);
            pending.extend(std::mem::take(&mut self.recursive));
        }
        Ok(kept)
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
            inline_refs(&schema).unwrap(),
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
            inline_refs(&schema).unwrap(),
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
        let inlined = inline_refs(&schema).unwrap();
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
            inline_refs(&schema).unwrap()["properties"]["any"],
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
