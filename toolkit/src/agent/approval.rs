//! Human approval: which calls wait for a person's yes, asking an approval handler, and pausing
//! a run with a resume token when there is none.
//!
//! The gate sits between a reply's planned calls and their dispatch, so every way calls run
//! (one by one, concurrently, through state, ReAct) passes it. A resume trusts nothing in the
//! token to decide what needs approval: the calls come from the history's last reply, and the
//! policy is asked again.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::plan::Planned;
use super::react::{self, ReactReply};
use super::{Agent, AgentBuilder, AgentError};
use crate::models::{BoxFuture, Message, RefusedCall, Usage};
use crate::{ToolCall, Toolbox};

type ApproveFn = dyn Fn(ApprovalRequest) -> BoxFuture<'static, Verdict> + Send + Sync;
type NeedsFn = dyn Fn(&ToolCall) -> bool + Send + Sync;

/// Which calls need a person's approval beyond the tools marked `#[tool(needs_approval)]`
/// ([`ToolOptions::needs_approval`](crate::ToolOptions::needs_approval)), which always do.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum ApprovalPolicy {
    /// Only the tools marked `needs_approval`.
    #[default]
    Marked,
    /// Those, and every tool annotated destructive (`#[tool(destructive)]`).
    Destructive,
    /// Those, and every call for which the closure says so.
    When(Arc<NeedsFn>),
}

impl ApprovalPolicy {
    /// Those marked, and every call for which `needs` says so.
    pub fn when(needs: impl Fn(&ToolCall) -> bool + Send + Sync + 'static) -> Self {
        ApprovalPolicy::When(Arc::new(needs))
    }
}

impl std::fmt::Debug for ApprovalPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ApprovalPolicy::Marked => "Marked",
            ApprovalPolicy::Destructive => "Destructive",
            ApprovalPolicy::When(_) => "When(..)",
        })
    }
}

/// The agent's approval settings.
#[derive(Default)]
pub(super) struct Approval {
    policy: ApprovalPolicy,
    handler: Option<Arc<ApproveFn>>,
}

/// A call waiting for approval, as the handler is asked.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The step of the call.
    pub step: usize,
    /// The call: tool, arguments and id.
    pub call: ToolCall,
}

/// A person's answer to one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Run it.
    Approve,
    /// Do not run it; the model reads the reason in the call's error result.
    Deny(String),
}

/// The answer to one pending call of a paused run: the call as the person saw it, and the
/// verdict. It applies only to a call with the same id, tool and arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The call decided on.
    pub call: ToolCall,
    /// The answer.
    pub verdict: Verdict,
}

impl Decision {
    /// Approves `call`.
    pub fn approve(call: &ToolCall) -> Self {
        Decision {
            call: call.clone(),
            verdict: Verdict::Approve,
        }
    }

    /// Denies `call`, telling the model why.
    pub fn deny(call: &ToolCall, reason: impl Into<String>) -> Self {
        Decision {
            call: call.clone(),
            verdict: Verdict::Deny(reason.into()),
        }
    }
}

/// What a paused run needs to go on, in this process or another: the history (ending with the
/// reply whose calls wait), the step, usage and retry counters, and the calls that wait.
/// Serialize it with serde; resume with [`Agent::resume`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResumeToken {
    version: u32,
    history: Vec<Message>,
    step: usize,
    react: bool,
    usage: Option<Usage>,
    output_failures: usize,
    /// Calls of the step answered without running (over the step's limit, unreadable).
    refused: Vec<RefusedCall>,
    pending: Vec<ToolCall>,
    /// The state's JSON when the run had one (`AgentState::to_json`).
    #[serde(default)]
    state: Option<serde_json::Value>,
    /// The note on the step's calls past its limit, sent after the step's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl ResumeToken {
    const VERSION: u32 = 1;

    /// The calls that wait for a decision.
    pub fn pending(&self) -> &[ToolCall] {
        &self.pending
    }

    /// The messages up to the reply whose calls wait.
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The run's state as JSON when it ran with one: rebuild the state from it for
    /// [`RunRequest::state`](super::RunRequest::state) on [`Agent::resume`](super::Agent::resume).
    pub fn state(&self) -> Option<&serde_json::Value> {
        self.state.as_ref()
    }

    /// The step the calls belong to.
    pub fn step(&self) -> usize {
        self.step
    }
}

/// A pause, before the history is attached.
pub(super) struct Pending {
    step: usize,
    refused: Vec<RefusedCall>,
    pending: Vec<ToolCall>,
    /// The note on the step's calls past its limit.
    pub(super) note: Option<String>,
}

