//! Calls with state: the doors into the dispatch core (`dispatch`) that carry state, the steps
//! the core takes for them (size checked, state-filled parameters filled, the typed path with
//! state tried, results merged), and a batch in which a call that reads a key an earlier call
//! writes waits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Toolbox;
use super::batch::{Answer, Finished};
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
        self.dispatch(call, Some(state))
    }

    /// Runs one call from async code with `state`; see [`call_with_state`](Self::call_with_state).
    pub async fn acall_with_state(
        &self,
        state: &mut dyn AgentState,
        call: &ToolCall,
    ) -> ToolCallResult {
        self.adispatch(call, Some(state), None, self.resolve(&call.name))
            .await
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
        self.run_with_state(state, calls, None, None, self.concurrency)
            .await
    }

    /// The batch behind `call_all_with_state`: each call resolved once, then run round by round,
    /// the outcomes of the calls that write state merged in call order before they are answered.
    pub(super) async fn run_with_state(
        &self,
        state: &mut dyn AgentState,
        calls: Vec<ToolCall>,
        time: Option<Duration>,
        finished: Option<Arc<Finished>>,
        concurrency: usize,
    ) -> Vec<ToolCallResult> {
        let began = Instant::now();
        let targets: Vec<Option<usize>> = calls.iter().map(|c| self.index_of(&c.name)).collect();
        let rounds = self.rounds(&targets);
        let mut results: Vec<Option<ToolCallResult>> = vec![None; calls.len()];
        let tell = |position: usize, result: &ToolCallResult, took: Duration| {
            if let Some(finished) = &finished {
                finished(position, result, took);
            }
        };
        for round in 0..=rounds.iter().copied().max().unwrap_or(0) {
            let left = time.map(|time| time.saturating_sub(began.elapsed()));
            let mut members = Vec::new();
            for position in (0..calls.len()).filter(|&i| rounds[i] == round) {
                match self.member(position, targets[position], &calls[position], &*state, left) {
                    Ok(member) => members.push(member),
                    Err(refused) => {
                        tell(position, &refused, Duration::ZERO);
                        results[position] = Some(*refused);
                    }
                }
            }
            // The workers tell positions in the round's batch; `finished` wants the caller's.
            let positions: Vec<usize> = members.iter().map(|m| m.position).collect();
            let told = finished.clone().map(|finished| {
                Arc::new(move |at: usize, result: &ToolCallResult, took: Duration| {
                    finished(positions[at], result, took);
                }) as Arc<Finished>
            });
            let round_targets = members.iter().map(|m| m.target).collect();
            let kept = members.iter().map(|m| m.wiring.is_some()).collect();
            let round_calls = members.iter().map(|m| m.call.clone()).collect();
            let answers = self
                .run_batch(round_calls, round_targets, kept, left, told, concurrency)
                .await;
            for (member, answer) in members.into_iter().zip(answers) {
                let result = match answer {
                    Answer::Answered(result) => result,
                    Answer::Ran(ran) => {
                        let outcome = match member.wiring {
                            Some(wiring) => Wired {
                                state: &mut *state,
                                wiring,
                            }
                            .merge(
                                &ran.span,
                                &member.call,
                                ran.outcome,
                            ),
                            None => ran.outcome,
                        };
                        let rendering = ran.rendering;
                        let result =
                            (self.hooks).report_in(&ran.span, &member.call, outcome, rendering);
                        tell(member.position, &result, ran.took);
                        result
                    }
                };
                results[member.position] = Some(result);
            }
        }
        results.into_iter().flatten().collect()
    }

    /// The call at `position` of a batch with state as its round runs it: its state-filled
    /// parameters filled in when its tool is wired to state, or its refusal, answered.
    fn member<'t>(
        &'t self,
        position: usize,
        target: Option<usize>,
        call: &ToolCall,
        state: &dyn AgentState,
        left: Option<Duration>,
    ) -> Result<Member<'t>, Box<ToolCallResult>> {
        let tool = target.map(|at| &self.tools[at]);
        let Some((tool, wiring)) = tool.and_then(|tool| Some((tool, tool.state_wiring()?))) else {
            let call = call.clone();
            return Ok(Member {
                position,
                target,
                call,
                wiring: None,
            });
        };
        let limits = tool.options().limits.over(self.limits).cut_to(left);
        match filled(tool, wiring, &limits, state, call) {
            Ok(call) => Ok(Member {
                position,
                target,
                call,
                wiring: Some(wiring),
            }),
            Err(err) => Err(Box::new(self.refuse(call, err, &limits))),
        }
    }

    /// The round of each call (by its tool's position, `None` for an unknown tool): 0, or one
    /// more than the latest earlier call whose writes it reads.
    fn rounds(&self, targets: &[Option<usize>]) -> Vec<usize> {
        let wiring_of =
            |target: &Option<usize>| target.and_then(|at| self.tools[at].state_wiring());
        let mut rounds: Vec<usize> = Vec::with_capacity(targets.len());
        for target in targets {
            let round = wiring_of(target).map_or(0, |wiring| {
                let mut round = 0;
                for (earlier, before) in targets.iter().zip(&rounds) {
                    let writes = wiring_of(earlier).into_iter().flat_map(|w| w.writes());
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
        // Before-call hooks see the call with its state-filled parameters filled, which only
        // the JSON path makes; so a toolbox with them takes that path.
        if self.hooks.before.is_empty() {
            let span = CallSpan::new(&call.name, call.id.as_deref());
            let typed = span
                .span
                .in_scope(|| tool.run_typed_state(state, &call.args, limits));
            if let Some(outcome) = typed {
                span.finish(&outcome);
                let rendering = Rendering::of_tool(limits, tool);
                return Stated::Answered(self.hooks.report_in(&span, call, outcome, rendering));
            }
        }
        match fill(wiring, tool.checked_parameters(), &*state, call) {
            Ok(filled) => Stated::Filled(Wired { state, wiring }, Box::new(filled)),
            Err(err) => Stated::Answered(self.refuse(call, err, limits)),
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

/// A call of a batch with state, as its round runs it.
struct Member<'t> {
    /// Its position in the batch.
    position: usize,
    /// Its tool's position in the toolbox; `None` for an unknown tool.
    target: Option<usize>,
    /// The call, its state-filled parameters filled in.
    call: ToolCall,
    /// How its result is merged into state: its outcome is kept for that (`Answer::Ran`).
    wiring: Option<&'t StateWiring>,
}

/// The state a call's result is merged into, and how.
pub(super) struct Wired<'t, 's> {
    state: &'s mut dyn AgentState,
    wiring: &'t StateWiring,
}

impl Wired<'_, '_> {
    /// A call's outcome merged into state, before it is rendered: what the model is shown of a
    /// merged result, or the error that a result which cannot be merged becomes (recorded on the
    /// call's span too). A failed call changes nothing.
    pub(super) fn merge(
        &mut self,
        span: &CallSpan,
        call: &ToolCall,
        outcome: Result<Value, ToolError>,
    ) -> Result<Value, ToolError> {
        let value = outcome?;
        match self.wiring.write(&call.name, &value, &mut *self.state) {
            Ok(()) => Ok(self.wiring.shown(value)),
            Err(err) => {
                let failed = Err(err);
                span.finish(&failed);
                failed
            }
        }
    }
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
    fn a_result_that_cannot_be_merged_is_reported_once_through_the_hooks_and_the_bound() {
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
        // Merged before it is rendered and reported: the hooks saw one answer, the error.
        assert_eq!(*seen.lock().unwrap(), [true]);
        assert_eq!(state.to_json(), json!({"n": 21}));
    }

    /// `long()`, returning 100 copies of `letter`, merged into `label`, in a toolbox whose
    /// results are cut at 40 bytes.
    fn long_label(letter: char) -> Toolbox {
        let schema = json!({"type": "object", "properties": {}});
        let long = ToolProxy::from_fn(
            ToolDefinition::new("long", "A long label", schema),
            move |_| Ok::<_, String>(letter.to_string().repeat(100)),
        );
        let long = long.with_state(StateWiring::new().output("label")).unwrap();
        Toolbox::builder()
            .tool(long)
            .limits(Limits::default().with_max_output_bytes(40))
            .build()
            .unwrap()
    }

    #[test]
    fn an_output_cut_by_the_bound_reaches_state_whole() {
        let mut state = state();
        let call = ToolCall::new("long", json!({}));
        let result = long_label('x').call_with_state(&mut state, &call);
        // The model reads the result cut to the bound; state holds what the tool returned.
        assert!(!result.is_error, "{result:?}");
        assert!(result.text().len() < 100, "{}", result.text());
        assert_eq!(state.to_json()["label"], json!("x".repeat(100)));
    }

    #[tokio::test]
    async fn a_batch_with_state_merges_each_output_before_it_is_cut() {
        let mut state = state();
        let calls = vec![ToolCall::new("long", json!({}))];
        let results = long_label('y').call_all_with_state(&mut state, calls).await;
        assert!(results[0].text().len() < 100, "{}", results[0].text());
        assert_eq!(state.to_json()["label"], json!("y".repeat(100)));
    }
}
