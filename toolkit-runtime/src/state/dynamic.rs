//! `DynamicState`: state whose keys are declared at run time, for tools built at run time and
//! remote MCP tools.

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

    fn find(&self, name: &str) -> Result<&StateKey, StateError> {
        self.keys
            .iter()
            .find(|key| key.name == name)
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
}

impl DynamicState {
    /// Empty state over `schema`.
    pub fn new(schema: StateSchema) -> Self {
        DynamicState {
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
            check(state.schema.find(&key)?, &value)?;
            state.values.insert(key, value);
        }
        Ok(state)
    }

    /// The schema the state was made with.
    pub fn schema(&self) -> &StateSchema {
        &self.schema
    }
}

/// Whether `value` fits the key's JSON Schema.
fn check(key: &StateKey, value: &Value) -> Result<(), StateError> {
    let validator = jsonschema::validator_for(&key.schema).map_err(|err| StateError::Mismatch {
        key: key.name.clone(),
        message: format!("the key's schema does not compile: {err}"),
    })?;
    match validator.iter_errors(value).next() {
        None => Ok(()),
        Some(error) => Err(StateError::Mismatch {
            key: key.name.clone(),
            message: error.to_string(),
        }),
    }
}

impl AgentState for DynamicState {
    fn read(&self, key: &str) -> Result<Option<Value>, StateError> {
        self.schema.find(key)?;
        Ok(self.values.get(key).filter(|v| !v.is_null()).cloned())
    }

    fn merge(&mut self, key: &str, value: Value) -> Result<(), StateError> {
        let declared = self.schema.find(key)?;
        let mut merged = self.values.get(key).cloned().unwrap_or(Value::Null);
        declared.rule.merge(key, &mut merged, value)?;
        check(declared, &merged)?;
        self.values.insert(key.to_owned(), merged);
        Ok(())
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
