//! The tools of the 0.2 suite's multi-round scenarios (`input-required-result-*`, MCP
//! 2026-07-28, SEP-2322): tools that ask the user or the client's model, named as the suite
//! looks for their questions. To a 2026-07-28 client each question ends the run with an
//! `input_required` result and the retried call runs the body again with the answers; to an
//! older client the same body asks over the session. `test_streaming_elicitation` and
//! `test_missing_capability` are the `server-stateless` scenario's, the latter unable to do
//! without what the client did not declare.

use serde::Deserialize;
use toolkit::PromptProxy;
use toolkit::context::{ContextError, SamplingRequest};
use toolkit::prelude::*;
use toolkit::prompts::PromptDefinition;
use toolkit::schemars::JsonSchema;

#[derive(Default)]
pub struct Asking;

#[toolset(name = "test")]
impl Asking {
    /// Asks the user's name, then greets them
    #[tool]
    async fn input_required_result_elicitation(&self, ctx: &ToolContext) -> Result<String, String> {
        let name = ask_name(ctx, "user_name", "What is your name?").await?;
        Ok(format!("Hello, {name}!"))
    }

    /// Asks the client's model a question
    #[tool]
    async fn input_required_result_sampling(&self, ctx: &ToolContext) -> Result<String, String> {
        let question = SamplingRequest::new("What is the capital of France?")
            .max_tokens(100)
            .key("capital_question");
        let reply = ctx.sample(question).await.map_err(said)?;
        Ok(format!("The model said: {}", reply.text().unwrap_or("")))
    }

    /// Asks the client for its roots
    #[tool]
    async fn input_required_result_list_roots(&self, ctx: &ToolContext) -> Result<String, String> {
        let roots = ctx.roots_keyed("client_roots").await.map_err(said)?;
        let uris: Vec<String> = roots.into_iter().map(|root| root.uri).collect();
        Ok(format!("Roots: {}", uris.join(", ")))
    }

    /// Asks for a confirmation, answered with the sealed requestState
    #[tool]
    async fn input_required_result_request_state(
        &self,
        ctx: &ToolContext,
    ) -> Result<String, String> {
        let asked = ctx
            .elicit_keyed::<Confirm>("confirm", "Please confirm")
            .await;
        let ok = matches!(
            asked.map_err(said)?,
            Elicited::Accepted(Confirm { ok: true })
        );
        Ok(format!("state-ok: confirmed={ok}"))
    }

    /// Asks the user, the model and the client's roots at once
    #[tool]
    async fn input_required_result_multiple_inputs(
        &self,
        ctx: &ToolContext,
    ) -> Result<String, String> {
        let greeting = SamplingRequest::new("Generate a greeting")
            .max_tokens(50)
            .key("greeting");
        let (name, greeting, roots) = tokio::join!(
            ask_name(ctx, "user_name", "What is your name?"),
            ctx.sample(greeting),
            ctx.roots_keyed("client_roots")
        );
        let (greeting, roots) = (greeting.map_err(said)?, roots.map_err(said)?);
        let text = greeting.text().unwrap_or("");
        Ok(format!("{text} {}, {} roots", name?, roots.len()))
    }

    /// Asks two questions, one round each
    #[tool]
    async fn input_required_result_multi_round(&self, ctx: &ToolContext) -> Result<String, String> {
        let name = ask_name(ctx, "step1", "Step 1: What is your name?").await?;
        let asked = ctx.elicit_keyed::<Colour>("step2", "Step 2: What is your favorite color?");
        let colour = match asked.await.map_err(said)? {
            Elicited::Accepted(Colour { color }) => color,
            _ => "no colour".to_owned(),
        };
        Ok(format!("{name} likes {colour}"))
    }

    /// Asks a question whose requestState the suite tampers with
    #[tool]
    async fn input_required_result_tampered_state(
        &self,
        ctx: &ToolContext,
    ) -> Result<String, String> {
        let name = ask_name(ctx, "user_name", "What is your name?").await?;
        Ok(format!("Hello, {name}!"))
    }

