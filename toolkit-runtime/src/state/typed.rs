//! What `#[derive(AgentState)]` and `#[toolset(state = T)]` generate code against.
//!
//! The derive writes, next to the state, a struct with one field per state key whose type
//! records the key's Rust type, its merge rule and its name ([`StateField`]). The toolset macro
//! checks its wiring by naming those fields: an unknown key is rustc's "no field" error (with
//! its "a field with a similar name exists"), and a type that does not fit is an unmet bound of
//! [`FillsParameter`] or [`TakesResult`], whose message names the key and both types.
//! None of this exists at run time: the checks are functions that are never called.

use std::any::Any;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{AgentState, StateError};

/// The keys of a state made by `#[derive(AgentState)]`, for `#[toolset(state = ...)]` to check
/// its wiring against.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the state of a toolset: it does not derive `AgentState`",
    label = "not a `#[derive(AgentState)]` type",
    note = "`#[toolset(state = T)]` checks its wiring against the keys `#[derive(AgentState)]` lists for `T`"
)]
pub trait StateKeys {
    /// A struct with one [`StateField`] per key.
    type Keys;
}

/// One key of a derived state: its Rust type `T`, its merge rule `Rule` ([`Lists`], [`Replace`]
/// or [`Custom`]) and a marker type named after the key, so that errors can name it.
pub struct StateField<T, Rule, Key>(Marker<(T, Rule, Key)>);

/// Names types without owning them: `StateField` is never built, and is `Send`, `Sync` and
/// free of drop checks whatever its types.
type Marker<T> = PhantomData<fn() -> T>;

/// The merge rule of a `Vec<T>` key: a list is concatenated, a single item appended.
pub struct Lists;
/// The merge rule of other keys, and of lists marked `#[state(replace)]`.
pub struct Replace;
/// The merge rule of a key marked `#[state(merge = path)]`.
pub struct Custom;

/// A state key holding `Self` can fill a parameter of type `P`: the same type, or `Option` of
/// it on either side (an empty key leaves an optional parameter out).
#[diagnostic::on_unimplemented(
    message = "state key `{Key}` holds `{Self}`, which cannot fill a parameter of type `{P}`",
    label = "filled from state key `{Key}`",
    note = "a parameter filled from state has the key's type, or `Option` of it"
)]
pub trait FillsParameter<P, Key> {}

impl<T, Key> FillsParameter<T, Key> for T {}
impl<T, Key> FillsParameter<Option<T>, Key> for T {}
impl<T, Key> FillsParameter<T, Key> for Option<T> {}

/// A state key holding `Self`, merged under `Rule`, can take a tool result of type `R`.
#[diagnostic::on_unimplemented(
    message = "a result of type `{R}` cannot be merged into state key `{Key}`, which holds `{Self}`",
    label = "merged into state key `{Key}`",
    note = "a `Vec<T>` key takes a `Vec<T>` (concatenated) or one `T` (appended); other keys take their own type"
)]
pub trait TakesResult<R, Rule, Key> {}

impl<T, Key> TakesResult<Vec<T>, Lists, Key> for Vec<T> {}
impl<T, Key> TakesResult<T, Lists, Key> for Vec<T> {}
impl<T, Key> TakesResult<T, Replace, Key> for T {}
impl<T, Key> TakesResult<T, Replace, Key> for Option<T> {}
impl<T, Key> TakesResult<T, Custom, Key> for T {}

/// Checks that the key fills a parameter of type `P`; never called.
pub fn check_input<P, T, Rule, Key>(_key: &StateField<T, Rule, Key>)
where
    T: FillsParameter<P, Key>,
{
}

/// Checks that the key takes a result of type `R`; never called.
pub fn check_output<R, T, Rule, Key>(_key: &StateField<T, Rule, Key>)
where
    T: TakesResult<R, Rule, Key>,
{
}

/// A field's value as JSON; a field that serialises to `null` (an empty `Option`) has none.
pub fn read_field<T: Serialize>(key: &str, field: &T) -> Result<Option<Value>, StateError> {
    match serde_json::to_value(field) {
        Ok(Value::Null) => Ok(None),
        Ok(value) => Ok(Some(value)),
        Err(err) => Err(StateError::Mismatch {
            key: key.into(),
            message: err.to_string(),
        }),
    }
}

/// Replaces a field with a JSON value; the field is untouched when the value does not fit.
pub fn replace_field<T: DeserializeOwned>(
    key: &str,
    field: &mut T,
    new: Value,
) -> Result<(), StateError> {
    *field = serde_json::from_value(new).map_err(|err| StateError::Mismatch {
        key: key.into(),
        message: err.to_string(),
    })?;
    Ok(())
}

/// Whether a JSON value reads as `T` (a replaced or custom-merged key of type `T`).
pub fn accepts_value<T: DeserializeOwned>(key: &str, value: &Value) -> Result<(), StateError> {
    T::deserialize(value)
        .map(drop)
        .map_err(|err| StateError::Mismatch {
            key: key.into(),
            message: err.to_string(),
        })
}

