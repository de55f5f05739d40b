//! Calls with state: state-filled parameters filled before the pipeline, results merged into
//! state after it, and a batch in which a call that reads a key an earlier call writes waits.

use serde_json::Value;

use super::Toolbox;
use crate::call::CallSpan;
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
        let Some(wiring) = self.wiring(&call.name) else {
            return self.call(call);
        };
        if let Some(result) = self.call_typed_state(state, call) {
            return result;
        }
        let filled = match fill(wiring, &*state, call) {
            Ok(filled) => filled,
            Err(err) => return self.refuse(call, err),
        };
        let result = self.call(&filled);
        self.write_back(Some(wiring.0), state, call, result)
    }

    /// Runs one call from async code with `state`; see [`call_with_state`](Self::call_with_state).
    pub async fn acall_with_state(
        &self,
        state: &mut dyn AgentState,
        call: &ToolCall,
    ) -> ToolCallResult {
        let Some(wiring) = self.wiring(&call.name) else {
            return self.acall(call).await;
        };
        // A sync body runs inline on the typed path, as the async pipeline runs it.
        if let Some(result) = self.call_typed_state(state, call) {
            return result;
        }
        let filled = match fill(wiring, &*state, call) {
            Ok(filled) => filled,
            Err(err) => return self.refuse(call, err),
        };
        let result = self.acall(&filled).await;
        self.write_back(Some(wiring.0), state, call, result)
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
                match self
                    .wiring(&call.name)
                    .map(|wiring| fill(wiring, &*state, call))
                {
                    None => ready.push((position, call.clone())),
                    Some(Ok(filled)) => ready.push((position, filled)),
                    Some(Err(err)) => results[position] = Some(self.refuse(call, err)),
                }
            }
            let (positions, filled): (Vec<usize>, Vec<ToolCall>) = ready.into_iter().unzip();
            let done = self.call_all(filled).await;
            for (position, result) in positions.into_iter().zip(done) {
                let call = &calls[position];
                let wiring = self.wiring(&call.name).map(|(wiring, _)| wiring);
                results[position] = Some(self.write_back(wiring, state, call, result));
            }
        }
        results.into_iter().flatten().collect()
    }

    /// The round of each call: 0, or one more than the latest earlier call whose writes it reads.
    fn rounds(&self, calls: &[ToolCall]) -> Vec<usize> {
        let mut rounds: Vec<usize> = Vec::with_capacity(calls.len());
        for call in calls {
            let round = self.wiring(&call.name).map_or(0, |(wiring, _)| {
                let mut round = 0;
                for (earlier, before) in calls.iter().zip(&rounds) {
                    let writes = self
                        .wiring(&earlier.name)
                        .into_iter()
                        .flat_map(|(wiring, _)| wiring.writes());
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

    /// The call on its tool's typed path with state (`ToolProxy::run_typed_state`), or `None`
    /// when the JSON path must decide. Hooks see, and may rewrite, what the JSON path fills and
    /// returns before it is merged, so a toolbox with hooks always takes that path.
    fn call_typed_state(
        &self,
        state: &mut dyn AgentState,
        call: &ToolCall,
    ) -> Option<ToolCallResult> {
        if !self.hooks.is_empty() {
            return None;
        }
        let tool = self.get(&call.name)?;
        let limits = self.limits.for_tool(tool.options());
        let span = CallSpan::new(&call.name, call.id.as_deref());
        let outcome = span
            .span
            .in_scope(|| tool.run_typed_state(state, &call.args, &limits))?;
        span.finish(&outcome);
        let _entered = span.span.enter();
        Some(self.hooks.report(call, outcome, &limits))
    }

    /// The tool's wiring and the full parameter schema it is checked against.
    fn wiring(&self, name: &str) -> Option<(&StateWiring, &Value)> {
        let tool = self.get(name)?;
        Some((tool.state_wiring()?, tool.checked_parameters()))
    }

    /// The error result of a call refused before it ran, through the after-call hooks.
    fn refuse(&self, call: &ToolCall, err: ToolError) -> ToolCallResult {
        self.hooks.report(call, Err(err), &self.limits)
    }

    /// Merges a successful result into state and shapes what the model reads; a result that
    /// cannot be merged becomes an error result.
    fn write_back(
        &self,
        wiring: Option<&StateWiring>,
        state: &mut dyn AgentState,
        call: &ToolCall,
        mut result: ToolCallResult,
    ) -> ToolCallResult {
        let Some(wiring) = wiring else {
            return result;
        };
        if result.is_error {
            return result;
        }
        match wiring.write(&call.name, &result.value, state) {
            Ok(()) => {
                result.value = wiring.shown(std::mem::take(&mut result.value));
                result
            }
            Err(err) => ToolCallResult::from_outcome(call, Err(err)),
        }
    }
}

/// The call with its state-filled parameters filled in (unchanged for arguments that are not an
/// object: the pipeline answers those).
fn fill(
    (wiring, parameters): (&StateWiring, &Value),
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
