//! Schema errors phrased for a model: each problem at a readable path, saying what was expected
//! and what was sent, with the branch the model evidently meant when a union rejects a value.

use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use super::suggest::closest_key;
use crate::error::ArgumentProblem;

/// One schema error as problems a model can act on. A value matching no branch of a union (an
/// enum with data) is the subtle case: see [`union_problems`].
pub(crate) fn push_problems(
    error: &ValidationError<'_>,
    parameters: &Value,
    out: &mut Vec<ArgumentProblem>,
) {
    let pointer = error.instance_path().as_str();
    let context = match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            context
        }
        ValidationErrorKind::Required { property } => {
            out.push(ArgumentProblem::Invalid {
                path: readable_path(pointer),
                message: missing_field(property, error, parameters),
            });
            return;
        }
        kind => {
            out.push(ArgumentProblem::Invalid {
                path: readable_path(pointer),
                message: describe(kind, error.instance()),
            });
            return;
        }
    };
    let branches = parameters
        .pointer(error.schema_path().as_str())
        .and_then(Value::as_array);
    union_problems(
        pointer,
        error.instance(),
        context,
        branches,
        parameters,
        out,
    );
}

/// A value that matches no branch of a union, said without the branches' own errors: the forms
/// it may take, and what it is.
pub(crate) fn union_mismatch(
    pointer: &str,
    instance: &Value,
    branches: &Vec<Value>,
    parameters: &Value,
    out: &mut Vec<ArgumentProblem>,
) {
    union_problems(pointer, instance, &[], Some(branches), parameters, out);
}

/// A value that matches no branch of a union. When exactly one branch is what the model
/// evidently meant (its tag matches, its shape fits), that branch's own problems are reported,
/// each at its path: `value.args.dx: expected an integer`. Otherwise the message lists the forms
/// the value may take, so the model can pick one.
fn union_problems(
    pointer: &str,
    instance: &Value,
    context: &[Vec<ValidationError<'static>>],
    branches: Option<&Vec<Value>>,
    parameters: &Value,
    out: &mut Vec<ArgumentProblem>,
) {
    let depth = pointer_depth(pointer);
    let plausible: Vec<&Vec<ValidationError<'static>>> = context
        .iter()
        .filter(|errors| errors.iter().all(|e| !rules_out_branch(e, depth)))
        .collect();
    let fewest = plausible.iter().map(|errors| errors.len()).min();
    let mut best = plausible
        .iter()
        .filter(|errors| Some(errors.len()) == fewest);
    if let (Some(errors), None) = (best.next(), best.next()) {
        for error in errors.iter() {
            push_problems(error, parameters, out);
        }
        return;
    }
    let message = match branches {
        Some(branches) => {
            let got = match tag_of(branches).and_then(|tag| Some((tag, instance.get(tag)?))) {
                // The tag is what the model chose: show it, not just the keys.
                Some((tag, value)) => format!("an object with \"{tag}\": {value}"),
                None => describe_value(instance),
            };
            let forms: Vec<String> = branches.iter().map(form_phrase).collect();
            format!("expected one of: {}; got {got}", forms.join(", "))
        }
        None => format!(
            "{} does not match any of the allowed forms",
            describe_value(instance)
        ),
    };
    out.push(ArgumentProblem::Invalid {
        path: readable_path(pointer),
        message,
    });
}

/// Whether an error inside a union branch shows the model did not mean that branch: the wrong
/// tag (`const`/`enum`) or the wrong kind of value at the union itself or its direct fields, or
/// a key the branch does not have.
fn rules_out_branch(error: &ValidationError<'_>, union_depth: usize) -> bool {
    let depth = pointer_depth(error.instance_path().as_str());
    match error.kind() {
        ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. } => {
            depth <= union_depth + 1
        }
        ValidationErrorKind::Type { .. } | ValidationErrorKind::AdditionalProperties { .. } => {
            depth == union_depth
        }
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            depth == union_depth
        }
        _ => false,
    }
}