/// A resumed step's calls, decided, ready to finish, and the run's place.
pub(super) struct Resumed {
    pub(super) step: usize,
    pub(super) thought: Option<String>,
    pub(super) planned: Vec<Planned>,
    pub(super) history: Vec<Message>,
    pub(super) usage: Option<Usage>,
    pub(super) output_failures: usize,
    /// The note on the step's calls past its limit.
    pub(super) note: Option<String>,
}

impl<A> AgentBuilder<A> {
    /// Which calls need approval besides the tools marked `#[tool(needs_approval)]`.
    pub fn approval_policy(mut self, policy: ApprovalPolicy) -> Self {
        self.agent.approval.policy = policy;
        self
    }

    /// Asks `handler` about each call that needs approval, before it runs; a denied call
    /// reaches the model as an error result with the reason. Without a handler, a run with
    /// such a call pauses ([`AgentError::Paused`]).
    ///
    /// ```
    /// use toolkit::agent::{Agent, Verdict};
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// let drop_table = ToolBuilder::new("drop_table")
    ///     .description("Drop a table")
    ///     .build(|_| Ok::<_, String>("dropped"))
    ///     .unwrap()
    ///     .with_options(|options| options.needs_approval = true);
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("drop_table", json!({}))]),
    ///     ModelReply::text("I was not allowed to."),
    /// ]);
    /// let agent = Agent::builder(model)
    ///     .toolbox(Toolbox::builder().tool(drop_table).build().unwrap())
    ///     .on_approval(|_request| async { Verdict::Deny("not on a Friday".into()) })
    ///     .build();
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let run = agent.run("clean up").await.unwrap();
    /// assert_eq!(
    ///     run.tool_calls().next().unwrap().result.text(),
    ///     "Error: the call to drop_table was refused: a person denied it: not on a Friday"
    /// );
    /// # });
    /// ```
    pub fn on_approval<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Verdict> + Send + 'static,
    {
        self.agent.approval.handler = Some(Arc::new(move |request| Box::pin(handler(request))));
        self
    }
}

impl Agent {
    /// Whether `call` waits for a person's approval before it runs.
    /// Whether `call` waits for approval, as a call through `toolbox`, the step's.
    fn needs_approval(&self, toolbox: &Toolbox, call: &ToolCall) -> bool {
        let Some(tool) = toolbox.get(&call.name) else {
            // An unknown tool (or one the step's `prepare` left out) never runs: the step's
            // toolbox answers its call with an error.
            return false;
        };
        if (self.output.as_ref()).is_some_and(|o| o.is_answer_tool(self.react, &call.name)) {
            // The typed answer's own tool (it replaced any other of its name): it only checks.
            return false;
        }
        let options = tool.options();
        options.needs_approval
            || match &self.approval.policy {
                ApprovalPolicy::Marked => false,
                ApprovalPolicy::Destructive => options.annotations.destructive == Some(true),
                ApprovalPolicy::When(needs) => needs(call),
            }
    }
}

/// A step's planned calls once approved: each call that needs approval is asked about, and
/// denied ones are answered with their reason; without a handler the run pauses.
pub(super) async fn approve(
    agent: &Agent,
    toolbox: &Toolbox,
    step: usize,
    planned: Vec<Planned>,
) -> Result<Vec<Planned>, Pending> {
    {
        let needs = |call: &ToolCall| agent.needs_approval(toolbox, call);
        let waits = |p: &Planned| matches!(p, Planned::Run(call) if needs(call));
        if !planned.iter().any(waits) {
            return Ok(planned);
        }
        let Some(handler) = &agent.approval.handler else {
            let mut pause = Pending {
                step,
                refused: Vec::new(),
                pending: Vec::new(),
                note: None,
            };
            for planned in planned {
                match planned {
                    Planned::Run(call) if needs(&call) => pause.pending.push(call),
                    Planned::Refuse(refused) => pause.refused.push(refused),
                    Planned::Run(_) | Planned::Deny(..) => {}
                }
            }
            return Err(pause);
        };
        let mut approved = Vec::with_capacity(planned.len());
        for planned in planned {
            approved.push(match planned {
                Planned::Run(call) if needs(&call) => {
                    let request = ApprovalRequest {
                        step,
                        call: call.clone(),
                    };
                    match handler(request).await {
                        Verdict::Approve => Planned::Run(call),
                        Verdict::Deny(reason) => Planned::Deny(call, reason),
                    }
                }
                other => other,
            });
        }
        Ok(approved)
    }
}

