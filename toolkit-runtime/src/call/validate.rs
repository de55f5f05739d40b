//! Checks a call's arguments against the tool's schema: one compiled validator per tool, and the
//! problems with a call's argument names first, with suggestions.

use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::complexity::{can_explode, within_budget};
use super::problems::{push_problems, shortened};
use super::suggest::closest;
use crate::error::ArgumentProblem;

/// The most problems one error lists.
const MAX_PROBLEMS: usize = 20;

/// A tool's compiled validator: compiled once, on the first call, and shared by every clone of
/// the proxy.
pub(crate) struct ArgumentValidator {
    validator: jsonschema::Validator,
    /// The schema, kept only when its unions can nest without bound: then the work of a check
    /// is counted before it is done (see `complexity`).
    explosive: Option<Value>,
}

impl ArgumentValidator {
    pub(crate) fn new(parameters: &Value) -> Result<Self, String> {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(parameters)
            .map(|validator| ArgumentValidator {
                validator,
                explosive: can_explode(parameters).then(|| parameters.clone()),
            })
            .map_err(|err| err.to_string())
    }

    /// Whether the work of a check is counted before it is done (the schema's unions recurse).
    pub(crate) fn is_budgeted(&self) -> bool {
        self.explosive.is_some()
    }

    /// Whether checking `arguments` takes a bounded amount of work (always, unless the schema's
    /// unions recurse).
    pub(crate) fn within_budget(&self, arguments: &Map<String, Value>) -> bool {
        match &self.explosive {
            Some(parameters) => within_budget(parameters, arguments),
            None => true,
        }
    }

    /// Whether the schema accepts `arguments` as they are (the fast path of every call).
    ///
    /// The arguments are borrowed mutably only to be validated as a JSON value without a copy:
    /// they are returned unchanged.
    pub(crate) fn accepts(&self, arguments: &mut Map<String, Value>) -> bool {
        let instance = Value::Object(std::mem::take(arguments));
        let valid = self.validator.is_valid(&instance);
        if let Value::Object(map) = instance {
            *arguments = map;
        }
        valid
    }

    /// Every problem with `arguments`: unknown and missing top-level names first (they are the
    /// most common and get the friendliest wording), then whatever the schema rejects. The
    /// arguments are returned unchanged, as with [`accepts`](Self::accepts).
    pub(crate) fn problems(
        &self,
        parameters: &Value,
        arguments: &mut Map<String, Value>,
    ) -> Vec<ArgumentProblem> {
        let instance = Value::Object(std::mem::take(arguments));
        let mut problems = self.collect_problems(parameters, &instance);
        if let Value::Object(map) = instance {
            *arguments = map;
        }
        // A model that sent thousands of wrong keys learns as much from the first few.
        if problems.len() > MAX_PROBLEMS {
            let more = problems.len() - MAX_PROBLEMS;
            problems.truncate(MAX_PROBLEMS);
            problems.push(ArgumentProblem::Invalid {
                path: "arguments".into(),
                message: format!("{more} more problems not shown"),
            });
        }
        problems
    }

    fn collect_problems(&self, parameters: &Value, instance: &Value) -> Vec<ArgumentProblem> {
        let mut problems = match instance {
            Value::Object(arguments) => name_problems(parameters, arguments),
            _ => Vec::new(),
        };
        if problems.is_empty() && self.validator.is_valid(instance) {
            return problems;
        }
        for error in self.validator.iter_errors(instance) {
            let at_root = error.instance_path().as_str().is_empty();
            match error.kind() {
                // Already reported by name_problems, with suggestions.
                ValidationErrorKind::Required { .. }
                | ValidationErrorKind::AdditionalProperties { .. }
                    if at_root => {}
                _ => push_problems(&error, parameters, &mut problems),
            }
        }
        problems
    }
}

fn name_problems(parameters: &Value, arguments: &Map<String, Value>) -> Vec<ArgumentProblem> {
    let properties = parameters.get("properties").and_then(Value::as_object);
    let known: Vec<&str> = properties
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut problems = Vec::new();
    if let Some(required) = parameters.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !arguments.contains_key(name) {
                problems.push(ArgumentProblem::Missing { name: name.into() });
            }
        }
    }
    for name in arguments.keys() {
        if !known.contains(&name.as_str()) {
            let unsent = known
                .iter()
                .copied()
                .filter(|k| !arguments.contains_key(*k));
            problems.push(ArgumentProblem::Unknown {
                name: shortened(name),
                suggestion: closest(name, unsent).map(str::to_owned),
            });
        }
    }
    // `{"txt": ...}` for a required `text`: one problem ("did you mean"), not two.
    let suggested: Vec<String> = problems
        .iter()
        .filter_map(|p| match p {
            ArgumentProblem::Unknown {
                suggestion: Some(s),
                ..
            } => Some(s.clone()),
            _ => None,
        })
        .collect();
    problems
        .retain(|p| !matches!(p, ArgumentProblem::Missing { name } if suggested.contains(name)));
    problems
}