fn pointer_depth(pointer: &str) -> usize {
    pointer.split('/').skip(1).count()
}

/// The property holding a `const` in a union's branches: an internally or adjacently tagged
/// enum's tag.
fn tag_of(branches: &[Value]) -> Option<&str> {
    branches.iter().find_map(|branch| {
        branch
            .get("properties")?
            .as_object()?
            .iter()
            .find(|(_, schema)| schema.get("const").is_some())
            .map(|(name, _)| name.as_str())
    })
}

/// How one branch of a union reads in a list of allowed forms.
fn form_phrase(branch: &Value) -> String {
    if let Some(Value::Array(options)) = branch.get("enum") {
        let noun = if options.iter().all(Value::is_string) {
            "the string"
        } else {
            "the value"
        };
        return format!("{noun} {}", list_values(&Value::Array(options.clone())));
    }
    if let Some(value) = branch.get("const") {
        return format!("the value {value}");
    }
    let properties = branch.get("properties").and_then(Value::as_object);
    if let Some((tag, value)) = properties.and_then(|properties| {
        properties
            .iter()
            .find_map(|(name, schema)| schema.get("const").map(|value| (name, value)))
    }) {
        return format!("an object with \"{tag}\": {value}");
    }
    let required = branch.get("required").and_then(Value::as_array);
    if let (Some([Value::String(key)]), Some(Value::Bool(false))) = (
        required.map(Vec::as_slice),
        branch.get("additionalProperties"),
    ) {
        return format!("an object with the single key \"{key}\"");
    }
    match branch.get("type") {
        Some(Value::String(t)) => type_phrase(t).to_owned(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .map(type_phrase)
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "another form".to_owned(),
    }
}

/// `missing required field "fullName"`, with the near-miss the model sent instead, if any: a
/// field under another case style (`full_name`) is silently ignored by serde otherwise.
fn missing_field(property: &Value, error: &ValidationError<'_>, parameters: &Value) -> String {
    let Some(name) = property.as_str() else {
        return format!("missing required field {property}");
    };
    // The schema path ends in `/required`; its parent is the object schema.
    let schema_path = error.schema_path().as_str();
    let object_schema = schema_path
        .strip_suffix("/required")
        .and_then(|parent| parameters.pointer(parent));
    let known = object_schema
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object);
    let sent: Vec<&str> = error
        .instance()
        .as_object()
        .map(|object| object.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let unknown: Vec<&str> = sent
        .into_iter()
        .filter(|key| known.is_none_or(|known| !known.contains_key(*key)))
        .collect();
    match closest_key(name, &unknown) {
        Some(key) => {
            format!("missing required field \"{name}\" (got \"{key}\": did you mean \"{name}\"?)")
        }
        None => format!("missing required field \"{name}\""),
    }
}

/// `/items/2/name` -> `items[2].name`.
pub(crate) fn readable_path(pointer: &str) -> String {
    let mut path = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            path.push('[');
            path.push_str(&segment);
            path.push(']');
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&segment);
        }
    }
    if path.is_empty() {
        "arguments".into()
    } else {
        path
    }
}

