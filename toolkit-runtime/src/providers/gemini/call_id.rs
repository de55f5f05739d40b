//! Call ids as Gemini has them: a `functionCall` usually carries none, and Gemini pairs each
//! `functionResponse` with its call by order and name; when one carries an `id`, the response
//! echoes it.
//!
//! A caller still needs an id to pair a result with its call (an agent runs a reply's calls
//! concurrently and reports each by id), so a call read without one gets a local id, its
//! position in the reply, marked as local by its prefix. The request never sends a local id
//! back: Gemini would read a made-up id as one it gave.

use crate::ToolCall;

/// What starts every local id; no id Gemini gives has it.
const LOCAL: &str = "gemini-local-";

/// Gives each of a reply's calls that came without an id a local one; `first` is the position
/// of `calls[0]` in the reply (a stream reads its calls a chunk at a time).
pub(super) fn name_unnamed(calls: &mut [ToolCall], first: usize) {
    for (position, call) in (first..).zip(calls) {
        call.id.get_or_insert_with(|| format!("{LOCAL}{position}"));
    }
}

/// The id to send with a call or its response: Gemini's own, never a local one.
pub(super) fn on_wire(id: Option<&str>) -> Option<&str> {
    id.filter(|id| !id.starts_with(LOCAL))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn geminis_ids_go_back_and_local_ones_never_do() {
        let mut calls = vec![
            ToolCall::new("a", json!({})),
            ToolCall::new("b", json!({})).with_id("fc-7"),
        ];
        name_unnamed(&mut calls, 3);
        let ids: Vec<_> = calls.iter().map(|call| call.id.as_deref()).collect();
        assert_eq!(ids, [Some("gemini-local-3"), Some("fc-7")]);
        assert_eq!(on_wire(ids[1]), Some("fc-7"));
        assert_eq!(on_wire(ids[0]), None);
        assert_eq!(on_wire(None), None);
    }
}
