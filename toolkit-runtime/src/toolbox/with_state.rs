//! Calls with state: the doors into the dispatch core (`dispatch`) that carry state, the steps
//! the core takes for them (size checked, state-filled parameters filled, the typed path with
//! state tried, results merged), and a batch in which a call that reads a key an earlier call
//! writes waits.

use serde_json::Value;

use super::Toolbox;
use crate::call::{CallSpan, Limits, Rendering, ToolProxy};
use crate::error::ToolError;
use crate::state::{AgentState, StateWiring};
use crate::{ToolCall, ToolCallResult};

impl Toolbox {
    /// Runs one call from sync code with `state`: the tool's state-filled parameters are read
    /// from it first, and a successful result is merged into it (a failed call changes nothing).
    /// A tool without a state wiring runs as with [`call`](Self::call).
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    /// use toolkit::state::{AgentState, DynamicState, StateSchema, StateWiring};
    ///
    /// let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
    ///     "required": ["n"]});
    /// let double = ToolProxy::from_fn(ToolDefinition::new("double", "Double n", schema), |args| {
    ///     Ok::<_, String>(args["n"].as_i64().unwrap_or_default() * 2)
    /// });
    /// let double = double.with_state(StateWiring::new().input("n").output("n")).unwrap();
    /// let toolbox = Toolbox::builder().tool(double).build().unwrap();
    /// let mut state = DynamicState::new(StateSchema::new().key("n", json!({"type": "integer"})));
    /// state.merge("n", json!(21)).unwrap();
    /// let result = toolbox.call_with_state(&mut state, &ToolCall::new("double", json!({})));
    /// assert_eq!(result.value, json!(42));
    /// assert_eq!(state.to_json(), json!({"n": 42}));
    /// ```
    pub fn call_with_state(&self, state: &mut dyn AgentState, call: &ToolCall) -> ToolCallResult {
        self.answer(call, Some(state))
    }

    /// Runs one call from async code with `state`; see [`call_with_state`](Self::call_with_state).
    pub async fn acall_with_state(
        &self,
        state: &mut dyn AgentState,
        call: &ToolCall,
    ) -> ToolCallResult {
        self.aanswer(call, Some(state), None).await
    }

    /// Runs a batch with `state` and returns the results in the order of `calls`.
    ///
    /// A call that reads a state key written by an earlier call of the batch runs after that
    /// call; calls that depend on nothing pending run concurrently, as in
    /// [`call_all`](Self::call_all). The batch runs in rounds (a call's round is one more than
    /// that of the latest earlier call it reads from); after each round its results are merged
    /// into state in call order, so the outcome does not depend on timing. A failed call
    /// changes nothing in state.
    pub async fn call_all_with_state(
        &self,
        state: &mut dyn AgentState,
        calls: Vec<ToolCall>,
    ) -> Vec<ToolCallResult> {
        let rounds = self.rounds(&calls);
        let mut results: Vec<Option<ToolCallResult>> = vec![None; calls.len()];
        for round in 0..=rounds.iter().copied().max().unwrap_or(0) {
            let members: Vec<usize> = (0..calls.len()).filter(|&i| rounds[i] == round).collect();
            let mut ready = Vec::with_capacity(members.len());
            for &position in &members {
                let call = &calls[position];
                let wired = self
                    .get(&call.name)
                    .and_then(|t| Some((t, t.state_wiring()?)));
                match wired {
                    None => ready.push((position, call.clone())),
                    Some((tool, wiring)) => {
                        let limits = self.limits.for_tool(tool.options());
                        match filled(tool, wiring, &limits, &*state, call) {
                            Ok(filled) => ready.push((position, filled)),
                            Err(err) => results[position] = Some(self.refuse(call, err, &limits)),
                        }
                    }
                }
            }
            let (positions, filled): (Vec<usize>, Vec<ToolCall>) = ready.into_iter().unzip();
            let done = self.call_all(filled.clone()).await;
            for ((position, call), result) in positions.into_iter().zip(&filled).zip(done) {
                results[position] = Some(match self.get(&call.name) {
                    Some(tool) => {
                        let limits = self.limits.for_tool(tool.options());
                        match tool.state_wiring() {
                            Some(wiring) => {
                                let mut wired = Wired {
                                    state: &mut *state,
                                    wiring,
                                };
                                self.write_back(&mut wired, call, result, &limits)
                            }
                            None => result,
                        }
                    }
                    None => result,
                });
            }
        }
        results.into_iter().flatten().collect()
    }