fn describe(kind: &ValidationErrorKind, instance: &Value) -> String {
    let got = describe_value(instance);
    match kind {
        ValidationErrorKind::Type { kind } => format!("expected {}, got {got}", types_phrase(kind)),
        ValidationErrorKind::Enum { options } => {
            format!("expected one of {}, got {got}", list_values(options))
        }
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {expected_value}, got {got}")
        }
        ValidationErrorKind::Minimum { limit } => format!("must be at least {limit}, got {got}"),
        ValidationErrorKind::Maximum { limit } => format!("must be at most {limit}, got {got}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("must be greater than {limit}, got {got}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("must be less than {limit}, got {got}")
        }
        ValidationErrorKind::MinLength { limit } => {
            format!(
                "must be at least {limit} character{} long, got {got}",
                plural(*limit)
            )
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!(
                "must be at most {limit} character{} long, got {got}",
                plural(*limit)
            )
        }
        ValidationErrorKind::MinItems { limit } => {
            format!(
                "must have at least {limit} item{}, got {got}",
                plural(*limit)
            )
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!(
                "must have at most {limit} item{}, got {got}",
                plural(*limit)
            )
        }
        ValidationErrorKind::UniqueItems => "items must be unique".into(),
        ValidationErrorKind::Pattern { pattern } => {
            format!("must match the pattern {pattern:?}, got {got}")
        }
        ValidationErrorKind::Format { format } => format!("must be a valid {format}, got {got}"),
        ValidationErrorKind::Required { property } => {
            format!("missing required field {property}")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => unknown_fields(unexpected),
        ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => {
            format!("{got} does not match any of the allowed forms")
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            format!("{got} matches more than one of the allowed forms")
        }
        ValidationErrorKind::FalseSchema => "no value is allowed here".into(),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            format!("must be a multiple of {multiple_of}, got {got}")
        }
        _ => kind_fallback(kind, instance),
    }
}

/// `a string or null`: the expected types, null last (it reads better than the validator's order).
fn types_phrase(kind: &TypeKind) -> String {
    let expected: Vec<&str> = match kind {
        TypeKind::Single(t) => vec![t.as_str()],
        TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
    };
    let (null, mut expected): (Vec<&str>, Vec<&str>) =
        expected.into_iter().partition(|t| *t == "null");
    expected.extend(null);
    let expected: Vec<&str> = expected.into_iter().map(type_phrase).collect();
    expected.join(" or ")
}

fn unknown_fields(unexpected: &[String]) -> String {
    let names: Vec<String> = unexpected.iter().map(|n| format!("{n:?}")).collect();
    format!(
        "unknown field{} {}",
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    )
}

fn kind_fallback(kind: &ValidationErrorKind, instance: &Value) -> String {
    format!(
        "{} does not satisfy \"{}\"",
        describe_value(instance),
        kind.keyword()
    )
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn type_phrase(json_type: &str) -> &'static str {
    match json_type {
        "string" => "a string",
        "integer" => "an integer",
        "number" => "a number",
        "boolean" => "a boolean (true or false)",
        "array" => "an array",
        "object" => "an object",
        "null" => "null",
        _ => "another type",
    }
}

fn list_values(options: &Value) -> String {
    match options {
        Value::Array(values) => values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

/// How a value reads in an error message: short, and with its JSON type.
pub(crate) fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > SHOWN_CHARS => {
            format!("the string \"{}\"", shortened(s))
        }
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(items) => format!(
            "an array of {} item{}",
            items.len(),
            plural(items.len() as u64)
        ),
        Value::Object(object) if object.is_empty() => "an empty object".into(),
        Value::Object(object) => {
            const KEYS: usize = 3;
            let mut keys: Vec<String> =
                object.keys().take(KEYS).map(|k| format!("{k:?}")).collect();
            if object.len() > KEYS {
                keys.push("...".into());
            }
            let noun = if object.len() == 1 { "key" } else { "keys" };
            format!("an object with the {noun} {}", keys.join(", "))
        }
    }
}

/// How much of a string a model is shown back.
const SHOWN_CHARS: usize = 60;

/// `text`, cut after [`SHOWN_CHARS`] characters with `...`: what the model sent, echoed back
/// without repeating a megabyte of it.
pub(crate) fn shortened(text: &str) -> String {
    if text.chars().count() <= SHOWN_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(SHOWN_CHARS).collect();
    format!("{head}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_field_access() {
        assert_eq!(readable_path(""), "arguments");
        assert_eq!(readable_path("/text"), "text");
        assert_eq!(readable_path("/items/2/name"), "items[2].name");
        assert_eq!(readable_path("/a~1b"), "a/b");
    }
}