impl Pending {
    /// The token of a run paused here, with the run's history, usage and retry count.
    pub(super) fn token(
        self,
        agent: &Agent,
        history: Vec<Message>,
        usage: Option<Usage>,
        output_failures: usize,
        state: Option<serde_json::Value>,
    ) -> ResumeToken {
        ResumeToken {
            version: ResumeToken::VERSION,
            history,
            step: self.step,
            react: agent.react,
            usage,
            output_failures,
            refused: self.refused,
            pending: self.pending,
            state,
            note: self.note,
        }
    }
}

impl ResumeToken {
    /// Decides the paused step's calls: each call that needs approval (asked of the policy
    /// again) must have a decision with its id, tool and arguments.
    pub(super) fn reopen(
        self,
        agent: &Agent,
        toolbox: &Toolbox,
        decisions: Vec<Decision>,
    ) -> Result<Resumed, AgentError> {
        let token = self;
        let fail = |message: String| AgentError::Resume {
            message,
            token: Box::new(token.clone()),
        };
        if token.version != ResumeToken::VERSION {
            return Err(fail(format!(
                "the token's version {} is unknown",
                token.version
            )));
        }
        if token.react != agent.react {
            return Err(fail(
                "the token is of a run in another mode (ReAct or not)".into(),
            ));
        }
        let (thought, calls) = token.step_calls().map_err(fail)?;
        token.within_limits(agent, &calls).map_err(fail)?;
        let mut planned = Vec::with_capacity(calls.len());
        let mut used = vec![false; decisions.len()];
        for call in calls {
            if let Some(refused) = token.refused.iter().find(|r| r.call.id == call.id) {
                planned.push(Planned::Refuse(refused.clone()));
                continue;
            }
            if !agent.needs_approval(toolbox, &call) {
                planned.push(Planned::Run(call));
                continue;
            }
            let id = call.id.clone().unwrap_or_default();
            let found = decisions.iter().position(|d| d.call.id == call.id);
            let Some(at) = found.filter(|&at| decisions[at].call == call) else {
                return Err(fail(format!(
                    "call {id} to {} waits for approval and no decision matches it (its id, \
                     tool and arguments)",
                    call.name
                )));
            };
            used[at] = true;
            planned.push(match &decisions[at].verdict {
                Verdict::Approve => Planned::Run(call),
                Verdict::Deny(reason) => Planned::Deny(call, reason.clone()),
            });
        }
        if let Some(at) = used.iter().position(|used| !used) {
            let call = &decisions[at].call;
            return Err(fail(format!(
                "the decision on call {} to {} matches no call that waits for approval",
                call.id.as_deref().unwrap_or_default(),
                call.name
            )));
        }
        Ok(Resumed {
            step: token.step,
            thought,
            planned,
            history: token.history,
            usage: token.usage,
            output_failures: token.output_failures,
            note: token.note,
        })
    }

    /// Whether the paused step's calls are ones a run could have paused on: each id once (so
    /// one decision runs one call at most), and no more calls to run than one step runs.
    fn within_limits(&self, agent: &Agent, calls: &[ToolCall]) -> Result<(), String> {
        let mut seen = std::collections::HashSet::with_capacity(calls.len());
        for call in calls {
            let id = call.id.as_deref().unwrap_or_default();
            if !seen.insert(id) {
                return Err(format!(
                    "the token's last reply has more than one call with id \"{id}\""
                ));
            }
        }
        let refused = |call: &ToolCall| self.refused.iter().any(|r| r.call.id == call.id);
        let to_run = calls.iter().filter(|call| !refused(call)).count();
        let limit = agent.max_tool_calls_per_step;
        match to_run > limit {
            true => Err(format!(
                "the token's last reply has {to_run} calls to run, over the limit of {limit} \
                 in one step"
            )),
            false => Ok(()),
        }
    }

    /// The calls of the paused step, read from the history's last reply.
    fn step_calls(&self) -> Result<(Option<String>, Vec<ToolCall>), String> {
        let token = self;
        let Some(Message::Assistant {
            content,
            tool_calls,
        }) = token.history.last()
        else {
            return Err("the token's history does not end with the model's reply".into());
        };
        if !token.react {
            return Ok((content.clone(), tool_calls.clone()));
        }
        match react::parse(content.as_deref().unwrap_or_default()) {
            ReactReply::Act { thought, call } => {
                Ok((thought, vec![call.with_id(format!("react_{}", token.step))]))
            }
            _ => Err("the token's last reply calls no tool".into()),
        }
    }
}
