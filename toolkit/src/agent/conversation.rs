//! Conversations carried across runs, and the token budget that keeps the history sent to the
//! model within the context window.

use serde::{Deserialize, Serialize};

use super::{AgentBuilder, AgentRun};
use crate::models::{Message, Usage};

/// The history of a conversation, carried from one run to the next with
/// [`RunRequest::conversation`](super::RunRequest::conversation); serde-serializable, so it can be saved between
/// requests.
///
/// Each run starts with the agent's own system prompt (the conversation's is replaced), then
/// the conversation's messages, then the new input.
///
/// ```
/// use toolkit::agent::{Agent, Conversation};
/// use toolkit::models::{ModelReply, ScriptedModel};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model = ScriptedModel::new([ModelReply::text("Hello, Ana."), ModelReply::text("Ana.")]);
/// let agent = Agent::builder(model).system_prompt("Be brief.").build();
/// let mut conversation = Conversation::new();
/// agent.run("I am Ana.").conversation(&mut conversation).await.unwrap();
/// let saved = serde_json::to_string(&conversation).unwrap();
/// let mut conversation: Conversation = serde_json::from_str(&saved).unwrap();
/// let run = agent.run("Who am I?").conversation(&mut conversation).await.unwrap();
/// assert_eq!(run.answer, "Ana.");
/// assert_eq!(conversation.messages.len(), 5); // system, and two turns of user and assistant
/// # });
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Conversation {
    /// Every message kept, system prompt first.
    pub messages: Vec<Message>,
    /// Tokens summed over the conversation's runs, when the model reports them.
    #[serde(default)]
    pub usage: Option<Usage>,
}

impl Conversation {
    /// An empty conversation.
    pub fn new() -> Self {
        Conversation::default()
    }

    /// Takes a finished run's history and usage, as
    /// [`RunRequest::conversation`](super::RunRequest::conversation) does: for a run resumed after a pause, or run otherwise.
    pub fn record<O>(&mut self, run: &AgentRun<O>) {
        self.messages = run.history.clone();
        if let Some(usage) = run.usage {
            *self.usage.get_or_insert_with(Usage::default) += usage;
        }
    }
}

impl<A> AgentBuilder<A> {
    /// The most tokens of history sent to the model: before each model call, past it, the
    /// oldest turns are dropped (a turn starts at a user message, so a tool call never loses
    /// its result), keeping the system prompt and the latest turn whatever their size. Tokens
    /// are the provider's count where a reply reported one, plus about a token per 4 bytes of
    /// JSON for what came after; an estimate elsewhere.
    pub fn context_budget(mut self, tokens: usize) -> Self {
        self.agent.context_budget = Some(tokens);
        self
    }
}

/// About how many tokens a message takes: a token per 4 bytes of its JSON.
fn estimate(message: &Message) -> usize {
    serde_json::to_vec(message)
        .map_or(0, |bytes| bytes.len())
        .div_ceil(4)
}

/// What the provider counted: the history's first `sent` messages (and the reply after them)
/// took `tokens`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Counted {
    pub(super) sent: usize,
    pub(super) tokens: u64,
}

/// Drops the oldest turns of `history` until it fits `budget`; returns how many messages went.
pub(super) fn trim(history: &mut Vec<Message>, budget: usize, counted: Option<Counted>) -> usize {
    let sizes: Vec<usize> = history.iter().map(estimate).collect();
    let total = match counted {
        Some(counted) if counted.sent < history.len() => {
            // The provider's count may be anything a server sent: saturate, never wrap.
            let counted_tokens = usize::try_from(counted.tokens).unwrap_or(usize::MAX);
            counted_tokens.saturating_add(sizes[counted.sent + 1..].iter().sum::<usize>())
        }
        _ => sizes.iter().sum(),
    };
    let Some(mut excess) = total.checked_sub(budget).filter(|excess| *excess > 0) else {
        return 0;
    };
    let start = history
        .iter()
        .take_while(|message| matches!(message, Message::System { .. }))
        .count();
    let turns: Vec<usize> = (start..history.len())
        .filter(|&at| matches!(history[at], Message::User { .. }))
        .collect();
    // The first turn may be preceded by messages that are no turn's (a conversation saved
    // mid-way); they go first. The last turn always stays.
    let mut cut = start;
    for &next in turns.iter().skip_while(|&&at| at == start) {
        if excess == 0 {
            break;
        }
        excess = excess.saturating_sub(sizes[cut..next].iter().sum());
        cut = next;
    }
    history.drain(start..cut);
    cut - start
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ToolCall, ToolCallResult};

    fn turn(n: usize) -> Vec<Message> {
        let call = ToolCall::new("t", json!({"n": n})).with_id(format!("c{n}"));
        let result = ToolCallResult::from_outcome(&call, Ok(json!("x".repeat(100))));
        vec![
            Message::user(format!("question {n}")),
            Message::assistant_calls(None, vec![call]),
            Message::Tool { result },
            Message::assistant(format!("answer {n}")),
        ]
    }

    #[test]
    fn the_oldest_turns_go_whole_and_the_system_prompt_stays() {
        let mut history = vec![Message::system("be brief")];
        history.extend((1..=3).flat_map(turn));
        let one_turn: usize = turn(3).iter().map(estimate).sum();
        let budget = estimate(&history[0]) + 2 * one_turn;
        assert_eq!(trim(&mut history, budget, None), 4);
        assert_eq!(history[0], Message::system("be brief"));
        assert_eq!(history[1], Message::user("question 2"));
        assert_eq!(history.len(), 9);
    }

    #[test]
    fn the_last_turn_stays_whatever_its_size() {
        let mut history = vec![Message::system("be brief")];
        history.extend((1..=2).flat_map(turn));
        assert_eq!(trim(&mut history, 1, None), 4);
        assert_eq!(history[1], Message::user("question 2"));
    }

    #[test]
    fn the_providers_count_is_trusted_for_what_it_covered() {
        let mut history: Vec<Message> = (1..=2).flat_map(turn).collect();
        // The provider counted 10 tokens for the first three messages and the reply after.
        let counted = Some(Counted {
            sent: 2,
            tokens: 10,
        });
        let after: usize = history[3..].iter().map(estimate).sum();
        assert_eq!(trim(&mut history, 10 + after, counted), 0);
        assert_eq!(trim(&mut history, 10 + after - 1, counted), 4);
    }
}