    /// The round of each call: 0, or one more than the latest earlier call whose writes it reads.
    fn rounds(&self, calls: &[ToolCall]) -> Vec<usize> {
        let mut rounds: Vec<usize> = Vec::with_capacity(calls.len());
        for call in calls {
            let round = self.wiring(&call.name).map_or(0, |wiring| {
                let mut round = 0;
                for (earlier, before) in calls.iter().zip(&rounds) {
                    let writes = self
                        .wiring(&earlier.name)
                        .into_iter()
                        .flat_map(|wiring| wiring.writes());
                    if writes
                        .into_iter()
                        .any(|key| wiring.reads().any(|read| read == key))
                    {
                        round = round.max(before + 1);
                    }
                }
                round
            });
            rounds.push(round);
        }
        rounds
    }

    /// The state wiring of the tool called `name`.
    fn wiring(&self, name: &str) -> Option<&StateWiring> {
        self.get(name)?.state_wiring()
    }

    /// The state steps of the dispatch core, before the call runs: for a call with state to a
    /// tool wired to it, the size and depth of the arguments are checked first (before they are
    /// read to fill state in, as `limits.rs` promises), then the typed path with state is tried,
    /// then the state-filled parameters are filled in.
    pub(super) fn stated<'t, 's>(
        &self,
        tool: &'t ToolProxy,
        limits: &Limits,
        state: Option<&'s mut dyn AgentState>,
        call: &ToolCall,
    ) -> Stated<'t, 's> {
        let (Some(state), Some(wiring)) = (state, tool.state_wiring()) else {
            return Stated::Plain;
        };
        if let Err(err) = limits.check_input(tool.name(), &call.args) {
            return Stated::Answered(self.refuse(call, err, limits));
        }
        // Hooks see, and may rewrite, what the JSON path fills and returns before it is merged,
        // so a toolbox with hooks always takes that path.
        if self.hooks.is_empty() {
            let span = CallSpan::new(&call.name, call.id.as_deref());
            let typed = span
                .span
                .in_scope(|| tool.run_typed_state(state, &call.args, limits));
            if let Some(outcome) = typed {
                span.finish(&outcome);
                let _entered = span.span.enter();
                let rendering = Rendering::of_tool(limits, tool);
                return Stated::Answered(self.hooks.report(call, outcome, rendering));
            }
        }
        match fill(wiring, tool.checked_parameters(), &*state, call) {
            Ok(filled) => Stated::Filled(Wired { state, wiring }, Box::new(filled)),
            Err(err) => Stated::Answered(self.refuse(call, err, limits)),
        }
    }

    /// Merges a successful result into state and shapes what the model reads. A result that
    /// cannot be merged is answered by the error instead, through the rendering step and the
    /// after-call hooks like every answer.
    pub(super) fn write_back(
        &self,
        wired: &mut Wired<'_, '_>,
        call: &ToolCall,
        mut result: ToolCallResult,
        limits: &Limits,
    ) -> ToolCallResult {
        if result.is_error {
            return result;
        }
        match wired
            .wiring
            .write(&call.name, &result.value, &mut *wired.state)
        {
            Ok(()) => {
                result.value = wired.wiring.shown(std::mem::take(&mut result.value));
                result
            }
            // The call's span has ended: the error is answered without a second one.
            Err(err) => self.hooks.report(call, Err(err), Rendering::of(limits)),
        }
    }
}

