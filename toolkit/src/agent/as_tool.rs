//! An agent as a tool of another agent, or of an MCP server: the caller sends a task, the
//! agent runs on it, and its answer is the result.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::link::{LinkData, RunLink};
use super::{Agent, step};
use crate::{ToolBuilder, ToolContext, ToolError, ToolProxy};

impl Agent {
    /// The most agents deep a run of this agent as a tool may be, unless told otherwise: an
    /// agent called by an agent called by an agent (`1` is an agent called by a run no agent
    /// called).
    pub const DEFAULT_MAX_AGENT_DEPTH: usize = 4;

    /// This agent as a tool named `name`, whose input is a task (`{"task": "..."}`) and whose
    /// result is the agent's answer. Put it in another agent's toolbox, or serve it over MCP.
    ///
    /// Called by an agent's run, the inner run reports to it: each of its events reaches the
    /// caller's [`on_event`](super::AgentBuilder::on_event) as
    /// [`AgentEvent::Nested`](super::AgentEvent::Nested),
    /// each step is the call's progress (over MCP, a progress notification), and its tokens
    /// add to the caller's [`AgentRun::usage`](super::AgentRun::usage). The inner run stops
    /// when the call is cancelled (the outer run's deadline, or its future dropped). A run past
    /// [`max_depth`](super::AgentBuilder::max_depth) is not started: its call's result says so.
    /// A failed inner run is an error result naming why.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let researcher = Agent::builder(ScriptedModel::new([ModelReply::text("Paris")]))
    ///     .build()
    ///     .into_tool("researcher", "Finds facts; give it the whole question")
    ///     .unwrap();
    /// let model = ScriptedModel::new([
    ///     ModelReply::calls([ToolCall::new("researcher", json!({"task": "capital of France?"}))]),
    ///     ModelReply::text("It is Paris."),
    /// ]);
    /// let agent = Agent::builder(model)
    ///     .toolbox(Toolbox::builder().tool(researcher).build().unwrap())
    ///     .build();
    /// let run = agent.run("What is the capital of France?").await.unwrap();
    /// assert_eq!(run.tool_calls().next().unwrap().result.value, json!("Paris"));
    /// # });
    /// ```
    pub fn into_tool(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Result<ToolProxy, ToolError> {
        let parameters = json!({
            "type": "object",
            "properties": {"task": {
                "type": "string",
                "description": "The whole task: the agent sees nothing else of this conversation",
            }},
            "required": ["task"],
        });
        self.tool_of(name.into(), description.into(), parameters, |args| {
            Ok(args
                .get("task")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned())
        })
    }

    /// This agent as a tool whose input is an `I`: the model fills `I`'s schema, and the agent
    /// is given the validated input as JSON text. Otherwise as [`into_tool`](Self::into_tool).
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    /// struct Review {
    ///     /// The file to review
    ///     path: String,
    ///     strict: bool,
    /// }
    ///
    /// let reviewer = Agent::builder(ScriptedModel::new([ModelReply::text("LGTM")]))
    ///     .build()
    ///     .into_tool_with::<Review>("reviewer", "Reviews one file")
    ///     .unwrap();
    /// assert_eq!(reviewer.parameters()["required"], json!(["path", "strict"]));
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let answer = reviewer.dynamic_acall(json!({"path": "src/lib.rs", "strict": true})).await;
    /// assert_eq!(answer, json!("LGTM"));
    /// # });
    /// ```
    pub fn into_tool_with<I>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> Result<ToolProxy, ToolError>
    where
        I: JsonSchema + DeserializeOwned + Serialize,
    {
        let parameters = crate::schema::type_schema::<I>();
        self.tool_of(name.into(), description.into(), parameters, |args| {
            let input: I = serde_json::from_value(Value::Object(args))
                .map_err(|err| format!("the input does not fit the tool's schema: {err}"))?;
            serde_json::to_string(&input).map_err(|err| format!("the input cannot be sent: {err}"))
        })
    }

    fn tool_of(
        self,
        name: String,
        description: String,
        parameters: Value,
        task: impl Fn(Map<String, Value>) -> Result<String, String> + Send + Sync + 'static,
    ) -> Result<ToolProxy, ToolError> {
        let agent = Arc::new(self);
        let tool: Arc<str> = Arc::from(name.as_str());
        ToolBuilder::new(name)
            .description(description)
            .parameters(parameters)
            .build_async_with_context(move |args, ctx| {
                let (agent, tool) = (Arc::clone(&agent), Arc::clone(&tool));
                let task = task(args);
                async move { run_as_tool(&agent, tool, task?, ctx).await }
            })
    }
}

/// Runs `agent` on `task` as the call `ctx`, under the run that made the call (if an agent's).
async fn run_as_tool(
    agent: &Agent,
    tool: Arc<str>,
    task: String,
    ctx: ToolContext,
) -> Result<String, String> {
    let parent = ctx.data::<LinkData>().map(|link| Arc::clone(&link.0));
    let depth = parent.as_ref().map_or(0, |parent| parent.depth()) + 1;
    if depth > agent.max_depth {
        return Err(format!(
            "not run: the agent \"{tool}\" would run {depth} agents deep, past its limit of {}; \
             an agent calling itself, directly or through others, stops here",
            agent.max_depth
        ));
    }
    let on_event = agent.on_event.clone();
    let link = RunLink::child(
        parent,
        on_event,
        Arc::clone(&tool),
        ctx.clone(),
        (agent.max_steps, agent.budget),
    );
    let run = step::Runner::linked(agent, None, link).run_after(Vec::new(), task);
    tokio::select! {
        outcome = run => outcome
            .map(|run| run.answer)
            .map_err(|err| format!("the agent \"{tool}\" failed: {err}")),
        // Dropping the run cancels its own tool calls.
        () = ctx.cancelled() => Err(format!("the agent \"{tool}\" was cancelled")),
    }
}
