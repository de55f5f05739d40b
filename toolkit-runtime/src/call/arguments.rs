//! Typed arguments out of a validated JSON object: what the full pipeline fills a tool's
//! parameters from when the typed fast path declines.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::problems::{describe_value, readable_path};
use crate::error::ArgumentProblem;
use crate::schema::ParamSpec;

/// The named arguments of one call, already checked against the tool's schema.
///
/// The full pipeline hands them to a tool's body: a `#[tool]`'s readers take each parameter out
/// (`take_param`); a value that still fails to deserialize (a constraint the schema could not
/// express) becomes an [`ArgumentProblem`] naming it. A tool built at run time gets the map.
/// Reachable only through `__private`, for the handler types generated code names.
#[derive(Debug, Default, Clone)]
pub struct Arguments {
    values: Map<String, Value>,
}

impl Arguments {
    /// Wraps a JSON object's fields.
    pub(crate) fn new(values: Map<String, Value>) -> Self {
        Arguments { values }
    }

    /// Takes the parameter `param`: read when sent, missing when required, else `None` (the
    /// tool's default, or `None` itself, stands in). The same outcome, for each kind of
    /// parameter, as the `take*` calls generated code once made for it.
    pub(crate) fn take_param<T: DeserializeOwned>(
        &mut self,
        param: &ParamSpec,
    ) -> Result<Option<T>, ArgumentProblem> {
        match self.values.remove(param.name) {
            Some(value) => deserialize(param.name, value).map(Some),
            None if param.required => Err(ArgumentProblem::Missing {
                name: param.name.into(),
            }),
            None => Ok(None),
        }
    }

    /// The raw arguments, for tools built at run time from a closure.
    pub(crate) fn into_map(self) -> Map<String, Value> {
        self.values
    }
}

fn deserialize<T: DeserializeOwned>(name: &str, value: Value) -> Result<T, ArgumentProblem> {
    let inexact = inexact_integer(&value);
    // JSON Schema counts `5.0` as an integer, so it passes validation even in strict mode, but
    // serde refuses it for an integer type. Written as integers, whole floats read the same to
    // every numeric type: on failure, try once more that way. (Only then: a `Value` parameter
    // receives exactly what was sent.)
    let mut retry = has_whole_float(&value).then(|| value.clone());
    let err = match T::deserialize(value) {
        Ok(typed) => return Ok(typed),
        Err(err) => err,
    };
    if let Some(whole) = &mut retry {
        integers_for_whole_floats(whole);
        if let Some(Ok(typed)) = retry.map(T::deserialize) {
            return Ok(typed);
        }
    }
    Err(err).map_err(|err: serde_json::Error| ArgumentProblem::Invalid {
        path: readable_path(&format!("/{name}")),
        message: match inexact {
            Some(number) => format!(
                "expected an integer, got {}, which is beyond the integers a JSON number \
                 carries exactly",
                describe_value(&number)
            ),
            None => err.to_string(),
        },
    })
}

/// A float that is exactly a whole number (within 2^53, where floats are exact).
fn exact_whole(value: &Value) -> Option<i64> {
    let float = value.as_number().filter(|n| n.is_f64())?.as_f64()?;
    (float.fract() == 0.0 && float.abs() <= 9_007_199_254_740_992.0).then_some(float as i64)
}

fn has_whole_float(value: &Value) -> bool {
    match value {
        Value::Number(_) => exact_whole(value).is_some(),
        Value::Array(items) => items.iter().any(has_whole_float),
        Value::Object(map) => map.values().any(has_whole_float),
        _ => false,
    }
}

/// Rewrites every exactly whole float as an integer.
fn integers_for_whole_floats(value: &mut Value) {
    match value {
        Value::Number(_) => {
            if let Some(whole) = exact_whole(value) {
                *value = Value::from(whole);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integers_for_whole_floats),
        Value::Object(map) => map.values_mut().for_each(integers_for_whole_floats),
        _ => {}
    }
}

/// A whole float too large to be exact: JSON text like `-9223372036854775809` reads as one, and
/// passes a schema's `integer` and range checks (JSON Schema counts `1.0` as an integer), so
/// serde's own error, which names Rust types (`expected i64`), would otherwise reach the model.
fn inexact_integer(value: &Value) -> Option<Value> {
    let number = value.as_number().filter(|n| n.is_f64())?.as_f64()?;
    (number.fract() == 0.0 && number.abs() > 9_007_199_254_740_992.0).then(|| value.clone())
}
