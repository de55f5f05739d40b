//! What a tool asks through its context: a model (sampling) or the user (elicitation), and
//! which round of a call's questions its body runs in.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::elicit;
use super::{
    ContextError, ElicitationAnswer, ElicitationRequest, Root, SamplingReply, SamplingRequest,
    ToolContext,
};

impl ToolContext {
    /// Asks a model for a message: over MCP the client's model (`sampling/createMessage`), in an
    /// agent the agent's.
    ///
    /// To an MCP client of 2026-07-28, which keeps no session, the question ends this run of
    /// the tool: the call answers `input_required`, the client answers the question and calls
    /// again, and the tool runs again **from the top**, its questions answered in order from
    /// the answers gathered so far. Everything the body did before it asked runs again on every
    /// round; see [`elicit`](Self::elicit) for what that means for side effects, and
    /// [`round`](Self::round) to do something on the first run only. Name the question with
    /// [`SamplingRequest::key`] where the client should see a name. Older clients are asked
    /// over their session, once, while the tool waits.
    pub async fn sample(
        &self,
        request: impl Into<SamplingRequest>,
    ) -> Result<SamplingReply, ContextError> {
        let Some(host) = &self.inner.scope.host else {
            return Err(ContextError::unavailable("sampling", self.tool_name()));
        };
        let asked = host.sample(self, request.into());
        tokio::select! {
            answer = asked => answer,
            () = self.cancelled() => Err(ContextError::Cancelled),
        }
    }

    /// Asks the user for a value of type `T`, a flat struct of strings, numbers, booleans and
    /// enums: over MCP through the client (`elicitation/create`), in an agent through its
    /// `on_elicit` handler.
    ///
    /// # Served to an MCP 2026-07-28 client: the body runs again
    ///
    /// Such a client keeps no session, so the server cannot wait for the answer: the question
    /// ends this run of the tool, and the call answers `input_required` with the question and
    /// a sealed `requestState` holding the answers gathered so far. The client answers and
    /// calls again, on any replica; the tool then runs again **from the top**, and its i-th
    /// question returns the i-th answer. So a body must ask the same questions in the same
    /// order on every run (a different one is refused with an error), and everything it does
    /// before a question runs once per round: a tool that sends an e-mail and then asks sends
    /// it again on the re-run, unless it checks [`round`](Self::round) or asks first. Work
    /// after the last question runs once. Questions awaited together (`tokio::join!`) go to the
    /// client in one round. Older clients are asked over their session, once, while the tool
    /// waits.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::schemars::JsonSchema;
    ///
    /// #[derive(serde::Deserialize, JsonSchema)]
    /// struct Confirm {
    ///     send: bool,
    /// }
    ///
    /// #[derive(Default)]
    /// struct Mail;
    ///
    /// #[toolset(name = "mail")]
    /// impl Mail {
    ///     /// Send the report, after the user confirms
    ///     #[tool]
    ///     async fn send(&self, ctx: &ToolContext) -> Result<String, String> {
    ///         // Only on the first run: a stateless client's answer re-runs the body.
    ///         if ctx.round() == 0 {
    ///             ctx.info("drafting the report");
    ///         }
    ///         let asked = ctx.elicit::<Confirm>("Send the report now?").await;
    ///         match asked.map_err(|err| err.to_string())? {
    ///             Elicited::Accepted(Confirm { send: true }) => Ok("sent".into()),
    ///             _ => Ok("not sent".into()),
    ///         }
    ///     }
    /// }
    /// # let _ = Mail::to_tools();
    /// ```
    pub async fn elicit<T: JsonSchema + DeserializeOwned>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ContextError> {
        self.ask_user(None, message.into()).await
    }