/// Whether a JSON value can be merged into a `Vec<T>` key: a list of `T`, or one `T`.
pub fn accepts_list<T: DeserializeOwned>(key: &str, value: &Value) -> Result<(), StateError> {
    match value {
        Value::Array(_) => accepts_value::<Vec<T>>(key, value),
        single => accepts_value::<T>(key, single),
    }
}

/// Merges a JSON value into a field with a typed custom merge; the field is untouched when the
/// value does not fit.
pub fn merge_field_with<T: DeserializeOwned>(
    key: &str,
    field: &mut T,
    new: Value,
    merge: impl FnOnce(&mut T, T),
) -> Result<(), StateError> {
    let new = serde_json::from_value(new).map_err(|err| StateError::Mismatch {
        key: key.into(),
        message: err.to_string(),
    })?;
    merge(field, new);
    Ok(())
}

/// A typed custom merge applied to JSON values, for the [`MergeRule::Custom`] a derived state
/// lists in its [`keys`](super::AgentState::keys).
///
/// [`MergeRule::Custom`]: super::MergeRule::Custom
pub fn merge_json_with<T: Serialize + DeserializeOwned>(
    current: &mut Value,
    new: Value,
    merge: impl FnOnce(&mut T, T),
) -> Result<(), String> {
    let mut typed: T = serde_json::from_value(current.clone()).map_err(|err| err.to_string())?;
    merge(
        &mut typed,
        serde_json::from_value(new).map_err(|err| err.to_string())?,
    );
    *current = serde_json::to_value(typed).map_err(|err| err.to_string())?;
    Ok(())
}

/// What the model is shown of a result through a typed formatting function; a result that does
/// not read as `T` is shown whole.
pub fn format_result<T: DeserializeOwned>(
    result: &Value,
    format: impl FnOnce(&T) -> String,
) -> Value {
    match T::deserialize(result) {
        Ok(typed) => Value::String(format(&typed)),
        Err(_) => result.clone(),
    }
}

/// The error for a key a derived state does not have, naming the ones it has.
pub fn undeclared_key(key: &str, declared: &[&str]) -> StateError {
    StateError::UndeclaredKey {
        key: key.into(),
        declared: declared.iter().map(|name| (*name).to_owned()).collect(),
    }
}

// The typed path with state (`call::typed_state`): what `#[derive(AgentState)]` implements
// `AgentState::read_any` and `merge_any` with, and what the bodies `#[toolset(state = T)]`
// generates fill their parameters with. Both sides meet through `Any`, so a type that does not
// match is a `None` or `false` at run time (the JSON path then decides), never a second
// compile error next to the wiring checks above.

/// Whether a field holds what the JSON path reads as no value: it reads a field that
/// serialises to `null` as absent.
fn holds_null<T: 'static>(field: &T) -> bool {
    (field as &dyn Any)
        .downcast_ref::<Value>()
        .is_some_and(Value::is_null)
}

/// Fills a parameter of type `P` from a field read as `Any`:
/// `(&&FillAny::<P>::new()).fill(field)` clones a field of type `P` or `Option<P>` when `P` is
/// `Clone` ([`FillByClone`]), and is `None` otherwise ([`FillNever`]), which leaves the call to
/// the JSON path. A field holding no value is `None` too.
pub struct FillAny<P>(PhantomData<fn() -> P>);

/// [`FillAny`] for a parameter written `Option<X>`: a field of type `Option<X>` or `X`.
pub struct FillAnyOption<X>(PhantomData<fn() -> X>);

impl<P> FillAny<P> {
    /// The probe for a parameter of type `P`.
    pub const fn new() -> Self {
        FillAny(PhantomData)
    }
}

impl<X> FillAnyOption<X> {
    /// The probe for a parameter of type `Option<X>`.
    pub const fn new() -> Self {
        FillAnyOption(PhantomData)
    }
}

impl<P> Default for FillAny<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<X> Default for FillAnyOption<X> {
    fn default() -> Self {
        Self::new()
    }
}

/// The fill of a parameter whose type is `Clone`.
pub trait FillByClone<P> {
    /// The parameter's value, or `None` where the JSON path must decide.
    fn fill(&self, field: &dyn Any) -> Option<P>;
}

/// The fill of a parameter whose type is not `Clone`: always the JSON path.
pub trait FillNever<P> {
    /// Always `None`.
    fn fill(&self, field: &dyn Any) -> Option<P>;
}

impl<P: Clone + 'static> FillByClone<P> for &FillAny<P> {
    fn fill(&self, field: &dyn Any) -> Option<P> {
        match field.downcast_ref::<P>() {
            Some(value) => (!holds_null(value)).then(|| value.clone()),
            None => field
                .downcast_ref::<Option<P>>()?
                .clone()
                .filter(|v| !holds_null(v)),
        }
    }
}

impl<P> FillNever<P> for FillAny<P> {
    fn fill(&self, _field: &dyn Any) -> Option<P> {
        None
    }
}

