//! The bounds generated code puts on parameter, return and error types. The traits exist for
//! their `#[diagnostic::on_unimplemented]` messages: a wrong type is reported at the user's own
//! span with the fix spelled out.

use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

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
pub trait ToolReturn: Serialize {}

impl<T: Serialize + ?Sized> ToolReturn for T {}

/// The error type of a tool returning `Result<T, E>`: anything `Display`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: it must implement `std::fmt::Display`",
    label = "the error type of this `Result` is not `Display`",
    note = "the model reads the error as text: implement `Display` (thiserror's `#[error(...)]` does)"
)]
pub trait ToolErrorMessage: Display {}

impl<T: Display + ?Sized> ToolErrorMessage for T {}
