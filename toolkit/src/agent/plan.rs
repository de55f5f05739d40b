//! What a reply's calls become before any of them runs: each gets an id no other call of its
//! reply has, so every result goes back paired with its own call; the first
//! `max_tool_calls_per_step` run; the rest, and the calls the model client refused, are answered
//! with an error result.

use std::collections::{HashMap, HashSet};

use crate::models::RefusedCall;
use crate::{ToolCall, ToolCallResult, ToolError};

/// One call of a reply, as the step will treat it.
pub(super) enum Planned {
    /// Runs.
    Run(ToolCall),
    /// Does not run; its error result answers it.
    Refuse(RefusedCall),
    /// Does not run: a person denied it, for this reason.
    Deny(ToolCall, String),
    /// Does not run, though it was read whole; this result answers it.
    Reject(ToolCall, ToolCallResult),
}

impl Planned {
    /// The call as it goes back to the server in the history.
    pub(super) fn call(&self) -> &ToolCall {
        match self {
            Planned::Run(call) => call,
            Planned::Refuse(refused) => &refused.call,
            Planned::Deny(call, _) => call,
            Planned::Reject(call, _) => call,
        }
    }

    /// The error result of a call that does not run.
    pub(super) fn answer(&self) -> Option<ToolCallResult> {
        match self {
            Planned::Run(_) => None,
            Planned::Refuse(refused) => Some(refused.answer()),
            Planned::Deny(call, reason) => {
                let error = ToolError::Rejected {
                    tool: call.name.clone(),
                    reason: format!("a person denied it: {reason}"),
                };
                Some(ToolCallResult::from_outcome(call, Err(error)))
            }
            Planned::Reject(_, result) => Some(result.clone()),
        }
    }
}

/// The calls of step `step`'s reply, in the order the model gave them (refused calls last), at
/// most `limit` of them to run.
pub(super) fn plan(
    step: usize,
    calls: Vec<ToolCall>,
    refused: Vec<RefusedCall>,
    limit: usize,
) -> Vec<Planned> {
    let asked = calls.len();
    let mut ids = Ids::default();
    let mut planned = Vec::with_capacity(asked + refused.len());
    for (position, mut call) in calls.into_iter().enumerate() {
        call.id = Some(ids.unique(call.id.take(), step, position));
        planned.push(match position < limit {
            true => Planned::Run(call),
            false => Planned::Refuse(RefusedCall::new(call, over_limit(asked, limit))),
        });
    }
    for (offset, mut refused) in refused.into_iter().enumerate() {
        let id = ids.unique(refused.call.id.take(), step, asked + offset);
        refused.call.id = Some(id);
        planned.push(Planned::Refuse(refused));
    }
    planned
}

fn over_limit(asked: usize, limit: usize) -> String {
    format!(
        "not run: the reply asked for {asked} tool calls and at most {limit} run in one step; \
         ask for the rest in your next reply"
    )
}

/// The ids given so far in one reply.
#[derive(Default)]
struct Ids {
    given: HashSet<String>,
    /// The last suffix tried per id, so ten thousand copies of one id cost no more than ten
    /// thousand distinct ones.
    suffixes: HashMap<String, usize>,
}

impl Ids {
    /// `id`, or `call_{step}_{position}` for a call without one, with `_2`, `_3`... appended
    /// when another call of the reply has it already.
    fn unique(&mut self, id: Option<String>, step: usize, position: usize) -> String {
        let id = id.unwrap_or_else(|| format!("call_{step}_{position}"));
        if self.given.insert(id.clone()) {
            return id;
        }
        let suffix = self.suffixes.entry(id.clone()).or_insert(1);
        loop {
            *suffix += 1;
            let candidate = format!("{id}_{suffix}");
            if self.given.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ids(planned: &[Planned]) -> Vec<&str> {
        planned
            .iter()
            .map(|p| p.call().id.as_deref().unwrap_or_default())
            .collect()
    }

    #[test]
    fn a_repeated_id_gets_a_suffix_no_other_call_has() {
        let call = |id: &str| ToolCall::new("t", json!({})).with_id(id);
        let calls = vec![call("a"), call("a"), call("a_2"), call("a"), call("b")];
        let planned = plan(1, calls, Vec::new(), 64);
        assert_eq!(ids(&planned), ["a", "a_2", "a_2_2", "a_3", "b"]);
    }

    #[test]
    fn calls_past_the_limit_are_refused_without_their_arguments() {
        let calls = (0..3)
            .map(|n| ToolCall::new("t", json!({"n": n})))
            .collect();
        let planned = plan(2, calls, Vec::new(), 2);
        assert_eq!(ids(&planned), ["call_2_0", "call_2_1", "call_2_2"]);
        assert!(matches!(&planned[1], Planned::Run(call) if call.args == json!({"n": 1})));
        let Planned::Refuse(refused) = &planned[2] else {
            panic!("the third call ran")
        };
        assert_eq!(refused.call.args, json!({}));
        assert_eq!(
            refused.reason,
            "not run: the reply asked for 3 tool calls and at most 2 run in one step; \
             ask for the rest in your next reply"
        );
    }
}