    /// Asks only what the client declared it answers: the user, else the model
    #[tool]
    async fn input_required_result_capabilities(
        &self,
        ctx: &ToolContext,
    ) -> Result<String, String> {
        match ask_name(ctx, "user_name", "What is your name?").await {
            Err(unavailable) if unavailable.contains("not available") => {
                let question = SamplingRequest::new("Say hello").key("hello");
                let reply = ctx.sample(question).await.map_err(said)?;
                Ok(reply.text().unwrap_or("").to_owned())
            }
            name => Ok(format!("Hello, {}!", name?)),
        }
    }

    /// Asks the user over the call's response stream: to a 2026-07-28 client, an
    /// `input_required` result, never a request of the server's own
    #[tool]
    async fn streaming_elicitation(&self, ctx: &ToolContext) -> Result<String, String> {
        self.input_required_result_elicitation(ctx).await
    }

    /// Needs the client's model, with no way around it: to a client that did not declare
    /// `sampling`, the call answers -32021 naming it
    #[tool]
    async fn missing_capability(&self, ctx: &ToolContext) -> Result<String, String> {
        let question = SamplingRequest::new("Say hello").key("hello");
        let reply = ctx.sample(question).await.map_err(said)?;
        Ok(reply.text().unwrap_or("").to_owned())
    }
}

/// `test_input_required_result_prompt`: a prompt that asks the user what context to use
/// before it is filled (`prompts/get` answers `input_required` too).
pub fn prompt() -> PromptProxy {
    let definition = PromptDefinition::new("test_input_required_result_prompt")
        .description("A prompt that asks the user for its context first");
    PromptProxy::from_context_fn(definition, |_args, ctx| async move {
        let asked = "What context should the prompt use?";
        match ctx.elicit_keyed::<Context>("user_context", asked).await {
            Ok(Elicited::Accepted(Context { context })) => {
                Ok(format!("Write with this context in mind: {context}"))
            }
            Ok(_) => Ok("Write without any particular context.".to_owned()),
            Err(err) => Err(said(err)),
        }
    })
}

// The Tasks extension's fixtures that ask (`tasks-mrtr-input`): run as a task, their
// questions wait for `tasks/update`, the task `input_required` meanwhile.

/// Asks whether to delete `filename`, then says what it did; a client with tasks gets a task
#[tool(task = "optional")]
pub async fn confirm_delete(ctx: &ToolContext, filename: String) -> Result<String, String> {
    let asked = format!("Delete {filename}?");
    let confirmed = match ctx.elicit::<Approval>(asked).await.map_err(said)? {
        Elicited::Accepted(Approval { confirm }) => confirm,
        _ => false,
    };
    Ok(match confirmed {
        true => format!("deleted {filename}"),
        false => format!("kept {filename}"),
    })
}

/// Asks two people at once; a client with tasks gets a task
#[tool(task = "optional")]
pub async fn multi_input(ctx: &ToolContext) -> Result<String, String> {
    let (first, second) = tokio::join!(
        ctx.elicit::<Signed>("First approver?"),
        ctx.elicit::<Signed>("Second approver?")
    );
    let name = |answer: Elicited<Signed>| match answer {
        Elicited::Accepted(Signed { name, .. }) => name,
        _ => "nobody".to_owned(),
    };
    let (first, second) = (name(first.map_err(said)?), name(second.map_err(said)?));
    Ok(format!("approved by {first} and {second}"))
}

/// `{confirm}`: whether the user agrees.
#[derive(Deserialize, JsonSchema)]
struct Approval {
    confirm: bool,
}

/// `{name, confirm}`: who agrees, and whether.
#[derive(Deserialize, JsonSchema)]
struct Signed {
    name: String,
    #[allow(dead_code)]
    confirm: bool,
}

/// `{context}`: what a prompt is about.
#[derive(Deserialize, JsonSchema)]
struct Context {
    context: String,
}

/// `{name}`: who the user is.
#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// `{ok}`: whether the user confirms.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    ok: bool,
}

/// `{color}`: the user's favourite colour.
#[derive(Deserialize, JsonSchema)]
struct Colour {
    color: String,
}

async fn ask_name(ctx: &ToolContext, key: &str, message: &str) -> Result<String, String> {
    match ctx.elicit_keyed::<Name>(key, message).await.map_err(said)? {
        Elicited::Accepted(Name { name }) => Ok(name),
        _ => Ok("stranger".to_owned()),
    }
}

fn said(err: ContextError) -> String {
    err.to_string()
}