    /// [`elicit`](Self::elicit), the question named `key`: the key of its entry in an MCP
    /// 2026-07-28 `input_required` result, for a client (or a test) that looks for it by name.
    /// Unnamed questions are `ask-0`, `ask-1`, ... by their place in the call.
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::schemars::JsonSchema;
    ///
    /// #[derive(serde::Deserialize, JsonSchema)]
    /// struct Name {
    ///     name: String,
    /// }
    ///
    /// async fn greet(ctx: &ToolContext) -> String {
    ///     match ctx.elicit_keyed::<Name>("user_name", "What is your name?").await {
    ///         Ok(Elicited::Accepted(Name { name })) => format!("Hello, {name}!"),
    ///         _ => "Hello!".to_owned(),
    ///     }
    /// }
    /// # let _ = greet;
    /// ```
    pub async fn elicit_keyed<T: JsonSchema + DeserializeOwned>(
        &self,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ContextError> {
        self.ask_user(Some(key.into()), message.into()).await
    }

    /// The client's roots: the places (`file://` URIs) it lets its tools work in. Over MCP a
    /// `roots/list` to a session client, a question in an `input_required` result to a
    /// 2026-07-28 client (see [`elicit`](Self::elicit) for how the body then runs again);
    /// [`ContextError::Unavailable`] where the client did not declare roots or nothing listens.
    ///
    /// ```
    /// use toolkit::context::{CallScope, ContextError};
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let ctx = CallScope::new().context_for("index", None);
    /// let roots = ctx.roots().await;
    /// assert!(matches!(roots, Err(ContextError::Unavailable { what: "roots", .. })));
    /// # });
    /// ```
    pub async fn roots(&self) -> Result<Vec<Root>, ContextError> {
        self.ask_roots(None).await
    }

    /// [`roots`](Self::roots), the question named `key` as
    /// [`elicit_keyed`](Self::elicit_keyed) names one.
    pub async fn roots_keyed(&self, key: impl Into<String>) -> Result<Vec<Root>, ContextError> {
        self.ask_roots(Some(key.into())).await
    }

    async fn ask_roots(&self, key: Option<String>) -> Result<Vec<Root>, ContextError> {
        let Some(host) = &self.inner.scope.host else {
            return Err(ContextError::unavailable("roots", self.tool_name()));
        };
        tokio::select! {
            roots = host.roots(self, key) => roots,
            () = self.cancelled() => Err(ContextError::Cancelled),
        }
    }

    /// How many times the client has answered this call's questions before this run of its
    /// body: 0 on the first run, and always 0 but for an MCP 2026-07-28 client, whose answers
    /// re-run the body ([`elicit`](Self::elicit)). A body does what must happen once before
    /// its first question under `if ctx.round() == 0`.
    ///
    /// ```
    /// use toolkit::context::CallScope;
    ///
    /// let ctx = CallScope::new().context_for("report", None);
    /// assert_eq!(ctx.round(), 0);
    /// ```
    pub fn round(&self) -> u32 {
        match &self.inner.scope.host {
            Some(host) => host.round(self),
            None => 0,
        }
    }

    async fn ask_user<T: JsonSchema + DeserializeOwned>(
        &self,
        key: Option<String>,
        message: String,
    ) -> Result<Elicited<T>, ContextError> {
        let requested_schema = elicit::elicitation_schema::<T>()?;
        let Some(host) = &self.inner.scope.host else {
            return Err(ContextError::unavailable("elicitation", self.tool_name()));
        };
        let request = ElicitationRequest {
            message,
            requested_schema,
            key,
        };
        let asked = host.elicit(self, request);
        let answer = tokio::select! {
            answer = asked => answer?,
            () = self.cancelled() => return Err(ContextError::Cancelled),
        };
        Ok(match answer {
            ElicitationAnswer::Accept(value) => Elicited::Accepted(
                serde_json::from_value(value)
                    .map_err(|err| ContextError::InvalidAnswer(err.to_string()))?,
            ),
            ElicitationAnswer::Decline => Elicited::Declined,
            ElicitationAnswer::Cancel => Elicited::Cancelled,
        })
    }
}

/// The user's answer to [`ToolContext::elicit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicited<T> {
    /// The user answered.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the question.
    Cancelled,
}
