//! How much work checking arguments against a schema can take, bounded before it is done.
//!
//! A validator tries every branch of a union (`anyOf`/`oneOf`, as schemars writes an untagged
//! enum) until one fits, and the error report visits them all. When branches recurse (a tree
//! whose node is an untagged enum), the work doubles with every level of nesting: 260 bytes of
//! arguments nested 16 deep took over a second. So for schemas where that can happen, the work
//! is counted first, in time proportional to the arguments times the schema, and arguments over
//! the budget are refused.
//!
//! Counting each (value, schema) pair once is right for the validator's yes-or-no answer, which
//! caches what it learns about a value under a `$ref`. Its error report caches nothing: every
//! branch of a union that rejects a value carries the errors of that branch's children, each
//! with its own union inside, so the report of a chain of mislabelled nodes doubles at every
//! level (220 bytes 14 deep: 0.2 s and 169 MB). [`error_report_within`] counts that work as
//! the report does it, path by path, and stops counting at its limit.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::schema::resolve_ref;

/// Schema nodes a check may visit: a few milliseconds of validation.
pub(crate) const BUDGET: u64 = 200_000;

/// Whether the schema has unions that can nest without bound: unions, and references that stay
/// (recursion).
pub(crate) fn can_explode(parameters: &Value) -> bool {
    let text = parameters.to_string();
    text.contains("\"$ref\"") && (text.contains("\"anyOf\"") || text.contains("\"oneOf\""))
}

/// Whether checking `arguments` against `parameters` visits at most [`BUDGET`] schema nodes,
/// counting every branch of every union as tried.
pub(crate) fn within_budget(parameters: &Value, arguments: &Map<String, Value>) -> bool {
    let mut counter = Counter {
        root: parameters,
        memo: HashMap::new(),
        depth: 0,
    };
    let instance = Value::Object(arguments.clone());
    counter.work(&instance, parameters) <= BUDGET
}

/// Schema nodes the error report may visit, every path through the unions counted: a few
/// milliseconds and a few megabytes of errors.
pub(crate) const ERROR_BUDGET: u64 = 4_000;

/// Whether the validator's error report on `instance` visits at most `limit` schema nodes,
/// counting every path through the unions (nothing cached, as the report does it). The count
/// itself stops past `limit`: it costs at most that many steps.
pub(crate) fn error_report_within(parameters: &Value, instance: &Value, limit: u64) -> bool {
    let mut paths = Paths {
        root: parameters,
        left: limit,
        depth: 0,
    };
    paths.walk(instance, parameters)
}

/// A count of the nodes an uncached walk visits, down from `left`.
struct Paths<'a> {
    root: &'a Value,
    left: u64,
    depth: usize,
}

impl<'a> Paths<'a> {
    /// Walks `value` against `schema`; `false` once the count runs out.
    fn walk(&mut self, value: &Value, schema: &'a Value) -> bool {
        // The same guard as `Counter::work`: a `$ref` chain cannot loop.
        if self.left == 0 || self.depth > 512 {
            return false;
        }
        self.left -= 1;
        let Value::Object(keywords) = schema else {
            return true;
        };
        self.depth += 1;
        let within = self.keywords(value, keywords);
        self.depth -= 1;
        within
    }

    fn keywords(&mut self, value: &Value, keywords: &'a Map<String, Value>) -> bool {
        if let Some(target) = keywords.get("$ref").and_then(Value::as_str)
            && let Some(resolved) = resolve_ref(target, self.root)
            && !self.walk(value, resolved)
        {
            return false;
        }
        for union in ["anyOf", "oneOf", "allOf"] {
            let branches = keywords.get(union).and_then(Value::as_array);
            for branch in branches.into_iter().flatten() {
                if !self.walk(value, branch) {
                    return false;
                }
            }
        }
        match value {
            Value::Object(object) => {
                let properties = keywords.get("properties").and_then(Value::as_object);
                let additional = keywords.get("additionalProperties");
                object.iter().all(|(name, child)| {
                    match properties.and_then(|p| p.get(name)).or(additional) {
                        Some(schema) => self.walk(child, schema),
                        None => true,
                    }
                })
            }
            Value::Array(items) => {
                let prefix = keywords.get("prefixItems").and_then(Value::as_array);
                let rest = keywords.get("items");
                items.iter().enumerate().all(|(index, item)| {
                    match prefix.and_then(|p| p.get(index)).or(rest) {
                        Some(schema) => self.walk(item, schema),
                        None => true,
                    }
                })
            }
            _ => true,
        }
    }
}

