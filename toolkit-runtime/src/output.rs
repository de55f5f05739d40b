//! The bounds generated code puts on parameter and return types, and the conversion of a tool's
//! return value into JSON. The traits exist for their `#[diagnostic::on_unimplemented]` messages:
//! a wrong type is reported at the user's own span with the fix spelled out.

use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A type a tool can take as a parameter: anything `Deserialize + JsonSchema`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it must implement `serde::Deserialize` and `schemars::JsonSchema`",
    label = "this parameter type is not `Deserialize + JsonSchema`",
    note = "add `#[derive(serde::Deserialize, schemars::JsonSchema)]` to the type",
    note = "toolkit uses schemars 1.x (re-exported as `toolkit::schemars`): a `JsonSchema` derived with another major version of schemars does not count"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema {}

impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {}

/// A type a tool can return: anything `Serialize`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool: it must implement `serde::Serialize`",
    label = "this return type is not `Serialize`",
    note = "add `#[derive(serde::Serialize)]` to the type, or return `Result<T, E>` with `T: Serialize` and `E: Display`"
)]
pub trait ToolOutput: Serialize {}

impl<T: Serialize + ?Sized> ToolOutput for T {}

/// The error type of a tool returning `Result<T, E>`: anything `Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: it must implement `std::fmt::Display`",
    label = "the error type of this `Result` is not `Display`",
    note = "the model reads the error as text: implement `Display` (thiserror's `#[error(...)]` does)"
)]
pub trait ToolErrorMessage: Display {}

impl<T: Display + ?Sized> ToolErrorMessage for T {}

/// What a tool's body produced, before the proxy attaches the tool's name.
#[derive(Debug)]
#[doc(hidden)]
pub enum HandlerError {
    Argument(crate::ArgumentProblem),
    Failed(String),
    Unserializable(String),
    Panicked(String),
}

impl From<crate::ArgumentProblem> for HandlerError {
    fn from(problem: crate::ArgumentProblem) -> Self {
        HandlerError::Argument(problem)
    }
}

/// Converts a plain return value.
pub fn output<T: ToolOutput>(value: T) -> Result<Value, HandlerError> {
    serde_json::to_value(value).map_err(|err| HandlerError::Unserializable(err.to_string()))
}

/// Converts a `Result` return value: `Err(e)` becomes the tool error `e.to_string()`.
pub fn result_output<T: ToolOutput, E: ToolErrorMessage>(
    result: Result<T, E>,
) -> Result<Value, HandlerError> {
    match result {
        Ok(value) => output(value),
        Err(err) => Err(HandlerError::Failed(err.to_string())),
    }
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
