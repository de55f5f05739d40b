//! `StateWiring`: which parameters of a tool are filled from state, and where its result goes.

use serde_json::{Map, Value};

use super::{AgentState, StateError};
use crate::error::ToolError;

/// Where a tool's result is written: the whole result, or one top-level field of it, into a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateOutput {
    /// The top-level field of the result to write; `None` for the whole result.
    pub field: Option<String>,
    /// The state key written to, under its merge rule.
    pub key: String,
}

/// How one tool is wired to state: the parameters it reads from state, the keys its result is
/// merged into, and what the model reads of that result.
///
/// Parameters filled from state are hidden from every schema the model sees and filled before
/// validation; only the mapped keys are read. A model that sends such an argument anyway gets
/// [`ToolError::StateArgumentSent`].
///
/// ```
/// use toolkit::state::StateWiring;
///
/// let wiring = StateWiring::new()
///     .input("repository")                  // parameter `repository` from key `repository`
///     .input_from("user", "owner")          // parameter `owner` from key `user`
///     .output("documents")                  // the whole result merged into `documents`
///     .output_field("best", "best_score")   // the result's `best` field into `best_score`
///     .output_to_string("summary");         // the model reads the `summary` field
/// assert_eq!(wiring.reads().collect::<Vec<_>>(), ["repository", "user"]);
/// assert_eq!(wiring.writes().collect::<Vec<_>>(), ["documents", "best_score"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateWiring {
    inputs: Vec<(String, String)>,
    outputs: Vec<StateOutput>,
    shown: Option<Shown>,
}

/// What the model is shown of a result, when not the whole of it.
#[derive(Debug, Clone)]
enum Shown {
    /// One top-level field.
    Field(String),
    /// What a function makes of the result.
    Format(fn(&Value) -> Value),
}

impl PartialEq for Shown {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Shown::Field(a), Shown::Field(b)) => a == b,
            (Shown::Format(a), Shown::Format(b)) => std::ptr::fn_addr_eq(*a, *b),
            _ => false,
        }
    }
}

impl Eq for Shown {}

impl StateWiring {
    /// Wiring that reads and writes nothing.
    pub fn new() -> Self {
        StateWiring::default()
    }

    /// Fills the parameter `name` from the state key of the same name.
    pub fn input(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.input_from(name.clone(), name)
    }

    /// Fills the parameter `parameter` from the state key `key`.
    pub fn input_from(mut self, key: impl Into<String>, parameter: impl Into<String>) -> Self {
        self.inputs.push((key.into(), parameter.into()));
        self
    }

    /// Merges the whole result into `key`.
    pub fn output(mut self, key: impl Into<String>) -> Self {
        self.outputs.push(StateOutput {
            field: None,
            key: key.into(),
        });
        self
    }

    /// Merges the result's top-level `field` into `key`.
    pub fn output_field(mut self, field: impl Into<String>, key: impl Into<String>) -> Self {
        self.outputs.push(StateOutput {
            field: Some(field.into()),
            key: key.into(),
        });
        self
    }

    /// Shows the model only the result's top-level `field` (by default, the whole result).
    pub fn output_to_string(mut self, field: impl Into<String>) -> Self {
        self.shown = Some(Shown::Field(field.into()));
        self
    }

    /// Shows the model what `format` makes of the result; the whole result is still what is
    /// merged into state.
    ///
    /// ```
    /// use toolkit::state::StateWiring;
    /// use serde_json::{Value, json};
    ///
    /// fn count(result: &Value) -> Value {
    ///     json!(format!("{} documents", result.as_array().map_or(0, Vec::len)))
    /// }
    /// let wiring = StateWiring::new().output("documents").output_to_string_with(count);
    /// # let _ = wiring;
    /// ```
    pub fn output_to_string_with(mut self, format: fn(&Value) -> Value) -> Self {
        self.shown = Some(Shown::Format(format));
        self
    }

    /// The state keys read, in the order given.
    pub fn reads(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(|(key, _)| key.as_str())
    }

    /// The state keys written, in the order given.
    pub fn writes(&self) -> impl Iterator<Item = &str> {
        self.outputs.iter().map(|output| output.key.as_str())
    }

    /// The parameters filled from state.
    pub fn parameters(&self) -> impl Iterator<Item = &str> {
        self.inputs.iter().map(|(_, parameter)| parameter.as_str())
    }

    /// `parameters` without the state-filled ones: what the model is shown.
    pub(crate) fn hide(&self, parameters: &Value) -> Value {
        let mut hidden = parameters.clone();
        if let Some(properties) = hidden.get_mut("properties").and_then(Value::as_object_mut) {
            for parameter in self.parameters() {
                properties.remove(parameter);
            }
        }
        if let Some(required) = hidden.get_mut("required").and_then(Value::as_array_mut) {
            required.retain(|name| !self.parameters().any(|p| Some(p) == name.as_str()));
        }
        hidden
    }

    /// Fills the state-filled parameters of `args` from `state`; `parameters` is the tool's
    /// full schema (an absent value for a required parameter is an error naming the key).
    pub(crate) fn fill(
        &self,
        tool: &str,
        parameters: &Value,
        state: &dyn AgentState,
        args: &mut Map<String, Value>,
    ) -> Result<(), ToolError> {
        for (key, parameter) in &self.inputs {
            if args.contains_key(parameter) {
                return Err(ToolError::StateArgumentSent {
                    tool: tool.into(),
                    parameter: parameter.clone(),
                });
            }
            match state.read(key).map_err(|err| state_error(tool, err))? {
                Some(value) => {
                    args.insert(parameter.clone(), value);
                }
                None if is_required(parameters, parameter) => {
                    return Err(ToolError::StateValueMissing {
                        tool: tool.into(),
                        key: key.clone(),
                    });
                }
                None => {}
            }
        }
        Ok(())
    }

    /// Checks that each output can be taken from `result`, then merges them into `state` in order.
    pub(crate) fn write(
        &self,
        tool: &str,
        result: &Value,
        state: &mut dyn AgentState,
    ) -> Result<(), ToolError> {
        let mut values = Vec::with_capacity(self.outputs.len());
        for output in &self.outputs {
            let value = match &output.field {
                None => result.clone(),
                Some(field) => result.get(field).cloned().ok_or_else(|| ToolError::State {
                    tool: tool.into(),
                    message: format!(
                        "the result has no field \"{field}\" for state key \"{}\"",
                        output.key
                    ),
                })?,
            };
            values.push((output.key.as_str(), value));
        }
        // One key's merge is all or nothing by itself; several are checked first, so that a
        // value that does not fit leaves the keys before it untouched too.
        if values.len() > 1 {
            for (key, value) in &values {
                state
                    .accepts(key, value)
                    .map_err(|err| state_error(tool, err))?;
            }
        }
        for (key, value) in values {
            state
                .merge(key, value)
                .map_err(|err| state_error(tool, err))?;
        }
        Ok(())
    }

    /// What the model is shown of `result`.
    pub(crate) fn shown(&self, result: Value) -> Value {
        match (&self.shown, result) {
            (Some(Shown::Field(field)), Value::Object(mut map)) if map.contains_key(field) => {
                map.remove(field).unwrap_or(Value::Null)
            }
            (Some(Shown::Format(format)), result) => format(&result),
            (_, result) => result,
        }
    }
}

fn is_required(parameters: &Value, parameter: &str) -> bool {
    parameters
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| required.iter().any(|name| name == parameter))
}

fn state_error(tool: &str, err: StateError) -> ToolError {
    ToolError::State {
        tool: tool.into(),
        message: err.to_string(),
    }
}