struct Counter<'a> {
    root: &'a Value,
    /// Work per (value, schema) pair, by address: each pair is counted once, which keeps the
    /// count polynomial while the work it counts is not.
    memo: HashMap<(usize, usize), u64>,
    depth: usize,
}

impl<'a> Counter<'a> {
    fn work(&mut self, value: &Value, schema: &'a Value) -> u64 {
        let key = (
            value as *const Value as usize,
            schema as *const Value as usize,
        );
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        // Arguments are at most `max_depth` deep and schemas are finite, so this recursion is
        // bounded; the guard only keeps a pathological `$ref` chain from looping.
        if self.depth > 512 {
            return BUDGET + 1;
        }
        self.depth += 1;
        let total = self.visit(value, schema);
        self.depth -= 1;
        self.memo.insert(key, total);
        total
    }

    fn visit(&mut self, value: &Value, schema: &'a Value) -> u64 {
        let Value::Object(keywords) = schema else {
            return 1;
        };
        let mut total: u64 = 1;
        if let Some(target) = keywords.get("$ref").and_then(Value::as_str)
            && let Some(resolved) = resolve_ref(target, self.root)
        {
            total = total.saturating_add(self.work(value, resolved));
        }
        for union in ["anyOf", "oneOf", "allOf"] {
            for branch in keywords
                .get(union)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                total = total.saturating_add(self.work(value, branch));
            }
        }
        total.saturating_add(self.children(value, keywords))
    }

    fn children(&mut self, value: &Value, keywords: &'a Map<String, Value>) -> u64 {
        let mut total: u64 = 0;
        match value {
            Value::Object(object) => {
                let properties = keywords.get("properties").and_then(Value::as_object);
                let additional = keywords.get("additionalProperties");
                for (name, child) in object {
                    if let Some(schema) = properties.and_then(|p| p.get(name)).or(additional) {
                        total = total.saturating_add(self.work(child, schema));
                    }
                }
            }
            Value::Array(items) => {
                let prefix = keywords.get("prefixItems").and_then(Value::as_array);
                let rest = keywords.get("items");
                for (index, item) in items.iter().enumerate() {
                    if let Some(schema) = prefix.and_then(|p| p.get(index)).or(rest) {
                        total = total.saturating_add(self.work(item, schema));
                    }
                }
            }
            _ => {}
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A node that is one of two shapes, both with children: an untagged enum of trees.
    fn tree_schema() -> Value {
        json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"anyOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["b"]}
            ]}}
        })
    }

    fn chain(depth: usize) -> Map<String, Value> {
        let mut node = json!({"c": 0});
        for _ in 0..depth {
            node = json!({"c": 0, "children": [node]});
        }
        json!({"root": node}).as_object().unwrap().clone()
    }

    #[test]
    fn recursive_unions_are_recognised() {
        assert!(can_explode(&tree_schema()));
        assert!(!can_explode(
            &json!({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}})
        ));
    }

    #[test]
    fn shallow_trees_fit_and_deep_chains_of_alternatives_do_not() {
        let schema = tree_schema();
        assert!(within_budget(&schema, &chain(8)));
        assert!(!within_budget(&schema, &chain(30)));
    }

    #[test]
    fn the_error_report_is_counted_path_by_path() {
        let schema = tree_schema();
        let args = |depth| Value::Object(chain(depth));
        assert!(error_report_within(&schema, &args(4), ERROR_BUDGET));
        // Within the cached budget, and still twice the work per level for the report.
        assert!(within_budget(&schema, &chain(14)));
        assert!(!error_report_within(&schema, &args(14), ERROR_BUDGET));
    }

    #[test]
    fn a_wide_tree_is_not_mistaken_for_a_deep_one() {
        let leaves: Vec<Value> = (0..500).map(|a| json!({"a": a})).collect();
        let wide = json!({"root": {"a": 0, "children": leaves}});
        assert!(within_budget(&tree_schema(), wide.as_object().unwrap()));
    }
}
