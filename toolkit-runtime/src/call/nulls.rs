//! `null` as "not given": OpenAI strict mode makes every optional property nullable and required,
//! so a model leaves a defaulted parameter out by sending `null` for it.

use serde_json::{Map, Value};

use crate::schema::keywords::{accepts_null, required_names};

/// Removes `null`s sent for optional properties whose schema rejects `null` (an
/// `#[arg(default)]` parameter, a `#[serde(default)]` field), at every level, so the default is
/// used instead of failing validation. The call pipeline applies this to every call whose
/// arguments the schema rejects as sent.
pub(crate) fn drop_omitted_nulls(args: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required = required_names(schema);
    args.retain(|name, arg| {
        let Some(property) = properties.get(name) else {
            return true;
        };
        let optional = !required.contains(&name.as_str());
        let takes_null = property.as_object().is_some_and(accepts_null);
        !(arg.is_null() && optional && !takes_null)
    });
    for (name, arg) in args.iter_mut() {
        if let (Some(property), Value::Object(nested)) = (properties.get(name), arg) {
            drop_omitted_nulls(nested, property);
        }
    }
}
