//! The application's policy around every call: before-call hooks that may refuse it, after-call
//! hooks that see (and may rewrite) every result. A panicking hook never takes the host down.

use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use crate::call::{CallSpan, Rendering, panic_message};
use crate::error::ToolError;
use crate::{ToolCall, ToolCallResult, ToolProxy};

/// A before-call hook: `Err(reason)` refuses the call, and the model reads the reason.
pub(super) type BeforeHook = dyn Fn(&ToolCall, &ToolProxy) -> Result<(), String> + Send + Sync;
/// An after-call hook: sees, and may rewrite, every result.
pub(super) type AfterHook = dyn Fn(&ToolCall, &mut ToolCallResult) + Send + Sync;

#[derive(Default)]
pub(super) struct Hooks {
    pub(super) before: Vec<Box<BeforeHook>>,
    pub(super) after: Vec<Box<AfterHook>>,
}

impl Hooks {
    /// Runs the before-call hooks; the first refusal (or panic) stops the call.
    pub(super) fn allow(&self, call: &ToolCall, tool: &ToolProxy) -> Result<(), ToolError> {
        for hook in &self.before {
            match catch_unwind(AssertUnwindSafe(|| hook(call, tool))) {
                Ok(Ok(())) => {}
                Ok(Err(reason)) => {
                    return Err(ToolError::Rejected {
                        tool: call.name.clone(),
                        reason,
                    });
                }
                Err(payload) => {
                    return Err(ToolError::Panicked {
                        tool: call.name.clone(),
                        message: format!(
                            "the before-call hook panicked: {}",
                            panic_message(&*payload)
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    /// Turns an outcome into the result the model reads (the one rendering step, `render`),
    /// passing it through the after-call hooks. A hook that panics leaves the result as the
    /// hooks before it made it.
    pub(super) fn report(
        &self,
        call: &ToolCall,
        outcome: Result<Value, ToolError>,
        rendering: Rendering,
    ) -> ToolCallResult {
        let mut result = ToolCallResult::rendered(call, outcome, rendering);
        for hook in &self.after {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| hook(call, &mut result))) {
                tracing::error!(
                    panic = %panic_message(&*payload),
                    "an after-call hook panicked"
                );
            }
        }
        result
    }

    /// [`report`](Self::report) in the call's span: the last step of every call.
    pub(super) fn report_in(
        &self,
        span: &CallSpan,
        call: &ToolCall,
        outcome: Result<Value, ToolError>,
        rendering: Rendering,
    ) -> ToolCallResult {
        let _entered = span.span.enter();
        self.report(call, outcome, rendering)
    }

    /// [`report`](Self::report) of a call not read again: unless an after-call hook must read
    /// it, the result takes the call's id and name instead of copies.
    pub(super) fn report_taking(
        &self,
        call: &mut ToolCall,
        outcome: Result<Value, ToolError>,
        rendering: Rendering,
    ) -> ToolCallResult {
        if !self.after.is_empty() {
            return self.report(call, outcome, rendering);
        }
        ToolCallResult::rendered_taking(call, outcome, rendering)
    }
}
