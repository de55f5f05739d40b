//! Checks a call's arguments against the tool's schema: one compiled validator per tool, and the
//! problems with a call's argument names first, with suggestions.

use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

use super::complexity::{ERROR_BUDGET, can_explode, error_report_within, within_budget};
use super::problems::{push_problems, readable_path, shortened, union_mismatch};
use super::suggest::closest;
use crate::error::ArgumentProblem;
use crate::schema::resolve_ref;

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
        if let Some(parameters) = &self.explosive
            && !error_report_within(parameters, instance, ERROR_BUDGET)
        {
            problems.extend(shallow_problems(parameters, instance));
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

/// What is wrong with arguments whose full error report would cost too much (see
/// `complexity`): each top-level argument its own schema rejects, checked alone with the
/// cached yes-or-no answer, and, when that schema is a union, the forms it allows.
fn shallow_problems(parameters: &Value, instance: &Value) -> Vec<ArgumentProblem> {
    let properties = parameters.get("properties").and_then(Value::as_object);
    let mut problems = Vec::new();
    for (name, value) in instance.as_object().into_iter().flatten() {
        let Some(schema) = properties.and_then(|p| p.get(name)) else {
            continue;
        };
        if argument_accepted(parameters, schema, value) {
            continue;
        }
        let pointer = format!("/{}", name.replace('~', "~0").replace('/', "~1"));
        let union = resolved(parameters, schema).and_then(|schema| {
            schema
                .get("anyOf")
                .or_else(|| schema.get("oneOf"))
                .and_then(Value::as_array)
        });
        match union {
            Some(branches) => union_mismatch(&pointer, value, branches, parameters, &mut problems),
            None => problems.push(ArgumentProblem::Invalid {
                path: readable_path(&pointer),
                message: TOO_NESTED_TO_PINPOINT.into(),
            }),
        }
    }
    if problems.is_empty() {
        problems.push(ArgumentProblem::Invalid {
            path: "arguments".into(),
            message: TOO_NESTED_TO_PINPOINT.into(),
        });
    }
    problems
}

const TOO_NESTED_TO_PINPOINT: &str = "does not match the schema, and alternatives nest too deeply \
                                      in it to say where; compare it with the schema";

/// Whether one argument's own schema (with the tool's definitions) accepts its value; `true`
/// when that schema cannot be compiled alone, so that only what is known wrong is reported.
fn argument_accepted(parameters: &Value, schema: &Value, value: &Value) -> bool {
    let mut alone = match schema {
        Value::Object(keywords) => keywords.clone(),
        other => return other.as_bool().unwrap_or(true),
    };
    for defs in ["$defs", "definitions"] {
        if let Some(found) = parameters.get(defs) {
            alone.entry(defs).or_insert_with(|| found.clone());
        }
    }
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&Value::Object(alone))
        .map_or(true, |validator| validator.is_valid(value))
}

/// `schema` with its `$ref`s followed (a few, not a loop).
fn resolved<'a>(parameters: &'a Value, mut schema: &'a Value) -> Option<&'a Value> {
    for _ in 0..16 {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(target) => schema = resolve_ref(target, parameters)?,
            None => return Some(schema),
        }
    }
    None
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
