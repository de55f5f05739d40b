//! A tool's return value as JSON, and the probes generated code uses to pick an output schema
//! and a shown default by autoref specialization.

use std::any::Any;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::handler::HandlerError;
use crate::bounds::{ToolErrorMessage, ToolReturn};
use crate::content::IsContent;
use crate::error::ToolError;

/// Converts a plain return value.
pub fn output<T: ToolReturn>(value: T) -> Result<Value, HandlerError> {
    output_ref(&value)
}

/// Converts a return value the caller keeps (a result merged into state after it is shown).
pub fn output_ref<T: ToolReturn>(value: &T) -> Result<Value, HandlerError> {
    serde_json::to_value(value).map_err(|err| HandlerError::Unserializable(err.to_string()))
}

/// Converts a `Result` return value: `Err(e)` becomes the tool error `e.to_string()`.
pub fn result_output<T: ToolReturn, E: ToolErrorMessage>(
    result: Result<T, E>,
) -> Result<Value, HandlerError> {
    match result {
        Ok(value) => output(value),
        Err(err) => Err(HandlerError::Failed(err.to_string())),
    }
}

/// Converts a closure body's `Result`: `Err(e)` is kept as it is when `e` is a [`ToolError`]
/// (a remote tool's `Cancelled` or `TimedOut`), and is the tool error `e.to_string()` otherwise.
pub(super) fn closure_output<T: ToolReturn, E: ToolErrorMessage + 'static>(
    result: Result<T, E>,
) -> Result<Value, HandlerError> {
    match result {
        Ok(value) => output(value),
        Err(err) => Err(failure(err)),
    }
}

/// A body's error as the pipeline takes it. Told apart at run time, as `anyhow` and
/// `Box<dyn Error>` downcast: a trait bound cannot, since `ToolError` is `Display` too.
fn failure<E: ToolErrorMessage + 'static>(err: E) -> HandlerError {
    let mut slot = Some(err);
    let typed = (&mut slot as &mut dyn Any).downcast_mut::<Option<ToolError>>();
    if let Some(typed) = typed.and_then(Option::take) {
        return HandlerError::Tool(Box::new(typed));
    }
    HandlerError::Failed(slot.map(|err| err.to_string()).unwrap_or_default())
}

/// Picks the output schema of a return type when it has one, through autoref specialization:
/// `(&&OutputSchemaProbe::<T>::new()).output_schema()` is `Some` for `T: JsonSchema`, `None`
/// otherwise, so returns need only be `Serialize`.
#[doc(hidden)]
pub struct OutputSchemaProbe<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: ?Sized> OutputSchemaProbe<T> {
    pub const fn new() -> Self {
        OutputSchemaProbe(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for OutputSchemaProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[doc(hidden)]
pub trait HasOutputSchema {
    fn output_schema(&self) -> Option<Value>;
}

impl<T: JsonSchema + ?Sized> HasOutputSchema for &OutputSchemaProbe<T> {
    fn output_schema(&self) -> Option<Value> {
        Some(crate::schema::type_schema::<T>())
    }
}

#[doc(hidden)]
pub trait NoOutputSchema {
    fn output_schema(&self) -> Option<Value>;
}

impl<T: ?Sized> NoOutputSchema for OutputSchemaProbe<T> {
    fn output_schema(&self) -> Option<Value> {
        None
    }
}

/// The value of an `#[arg(default)]` parameter as the schema's `"default"`, through autoref
/// specialization like [`OutputSchemaProbe`]: shown when the type is `Serialize`, left out
/// otherwise, so a parameter type need only be `Deserialize` to have a default.
#[doc(hidden)]
pub struct DefaultValue<T>(pub T);

#[doc(hidden)]
pub trait DefaultShown {
    fn to_json(&self) -> Option<Value>;
}

impl<T: Serialize> DefaultShown for &DefaultValue<T> {
    fn to_json(&self) -> Option<Value> {
        serde_json::to_value(&self.0).ok()
    }
}

#[doc(hidden)]
pub trait DefaultHidden {
    fn to_json(&self) -> Option<Value>;
}

impl<T> DefaultHidden for DefaultValue<T> {
    fn to_json(&self) -> Option<Value> {
        None
    }
}

/// Whether a return type is content blocks, through autoref specialization like
/// [`OutputSchemaProbe`]: `(&&ContentProbe::<T>::new()).returns_content()` is `true` for the
/// content types ([`IsContent`]), `false` for any other.
#[doc(hidden)]
pub struct ContentProbe<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: ?Sized> ContentProbe<T> {
    pub const fn new() -> Self {
        ContentProbe(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for ContentProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[doc(hidden)]
pub trait ReturnsContent {
    fn returns_content(&self) -> bool;
}

impl<T: IsContent + ?Sized> ReturnsContent for &ContentProbe<T> {
    fn returns_content(&self) -> bool {
        true
    }
}

#[doc(hidden)]
pub trait ReturnsJson {
    fn returns_content(&self) -> bool;
}

impl<T: ?Sized> ReturnsJson for ContentProbe<T> {
    fn returns_content(&self) -> bool {
        false
    }
}