impl<X: Clone + 'static> FillByClone<Option<X>> for &FillAnyOption<X> {
    fn fill(&self, field: &dyn Any) -> Option<Option<X>> {
        let value = match field.downcast_ref::<Option<X>>() {
            Some(value) => value.as_ref(),
            None => Some(field.downcast_ref::<X>()?),
        };
        // No value is what the JSON path makes of an absent key for an optional parameter.
        Some(value.filter(|v| !holds_null(*v)).cloned())
    }
}

impl<X> FillNever<Option<X>> for FillAnyOption<X> {
    fn fill(&self, _field: &dyn Any) -> Option<Option<X>> {
        None
    }
}

/// The typed access to a state's fields that the typed path with state uses:
/// `#[derive(AgentState)]` implements it, beside `AgentState`, so the user-implemented trait
/// carries nothing only generated code calls.
pub trait TypedState {
    /// The value of `key` as `Any`: a tool made by `#[toolset(state = T)]` clones its parameter
    /// from it instead of reading JSON. `None` sends the call down the JSON path, with the same
    /// results.
    fn read_any(&self, key: &str) -> Option<&dyn Any>;

    /// Merges a typed value into `key` under the key's rule: `value` is an `Option<R>` behind
    /// `Any`, taken when the key takes an `R` (with `None` in it, only the type is checked).
    /// `false` when it does not: the value is left where it is, and the call takes the JSON
    /// path. The types taken are those `AgentState::merge` takes: the key's own, and for a
    /// `Vec<T>` key a `T`, for an `Option<T>` key a `T`.
    fn merge_any(&mut self, key: &str, value: &mut dyn Any) -> bool;
}

/// Finds the typed access of a state of type `T` behind `&mut dyn AgentState`, through autoref
/// specialization: `(&&TypedProbe::<T>::new()).typed(state)` downcasts when `T` implements
/// [`TypedState`] ([`ViaTypedState`]) and is `None` otherwise ([`NotTypedState`]), as it is
/// when the state is of another type: the call then takes the JSON path.
pub struct TypedProbe<T>(PhantomData<fn() -> T>);

impl<T> TypedProbe<T> {
    /// The probe for a state of type `T`.
    pub const fn new() -> Self {
        TypedProbe(PhantomData)
    }
}

impl<T> Default for TypedProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The probe of a state type with typed access.
pub trait ViaTypedState {
    /// The state as its typed access, when it is of the probe's type.
    fn typed<'s>(&self, state: &'s mut dyn AgentState) -> Option<&'s mut dyn TypedState>;
}

impl<T: TypedState + 'static> ViaTypedState for &TypedProbe<T> {
    fn typed<'s>(&self, state: &'s mut dyn AgentState) -> Option<&'s mut dyn TypedState> {
        let state: &mut dyn Any = state;
        state
            .downcast_mut::<T>()
            .map(|state| state as &mut dyn TypedState)
    }
}

/// The probe of a state type without typed access: always the JSON path.
pub trait NotTypedState {
    /// Always `None`.
    fn typed<'s>(&self, state: &'s mut dyn AgentState) -> Option<&'s mut dyn TypedState>;
}

impl<T> NotTypedState for TypedProbe<T> {
    fn typed<'s>(&self, _state: &'s mut dyn AgentState) -> Option<&'s mut dyn TypedState> {
        None
    }
}

/// Takes a `T` out of `value` (an `Option<T>` behind `Any`): `None` when `value` holds another
/// type; `Some(None)` when it holds an empty one (a type check that merges nothing).
fn take<T: 'static>(value: &mut dyn Any) -> Option<Option<T>> {
    value.downcast_mut::<Option<T>>().map(Option::take)
}

/// Merges a typed value into a `Vec<T>` key: a `Vec<T>` is concatenated, one `T` appended.
pub fn merge_list_any<T: 'static>(field: &mut Vec<T>, value: &mut dyn Any) -> bool {
    if let Some(list) = take::<Vec<T>>(value) {
        field.extend(list.into_iter().flatten());
        return true;
    }
    match take::<T>(value) {
        Some(item) => {
            field.extend(item);
            true
        }
        None => false,
    }
}

/// Replaces a key with a typed value of its own type.
pub fn replace_any<T: 'static>(field: &mut T, value: &mut dyn Any) -> bool {
    match take::<T>(value) {
        Some(new) => {
            if let Some(new) = new {
                *field = new;
            }
            true
        }
        None => false,
    }
}

/// Replaces an `Option<T>` key with an `Option<T>`, or with a `T` as `Some`.
pub fn replace_option_any<T: 'static>(field: &mut Option<T>, value: &mut dyn Any) -> bool {
    if replace_any(field, value) {
        return true;
    }
    match take::<T>(value) {
        Some(new) => {
            if new.is_some() {
                *field = new;
            }
            true
        }
        None => false,
    }
}

/// Merges a typed value into a key with its custom merge.
pub fn merge_any_with<T: 'static>(
    field: &mut T,
    value: &mut dyn Any,
    merge: impl FnOnce(&mut T, T),
) -> bool {
    match take::<T>(value) {
        Some(new) => {
            if let Some(new) = new {
                merge(field, new);
            }
            true
        }
        None => false,
    }
}
