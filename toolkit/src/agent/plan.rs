//! What a reply's calls become before any of them runs: each gets an id no other call of its
//! reply has, so every result goes back paired with its own call; the first
//! `max_tool_calls_per_step` run, and the calls the model client refused are answered with an
//! error result; the calls past the limit are left out of the history, summed up in one note.

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
}

impl Planned {
    /// The call as it goes back to the server in the history.
    pub(super) fn call(&self) -> &ToolCall {
        match self {
            Planned::Run(call) => call,
            Planned::Refuse(refused) => &refused.call,
            Planned::Deny(call, _) => call,
        }
    }

    /// The call, and the error result that answers it when it does not run.
    pub(super) fn into_parts(self) -> (ToolCall, Option<ToolCallResult>) {
        match self {
            Planned::Run(call) => (call, None),
            Planned::Refuse(refused) => {
                let result = refused.answer();
                (refused.call, Some(result))
            }
            Planned::Deny(call, reason) => {
                let error = ToolError::Rejected {
                    tool: call.name.clone(),
                    reason: format!("a person denied it: {reason}"),
                };
                let result = ToolCallResult::from_outcome(&call, Err(error));
                (call, Some(result))
            }
        }
    }
}

/// A reply's calls as the step treats them, and the note on those left out.
pub(super) struct Plan {
    /// The calls that go back to the server in the history, in the model's order.
    pub(super) calls: Vec<Planned>,
    /// What the model is told of the calls past the step's limit, which are left out of the
    /// history altogether: one message instead of one error result each, as the history is
    /// sent again with every later request.
    pub(super) note: Option<String>,
}

/// The calls of step `step`'s reply, in the order the model gave them (refused calls last): at
/// most `limit` of them run, at most `limit` refused ones are answered each, and the rest are
/// summed up in one note.
pub(super) fn plan(
    step: usize,
    calls: Vec<ToolCall>,
    refused: Vec<RefusedCall>,
    limit: usize,
) -> Plan {
    let asked = calls.len();
    let (over, unread) = (
        asked.saturating_sub(limit),
        refused.len().saturating_sub(limit),
    );
    let mut ids = Ids::default();
    let mut planned = Vec::with_capacity(asked.min(limit) + refused.len().min(limit));
    for (position, mut call) in calls.into_iter().take(limit).enumerate() {
        call.id = Some(ids.unique(call.id.take(), step, position));
        planned.push(Planned::Run(call));
    }
    for (offset, mut refused) in refused.into_iter().take(limit).enumerate() {
        let id = ids.unique(refused.call.id.take(), step, asked.saturating_add(offset));
        refused.call.id = Some(id);
        planned.push(Planned::Refuse(refused));
    }
    Plan {
        calls: planned,
        note: left_out(asked, limit, over, unread),
    }
}

/// The note on a reply's calls left out: `over` past the limit of `limit` of `asked`, and
/// `unread` refused ones past it too.
fn left_out(asked: usize, limit: usize, over: usize, unread: usize) -> Option<String> {
    let mut note = Vec::new();
    if over > 0 {
        note.push(format!(
            "Not run: your reply asked for {asked} tool calls and at most {limit} run in one \
             step, so the {over} calls after the first {limit} were left out; ask for the rest \
             in your next reply."
        ));
    }
    if unread > 0 {
        note.push(format!(
            "{unread} more calls of your reply could not be read and were left out too."
        ));
    }
    (!note.is_empty()).then(|| note.join(" "))
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
        let planned = plan(1, calls, Vec::new(), 64).calls;
        assert_eq!(ids(&planned), ["a", "a_2", "a_2_2", "a_3", "b"]);
    }

    #[test]
    fn calls_past_the_limit_are_left_out_and_summed_up_in_one_note() {
        let calls = (0..5)
            .map(|n| ToolCall::new("t", json!({"n": n})))
            .collect();
        let refused = (0..3)
            .map(|n| RefusedCall::new(ToolCall::new("u", json!(null)), format!("bad {n}")))
            .collect();
        let planned = plan(2, calls, refused, 2);
        assert_eq!(
            ids(&planned.calls),
            ["call_2_0", "call_2_1", "call_2_5", "call_2_6"]
        );
        assert!(matches!(&planned.calls[1], Planned::Run(call) if call.args == json!({"n": 1})));
        assert!(matches!(&planned.calls[3], Planned::Refuse(r) if r.reason == "bad 1"));
        assert_eq!(
            planned.note.as_deref(),
            Some(
                "Not run: your reply asked for 5 tool calls and at most 2 run in one step, so \
                 the 3 calls after the first 2 were left out; ask for the rest in your next \
                 reply. 1 more calls of your reply could not be read and were left out too."
            )
        );
        assert!(plan(1, Vec::new(), Vec::new(), 2).note.is_none());
    }
}
