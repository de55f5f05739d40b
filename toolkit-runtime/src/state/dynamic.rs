//! `DynamicState`: state whose keys are declared at run time, for tools built at run time and
//! remote MCP tools.

use std::sync::{Arc, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::{AgentState, MergeRule, StateError, StateKey, undeclared};

/// The declared keys of a [`DynamicState`], each with a JSON Schema and a merge rule.
///
/// ```
/// use toolkit::state::{MergeRule, StateSchema};
/// use serde_json::json;
///
/// let schema = StateSchema::new()
///     .key("documents", json!({"type": "array"}))
///     .key_with_rule("hits", json!({"type": "array"}), MergeRule::Replace);
/// assert_eq!(schema.keys()[0].rule, MergeRule::Lists);
/// assert_eq!(schema.keys()[1].rule, MergeRule::Replace);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StateSchema {
    keys: Vec<StateKey>,
}

impl StateSchema {
    /// An empty schema.
    pub fn new() -> Self {
        StateSchema::default()
    }

    /// Declares `name` with its JSON Schema and the default rule for it
    /// ([`MergeRule::for_schema`]).
    pub fn key(self, name: impl Into<String>, schema: Value) -> Self {
        let rule = MergeRule::for_schema(&schema);
        self.key_with_rule(name, schema, rule)
    }

    /// Declares `name` with its JSON Schema and merge rule (a later declaration replaces it).
    pub fn key_with_rule(
        mut self,
        name: impl Into<String>,
        schema: Value,
        rule: MergeRule,
    ) -> Self {
        let name = name.into();
        self.keys.retain(|key| key.name != name);
        self.keys.push(StateKey { name, schema, rule });
        self
    }

    /// The declared keys, in declaration order.
    pub fn keys(&self) -> &[StateKey] {
        &self.keys
    }

    fn find(&self, name: &str) -> Result<(usize, &StateKey), StateError> {
        self.keys
            .iter()
            .enumerate()
            .find(|(_, key)| key.name == name)
            .ok_or_else(|| undeclared(name, &self.keys))
    }
}

/// State with keys declared at run time: values are JSON, checked against each key's schema.
///
/// It serialises as its values (a JSON object); [`restore`](Self::restore) reads that back
/// under a schema, so a run can be saved and resumed.
///
/// ```
/// use toolkit::state::{AgentState, DynamicState, StateSchema};
/// use serde_json::json;
///
/// let schema = StateSchema::new().key("repository", json!({"type": "string"}));
/// let mut state = DynamicState::new(schema.clone());
/// let err = state.merge("repo", json!("x")).unwrap_err();
/// assert_eq!(err.to_string(), r#"state has no key "repo"; declared keys: repository"#);
/// state.merge("repository", json!("toolkit")).unwrap();
/// let saved = serde_json::to_value(&state).unwrap();
/// assert_eq!(DynamicState::restore(schema, saved).unwrap(), state);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicState {
    schema: StateSchema,
    values: Map<String, Value>,
    checkers: Checkers,
}

/// Each key's compiled schema, compiled on its first write and shared by clones.
#[derive(Clone)]
struct Checkers(Arc<[OnceLock<Result<jsonschema::Validator, String>>]>);

impl Checkers {
    fn new(count: usize) -> Self {
        Checkers((0..count).map(|_| OnceLock::new()).collect())
    }

    /// Whether `value` fits key number `index` (declared as `key`).
    fn check(&self, index: usize, key: &StateKey, value: &Value) -> Result<(), StateError> {
        let mismatch = |message: String| StateError::Mismatch {
            key: key.name.clone(),
            message,
        };
        let compiled = self.0[index].get_or_init(|| {
            jsonschema::validator_for(&key.schema)
                .map_err(|err| format!("the key's schema does not compile: {err}"))
        });
        let validator = compiled
            .as_ref()
            .map_err(|message| mismatch(message.clone()))?;
        match validator.iter_errors(value).next() {
            None => Ok(()),
            Some(error) => Err(mismatch(error.to_string())),
        }
    }
}

/// A cache: no part of what a state is.
impl PartialEq for Checkers {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Checkers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Checkers")
    }
}

impl DynamicState {
    /// Empty state over `schema`.
    pub fn new(schema: StateSchema) -> Self {
        DynamicState {
            checkers: Checkers::new(schema.keys.len()),
            schema,
            values: Map::new(),
        }
    }

    /// State over `schema` with saved values (as [`Serialize`] wrote them), each checked.
    pub fn restore(schema: StateSchema, saved: Value) -> Result<Self, StateError> {
        let mut state = DynamicState::new(schema);
        let Value::Object(values) = saved else {
            return Err(StateError::Mismatch {
                key: String::new(),
                message: "saved state must be a JSON object".into(),
            });
        };
        for (key, value) in values {
            let (index, declared) = state.schema.find(&key)?;
            state.checkers.check(index, declared, &value)?;
            state.values.insert(key, value);
        }
        Ok(state)
    }

    /// The schema the state was made with.
    pub fn schema(&self) -> &StateSchema {
        &self.schema
    }
}

impl AgentState for DynamicState {
    fn read(&self, key: &str) -> Result<Option<Value>, StateError> {
        self.schema.find(key)?;
        Ok(self.values.get(key).filter(|v| !v.is_null()).cloned())
    }

    fn merge(&mut self, key: &str, value: Value) -> Result<(), StateError> {
        let (index, declared) = self.schema.find(key)?;
        let mut merged = self.values.get(key).cloned().unwrap_or(Value::Null);
        declared.rule.merge(key, &mut merged, value)?;
        self.checkers.check(index, declared, &merged)?;
        self.values.insert(key.to_owned(), merged);
        Ok(())
    }

    fn accepts(&self, key: &str, value: &Value) -> Result<(), StateError> {
        let (index, declared) = self.schema.find(key)?;
        let mut merged = self.values.get(key).cloned().unwrap_or(Value::Null);
        declared.rule.merge(key, &mut merged, value.clone())?;
        self.checkers.check(index, declared, &merged)
    }

    fn keys(&self) -> Vec<StateKey> {
        self.schema.keys.clone()
    }

    fn to_json(&self) -> Value {
        Value::Object(self.values.clone())
    }
}

impl Serialize for DynamicState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.values.serialize(serializer)
    }
}
