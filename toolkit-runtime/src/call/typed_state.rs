//! The typed fast path of a call with state: a `#[toolset(state = T)]` method reads its
//! state-filled parameters straight from the fields of `T`, and its result is merged straight
//! into one, with no JSON between the state and the method.
//!
//! Like the typed fast path without state (`typed`), it only ever accepts: whatever it cannot
//! decide alone (state of another type, arguments the types alone cannot read, a state value
//! that is absent, a deadline, a body for the blocking pool) goes down the JSON path, with the
//! state untouched, and that path decides and words the outcome as it always has.

use std::sync::Arc;

use serde_json::Value;

use super::handler::{TypedInput, TypedStateSync};
use super::limits::Limits;
use super::panic::caught;
use super::proxy::{StateBinding, ToolProxy};
use crate::error::ToolError;
use crate::state::AgentState;

impl ToolProxy {
    /// The same tool with a typed body with state (what `#[toolset(state = T)]` generates); a
    /// tool without a state wiring is returned as it is.
    pub(crate) fn with_typed_state(self, body: Arc<TypedStateSync>) -> ToolProxy {
        let Some(binding) = &self.inner.state else {
            return self;
        };
        let binding = StateBinding {
            typed: Some(body),
            ..binding.clone()
        };
        let (handler, typed) = (self.inner.handler.clone(), self.inner.typed.clone());
        ToolProxy::build(
            self.definition().clone(),
            handler,
            typed,
            Some(binding),
            self.inner.traits,
        )
    }

    /// Runs a call on the typed fast path with state, when the tool has one and may take it
    /// under `limits`: the result the model is shown, or `None` when the JSON path must decide
    /// (state untouched). Only a call that went through changes the state.
    pub(crate) fn run_typed_state(
        &self,
        state: &mut dyn AgentState,
        input: &Value,
        limits: &Limits,
    ) -> Option<Result<Value, ToolError>> {
        let binding = self.inner.state.as_ref()?;
        let body = binding.typed.as_ref()?;
        // A deadline and the blocking pool need the body to own its arguments; a schema that
        // says more than the types needs the validator.
        if limits.timeout.is_some() || self.options().blocking || self.typed_body().is_none() {
            return None;
        }
        let typed_input = match input {
            Value::String(text) if !text.trim().is_empty() => TypedInput::Text(text),
            Value::Object(_) => TypedInput::Value(input),
            _ => return None,
        };
        // The dispatch core checked the input's size and depth before it came here.
        let result = match caught(|| body(state, typed_input)) {
            Ok(ran) => ran?,
            Err(panicked) => Err(panicked),
        };
        Some(self.finish(result.map(|value| binding.wiring.shown(value))))
    }
}