/// What the dispatch core's state steps leave to run.
pub(super) enum Stated<'t, 's> {
    /// No state, or a tool without a wiring: the call runs as it is.
    Plain,
    /// Answered already: on the typed path with state, or refused before it ran.
    Answered(ToolCallResult),
    /// The call with its state-filled parameters filled in, and the state to merge its result
    /// into.
    Filled(Wired<'t, 's>, Box<ToolCall>),
}

/// The state a call's result is merged into, and how.
pub(super) struct Wired<'t, 's> {
    state: &'s mut dyn AgentState,
    wiring: &'t StateWiring,
}

/// A call of a batch with its state-filled parameters filled in, its size checked first.
fn filled(
    tool: &ToolProxy,
    wiring: &StateWiring,
    limits: &Limits,
    state: &dyn AgentState,
    call: &ToolCall,
) -> Result<ToolCall, ToolError> {
    limits.check_input(tool.name(), &call.args)?;
    fill(wiring, tool.checked_parameters(), state, call)
}

/// The call with its state-filled parameters filled in (unchanged for arguments that are not an
/// object: the pipeline answers those).
fn fill(
    wiring: &StateWiring,
    parameters: &Value,
    state: &dyn AgentState,
    call: &ToolCall,
) -> Result<ToolCall, ToolError> {
    let mut args = match &call.args {
        Value::String(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => map,
            _ => return Ok(call.clone()),
        },
        Value::Object(map) => map.clone(),
        Value::Null => serde_json::Map::new(),
        _ => return Ok(call.clone()),
    };
    wiring.fill(&call.name, parameters, state, &mut args)?;
    Ok(ToolCall {
        id: call.id.clone(),
        name: call.name.clone(),
        args: Value::Object(args),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::ToolDefinition;
    use crate::state::{DynamicState, StateSchema};

    /// `double(n)`, with `n` filled from state and the result merged into `label`, a string key:
    /// an integer result cannot be merged.
    fn double() -> ToolProxy {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "note": {"type": "string"}}, "required": ["n"]});
        let tool = ToolProxy::from_fn(ToolDefinition::new("double", "Double n", schema), |args| {
            Ok::<_, String>(args["n"].as_i64().unwrap_or_default() * 2)
        });
        let wiring = StateWiring::new().input("n").output("label");
        tool.with_state(wiring).unwrap()
    }

    fn state() -> DynamicState {
        let schema = StateSchema::new()
            .key("n", json!({"type": "integer"}))
            .key("label", json!({"type": "string"}));
        let mut state = DynamicState::new(schema);
        state.merge("n", json!(21)).unwrap();
        state
    }

    #[test]
    fn a_call_with_state_is_measured_before_its_arguments_are_read_to_fill_state() {
        // Read first, the arguments would be refused for sending the state-filled "n".
        let toolbox = Toolbox::builder()
            .tool(double())
            .limits(Limits::default().with_max_input_bytes(64))
            .build()
            .unwrap();
        let args = json!({"n": 1, "note": "x".repeat(100)}).to_string();
        let result = toolbox.call_with_state(&mut state(), &ToolCall::new("double", json!(args)));
        assert_eq!(
            result.value,
            json!(
                "Error: the arguments for double are larger than its limit of 64 bytes; send \
                 less data, for example a shorter text or fewer items"
            )
        );
    }

    #[test]
    fn a_result_that_cannot_be_merged_is_answered_through_the_hooks_and_the_bound() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        let toolbox = Toolbox::builder()
            .tool(double())
            .limits(Limits::default().with_max_output_bytes(40))
            .after_call(move |_, result| {
                log.lock().unwrap().push(result.is_error);
            })
            .build()
            .unwrap();
        let mut state = state();
        let result = toolbox.call_with_state(&mut state, &ToolCall::new("double", json!({})));
        assert!(result.is_error, "{result:?}");
        // Cut to the bound like every answer (in full, the message is longer).
        assert_eq!(result.text(), "Error: double: the value for state key \"");
        // The hooks saw the tool's answer, then the error that answers the call.
        assert_eq!(*seen.lock().unwrap(), [false, true]);
        assert_eq!(state.to_json(), json!({"n": 21}));
    }
}
