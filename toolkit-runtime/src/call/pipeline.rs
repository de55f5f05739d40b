//! The call pipeline, top to bottom, shared by sync and async calls:
//! input -> (size and depth checked) -> JSON object -> validated, or else null-dropped, coerced
//! and validated again -> typed arguments -> the body -> JSON result (bounded).
//! Only the step that runs the body differs between [`ToolProxy::run`] and [`ToolProxy::arun`].

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::arguments::Arguments;
use super::async_bridge;
use super::coerce;
use super::deadline::{run_with_deadline, with_deadline};
use super::handler::{Handler, HandlerError};
use super::limits::Limits;
use super::nulls::drop_omitted_nulls;
use super::panic::{CatchUnwind, panic_message, run_catching};
use super::problems::describe_value;
use super::proxy::ToolProxy;
use crate::error::ToolError;

impl ToolProxy {
    /// The sync pipeline under the given limits, without a span of its own.
    pub(crate) fn run(&self, input: Cow<'_, Value>, limits: &Limits) -> Result<Value, ToolError> {
        let mut arguments = self.prepare(input, limits)?;
        let result = match &self.inner.handler {
            Handler::Sync(handler) => match limits.timeout {
                None => run_catching(|| handler(&mut arguments)),
                Some(timeout) => run_with_deadline(self.name(), handler, arguments, timeout)?,
            },
            Handler::Async(handler) => {
                let future = CatchUnwind(handler(arguments));
                let deadline = with_deadline(self.name(), future, limits.timeout);
                async_bridge::block_on(self.name(), deadline)??
            }
        };
        self.finish(result, limits)
    }

    /// The async pipeline under the given limits, without a span of its own.
    pub(crate) async fn arun(
        &self,
        input: Cow<'_, Value>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        let mut arguments = self.prepare(input, limits)?;
        let result = match &self.inner.handler {
            // A deadline can only be kept for a sync body that runs on a thread of its own.
            Handler::Sync(handler) if self.options().blocking || limits.timeout.is_some() => {
                let handler = Arc::clone(handler);
                let task = tokio::task::spawn_blocking(move || handler(&mut arguments));
                match with_deadline(self.name(), task, limits.timeout).await? {
                    Ok(result) => result,
                    Err(join) if join.is_panic() => {
                        Err(HandlerError::Panicked(panic_message(&*join.into_panic())))
                    }
                    Err(join) => Err(HandlerError::Failed(join.to_string())),
                }
            }
            Handler::Sync(handler) => run_catching(|| handler(&mut arguments)),
            Handler::Async(handler) => {
                let future = CatchUnwind(handler(arguments));
                with_deadline(self.name(), future, limits.timeout).await?
            }
        };
        self.finish(result, limits)
    }

    /// input -> (size and depth checked) -> JSON object -> validated arguments, repaired first
    /// (omitted-nulls dropped, coerced) only when the schema rejects them as sent.
    fn prepare(&self, input: Cow<'_, Value>, limits: &Limits) -> Result<Arguments, ToolError> {
        let tool = self.name();
        limits.check_input(tool, &input)?;
        let value = match input {
            Cow::Borrowed(Value::String(text)) => parse_arguments(tool, text)?,
            Cow::Owned(Value::String(text)) => parse_arguments(tool, &text)?,
            // Cloned only now that it is known to be small and shallow.
            other => other.into_owned(),
        };
        let mut arguments = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(ToolError::NotAnObject {
                    tool: tool.into(),
                    got: describe_value(&other),
                });
            }
        };
        let parameters = self.parameters();
        let validator = self.validator()?;
        // Every repair below only ever turns an invalid value into a valid one, so arguments the
        // schema accepts as sent (the common case) skip them: one validation, no extra walks.
        if !validator.accepts(&mut arguments) {
            // Even a strict tool takes `null` as "not given" for a defaulted parameter: that is
            // what OpenAI strict mode, whose schemas we advertise, makes the model send.
            drop_omitted_nulls(&mut arguments, parameters);
            if !self.options().strict {
                coerce::coerce_arguments(&mut arguments, parameters);
            }
            let problems = validator.problems(parameters, &mut arguments);
            if !problems.is_empty() {
                return Err(ToolError::InvalidArguments {
                    tool: tool.into(),
                    problems,
                });
            }
        }
        Ok(Arguments::new(arguments))
    }

    fn finish(
        &self,
        result: Result<Value, HandlerError>,
        limits: &Limits,
    ) -> Result<Value, ToolError> {
        let tool = self.name().to_owned();
        match result {
            Ok(value) => Ok(limits.bound_output(value)),
            Err(HandlerError::Argument(problem)) => Err(ToolError::InvalidArguments {
                tool,
                problems: vec![problem],
            }),
            Err(HandlerError::Failed(message)) => Err(ToolError::Failed { tool, message }),
            Err(HandlerError::Unserializable(message)) => {
                Err(ToolError::UnserializableResult { tool, message })
            }
            Err(HandlerError::Panicked(message)) => Err(ToolError::Panicked { tool, message }),
        }
    }
}

fn parse_arguments(tool: &str, text: &str) -> Result<Value, ToolError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|err| ToolError::InvalidJson {
        tool: tool.into(),
        message: err.to_string(),
    })
}
