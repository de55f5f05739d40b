//! Agent state: keys that tools read their hidden parameters from and write their results to.
//!
//! - [`AgentState`]: what any state offers (read a key, merge a value into a key, its keys);
//! - [`MergeRule`]: how a written value combines with the current one;
//! - [`DynamicState`]: state whose keys are declared at run time, in a [`StateSchema`];
//! - [`StateWiring`]: which parameters of a tool come from state, which keys its result goes to.
//!
//! A [`ToolProxy`](crate::ToolProxy) gets its wiring with
//! [`with_state`](crate::ToolProxy::with_state), and a [`Toolbox`](crate::Toolbox) runs it with
//! [`call_with_state`](crate::Toolbox::call_with_state) and its batch and async forms.

mod dynamic;
mod merge;
// What generated code uses to read and write a typed state: reachable only through `__private`
// (a `pub mod` here leaked it through the facade's `state::*`).
pub(crate) mod typed;
mod wiring;

use std::any::Any;

use serde_json::Value;

pub use dynamic::{DynamicState, StateSchema};
pub use merge::{MergeFn, MergeRule, merge_into, merge_list_into};
pub use wiring::{StateOutput, StateWiring};

/// Why state could not be read or written, phrased for the model or user that reads it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// A key the state does not declare.
    #[error("state has no key \"{key}\"; declared keys: {}", declared.join(", "))]
    UndeclaredKey {
        /// The key asked for.
        key: String,
        /// The keys the state declares.
        declared: Vec<String>,
    },
    /// The value does not fit the key's type or schema.
    #[error("the value for state key \"{key}\" does not fit it: {message}")]
    Mismatch {
        /// The key written to.
        key: String,
        /// What does not fit.
        message: String,
    },
    /// A custom merge refused the value.
    #[error("the value for state key \"{key}\" could not be merged: {message}")]
    Merge {
        /// The key written to.
        key: String,
        /// The custom merge's reason.
        message: String,
    },
}

/// One key of a state: its name, the JSON Schema of its value and its merge rule.
#[derive(Debug, Clone, PartialEq)]
pub struct StateKey {
    /// The key's name.
    pub name: String,
    /// The JSON Schema of its value.
    pub schema: Value,
    /// How values written to it merge.
    pub rule: MergeRule,
}

/// State that tools read from and write to; object safe, so a toolbox takes `&mut dyn AgentState`.
///
/// Implemented by [`DynamicState`]; a typed struct implements it by matching on the key (each
/// field read with `serde_json::to_value`, written with [`merge_into`]). A state is `'static`
/// (`Any`): the typed path with state finds a `#[derive(AgentState)]` type behind
/// `&mut dyn AgentState` by downcasting, and reads its fields through a hidden trait the derive
/// implements, so nothing here exists only for generated code.
///
/// ```
/// use toolkit::state::{AgentState, DynamicState, StateSchema};
/// use serde_json::json;
///
/// let schema = StateSchema::new().key("docs", json!({"type": "array"}));
/// let mut state = DynamicState::new(schema);
/// state.merge("docs", json!("first")).unwrap();
/// assert_eq!(state.read("docs").unwrap(), Some(json!(["first"])));
/// assert_eq!(state.to_json(), json!({"docs": ["first"]}));
/// ```
pub trait AgentState: Any + Send + Sync {
    /// The value of `key` as JSON, `None` when it has none yet; an error for an undeclared key.
    fn read(&self, key: &str) -> Result<Option<Value>, StateError>;

    /// Merges `value` into `key` under the key's rule; on error the state is unchanged.
    fn merge(&mut self, key: &str, value: Value) -> Result<(), StateError>;

    /// Whether [`merge`](Self::merge) of `value` into `key` would succeed, without merging.
    ///
    /// A tool that writes several keys has each of its values checked first, so that a value
    /// that does not fit changes nothing at all. The default accepts everything (a hand-written
    /// state then merges key by key, and a refusal leaves the keys merged before it);
    /// `#[derive(AgentState)]` and [`DynamicState`] answer exactly.
    fn accepts(&self, key: &str, value: &Value) -> Result<(), StateError> {
        let _ = (key, value);
        Ok(())
    }

    /// The declared keys, in declaration order.
    fn keys(&self) -> Vec<StateKey>;

    /// The whole state as a JSON object, for hooks and user interfaces.
    fn to_json(&self) -> Value;
}

/// The error for an undeclared `key`, naming the declared ones.
pub(crate) fn undeclared(key: &str, keys: &[StateKey]) -> StateError {
    StateError::UndeclaredKey {
        key: key.into(),
        declared: keys.iter().map(|k| k.name.clone()).collect(),
    }
}
