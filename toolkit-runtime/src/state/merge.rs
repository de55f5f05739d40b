//! Merge rules: how a value written to a state key combines with the value already there.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::StateError;

/// A custom merge: combines the current value of a key with a new one, or says why it cannot.
pub type MergeFn = fn(&mut Value, Value) -> Result<(), String>;

/// How a value written to a state key combines with the one already there.
///
/// ```
/// use toolkit::state::MergeRule;
/// use serde_json::json;
///
/// let mut docs = json!(["a"]);
/// MergeRule::Lists.merge("docs", &mut docs, json!(["b", "c"])).unwrap();
/// MergeRule::Lists.merge("docs", &mut docs, json!("d")).unwrap();
/// assert_eq!(docs, json!(["a", "b", "c", "d"]));
/// ```
#[derive(Debug, Clone, Copy)]
pub enum MergeRule {
    /// A list is concatenated to the current list; a single value is appended to it. A key
    /// that is not a list yet is replaced.
    Lists,
    /// The new value replaces the current one.
    Replace,
    /// A function of the current and the new value.
    Custom(MergeFn),
}

impl PartialEq for MergeRule {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (MergeRule::Custom(a), MergeRule::Custom(b)) => std::ptr::fn_addr_eq(*a, *b),
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl MergeRule {
    /// The default rule for a key of this JSON Schema: [`Lists`](Self::Lists) for an array,
    /// [`Replace`](Self::Replace) for anything else.
    pub fn for_schema(schema: &Value) -> MergeRule {
        match schema.get("type") {
            Some(Value::String(kind)) if kind == "array" => MergeRule::Lists,
            _ => MergeRule::Replace,
        }
    }

    /// Merges `new` into `current` under this rule; `key` only names the key in the error.
    pub fn merge(&self, key: &str, current: &mut Value, new: Value) -> Result<(), StateError> {
        match (self, &mut *current) {
            (MergeRule::Lists, Value::Array(list)) => {
                match new {
                    Value::Array(items) => list.extend(items),
                    single => list.push(single),
                }
                Ok(())
            }
            (MergeRule::Lists, Value::Null) => {
                *current = match new {
                    Value::Array(items) => Value::Array(items),
                    single => Value::Array(vec![single]),
                };
                Ok(())
            }
            (MergeRule::Lists | MergeRule::Replace, _) => {
                *current = new;
                Ok(())
            }
            (MergeRule::Custom(merge), _) => {
                merge(current, new).map_err(|message| StateError::Merge {
                    key: key.into(),
                    message,
                })
            }
        }
    }
}

/// Merges a JSON value into a typed field under `rule`, the field left untouched when the
/// merged value does not fit its type (the fallback for state written through JSON).
///
/// ```
/// use toolkit::state::{MergeRule, merge_into};
/// use serde_json::json;
///
/// let mut names = vec!["a".to_string()];
/// merge_into("names", &mut names, MergeRule::Lists, json!("b")).unwrap();
/// assert_eq!(names, ["a", "b"]);
/// assert!(merge_into("names", &mut names, MergeRule::Lists, json!(3)).is_err());
/// assert_eq!(names, ["a", "b"]);
/// ```
pub fn merge_into<T>(
    key: &str,
    field: &mut T,
    rule: MergeRule,
    new: Value,
) -> Result<(), StateError>
where
    T: Serialize + DeserializeOwned,
{
    let mismatch = |message: String| StateError::Mismatch {
        key: key.into(),
        message,
    };
    if let MergeRule::Replace = rule {
        // Nothing of the current value is kept: no need to turn it into JSON.
        *field = serde_json::from_value(new).map_err(|err| mismatch(err.to_string()))?;
        return Ok(());
    }
    let mut current = serde_json::to_value(&*field).map_err(|err| mismatch(err.to_string()))?;
    rule.merge(key, &mut current, new)?;
    *field = serde_json::from_value(current).map_err(|err| mismatch(err.to_string()))?;
    Ok(())
}

/// Merges a JSON value into a typed list under [`MergeRule::Lists`] without turning the list into
/// JSON: a JSON array is concatenated, a single value appended; the list is untouched when the
/// value does not fit `T`.
///
/// ```
/// use toolkit::state::merge_list_into;
/// use serde_json::json;
///
/// let mut scores = vec![1];
/// merge_list_into("scores", &mut scores, json!([2, 3])).unwrap();
/// merge_list_into("scores", &mut scores, json!(4)).unwrap();
/// assert_eq!(scores, [1, 2, 3, 4]);
/// assert!(merge_list_into("scores", &mut scores, json!("five")).is_err());
/// assert_eq!(scores, [1, 2, 3, 4]);
/// ```
pub fn merge_list_into<T>(key: &str, list: &mut Vec<T>, new: Value) -> Result<(), StateError>
where
    T: DeserializeOwned,
{
    let mismatch = |err: serde_json::Error| StateError::Mismatch {
        key: key.into(),
        message: err.to_string(),
    };
    match new {
        Value::Array(_) => list.extend(serde_json::from_value::<Vec<T>>(new).map_err(mismatch)?),
        single => list.push(serde_json::from_value(single).map_err(mismatch)?),
    }
    Ok(())
}
