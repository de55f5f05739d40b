//! The run tree's budget: model calls, tool calls and tokens shared by a run and every agent it
//! calls as a tool. The depth limit bounds how deep agents call agents; this bounds how wide:
//! eight sub-agent calls a reply at each of four levels made 9,362 model calls in one run.

use std::sync::atomic::{AtomicU64, Ordering};

use super::AgentBuilder;

/// What a run and every agent it calls as a tool (at any depth) may spend together: model
/// calls, tool calls and tokens. A run past a limit stops with
/// [`AgentError::Budget`](super::AgentError::Budget); an agent called as a tool that stops so
/// is an error result its caller's model reads, and a tool call past the limit is answered
/// with an error and does not run.
///
/// The budget of the run at the root of the tree applies to the whole tree: the settings of
/// an agent called as a tool count only when no agent called it (an MCP client, say).
///
/// ```
/// use toolkit::agent::{Agent, RunBudget};
/// use toolkit::models::{ModelReply, ScriptedModel};
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let model = ScriptedModel::new([ModelReply::text("done")]);
/// let budget = RunBudget::default().model_calls(10).tokens(50_000);
/// let agent = Agent::builder(model).run_budget(budget).build();
/// assert_eq!(agent.run("go").await.unwrap().answer, "done");
/// # });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunBudget {
    /// The most model calls of the whole tree.
    pub model_calls: u64,
    /// The most tool calls of the whole tree, agents called as tools included.
    pub tool_calls: u64,
    /// The most tokens (input and output, as the models report them) of the whole tree.
    pub tokens: u64,
}

impl RunBudget {
    /// Model calls unless told otherwise: ten runs of the default 20 steps.
    pub const DEFAULT_MODEL_CALLS: u64 = 200;
    /// Tool calls unless told otherwise: more than one run's 20 steps of 64 calls.
    pub const DEFAULT_TOOL_CALLS: u64 = 2_000;
    /// Tokens unless told otherwise.
    pub const DEFAULT_TOKENS: u64 = 10_000_000;

    /// No limit at all (each count `u64::MAX`): the tree is bounded only by each run's steps
    /// and the depth limit.
    pub fn unlimited() -> Self {
        RunBudget {
            model_calls: u64::MAX,
            tool_calls: u64::MAX,
            tokens: u64::MAX,
        }
    }

    /// The same budget with at most `calls` model calls.
    pub fn model_calls(mut self, calls: u64) -> Self {
        self.model_calls = calls;
        self
    }

    /// The same budget with at most `calls` tool calls.
    pub fn tool_calls(mut self, calls: u64) -> Self {
        self.tool_calls = calls;
        self
    }

    /// The same budget with at most `tokens` tokens.
    pub fn tokens(mut self, tokens: u64) -> Self {
        self.tokens = tokens;
        self
    }
}

impl Default for RunBudget {
    fn default() -> Self {
        RunBudget {
            model_calls: Self::DEFAULT_MODEL_CALLS,
            tool_calls: Self::DEFAULT_TOOL_CALLS,
            tokens: Self::DEFAULT_TOKENS,
        }
    }
}

impl<A> AgentBuilder<A> {
    /// What a run of this agent and every agent it calls as a tool may spend together
    /// (default [`RunBudget::default`]).
    pub fn run_budget(mut self, budget: RunBudget) -> Self {
        self.agent.budget = budget;
        self
    }
}

/// What a run tree has spent of its budget; shared by every run of the tree through its link.
#[derive(Debug)]
pub(super) struct Spending {
    limits: RunBudget,
    model_calls: AtomicU64,
    tool_calls: AtomicU64,
    tokens: AtomicU64,
}

impl Spending {
    pub(super) fn new(limits: RunBudget) -> Self {
        Spending {
            limits,
            model_calls: AtomicU64::new(0),
            tool_calls: AtomicU64::new(0),
            tokens: AtomicU64::new(0),
        }
    }

    /// Takes one model call, or says why none is left (the tokens spent count too).
    pub(super) fn model_call(&self) -> Result<(), String> {
        let tokens = self.tokens.load(Ordering::Relaxed);
        // `u64::MAX` is no limit: a saturated count would otherwise reach it.
        if tokens >= self.limits.tokens && self.limits.tokens != u64::MAX {
            return Err(spent(self.limits.tokens, "tokens"));
        }
        match take(&self.model_calls, self.limits.model_calls) {
            true => Ok(()),
            false => Err(spent(self.limits.model_calls, "model calls")),
        }
    }

    /// Takes one tool call, or says why none is left.
    pub(super) fn tool_call(&self) -> Result<(), String> {
        match take(&self.tool_calls, self.limits.tool_calls) {
            true => Ok(()),
            false => Err(spent(self.limits.tool_calls, "tool calls")),
        }
    }

    /// Counts tokens a model call used.
    pub(super) fn spend_tokens(&self, tokens: u64) {
        // `fetch_update` with a closure that always answers cannot fail.
        let _ = (self.tokens).fetch_update(Ordering::Relaxed, Ordering::Relaxed, |spent| {
            Some(spent.saturating_add(tokens))
        });
    }
}

/// Takes one of `counter` if fewer than `limit` are taken.
fn take(counter: &AtomicU64, limit: u64) -> bool {
    (counter)
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |taken| {
            (taken < limit).then(|| taken.saturating_add(1))
        })
        .is_ok()
}

fn spent(limit: u64, what: &str) -> String {
    format!(
        "the run's budget of {limit} {what}, shared with the agents it calls as tools, is spent"
    )
}
