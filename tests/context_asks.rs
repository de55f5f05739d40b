//! What a tool asks through its context: with nothing listening, `sample` and `elicit` answer
//! an error naming what is missing, never a panic; a type elicitation cannot ask for is refused
//! naming the field; an answer that does not fit the type is `InvalidAnswer`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Deserialize;
use toolkit::context::{
    CallScope, ContextError, ElicitationAnswer, ElicitationRequest, SamplingReply, SamplingRequest,
    ToolHost,
};
use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

#[derive(Debug, Deserialize, JsonSchema)]
struct Age {
    years: u32,
}

// Read only through the schema: the question is refused before any answer.
#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Address {
    street: String,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize, JsonSchema)]
struct Nested {
    name: String,
    address: Address,
}

/// The error a tool's question got, as the tool reports it.
fn described(err: &ContextError) -> String {
    let kind = match err {
        ContextError::Unavailable { .. } => "Unavailable",
        ContextError::UnsupportedSchema(_) => "UnsupportedSchema",
        ContextError::InvalidAnswer(_) => "InvalidAnswer",
        ContextError::Cancelled => "Cancelled",
        _ => "other",
    };
    format!("{kind}: {err}")
}

#[derive(Default)]
struct Asker;

#[toolset(name = "ask", register = false)]
impl Asker {
    /// Ask a model for a summary
    #[tool]
    async fn summary(&self, ctx: &ToolContext) -> String {
        match ctx.sample("summarise").await {
            Ok(reply) => reply.text().unwrap_or_default().to_owned(),
            Err(err) => described(&err),
        }
    }

    /// Ask the user their age
    #[tool]
    async fn age(&self, ctx: &ToolContext) -> String {
        match ctx.elicit::<Age>("how old are you?").await {
            Ok(Elicited::Accepted(age)) => format!("{} years", age.years),
            Ok(other) => format!("{other:?}"),
            Err(err) => described(&err),
        }
    }

    /// Ask the user for a nested form
    #[tool]
    async fn nested(&self, ctx: &ToolContext) -> String {
        match ctx.elicit::<Nested>("where do you live?").await {
            Ok(answer) => format!("{answer:?}"),
            Err(err) => described(&err),
        }
    }
}

fn toolbox() -> Toolbox {
    Toolbox::builder().toolset::<Asker>().build().unwrap()
}

async fn ask(toolbox: &Toolbox, tool: &str) -> Value {
    toolbox.acall(&ToolCall::new(tool, json!({}))).await.value
}

#[tokio::test]
async fn sample_and_elicit_with_nothing_listening_say_what_is_missing() {
    let toolbox = toolbox();
    let sampled = ask(&toolbox, "ask_summary").await;
    let elicited = ask(&toolbox, "ask_age").await;
    println!("{sampled}\n{elicited}");
    for (answer, what, tool) in [
        (&sampled, "sampling", "ask_summary"),
        (&elicited, "elicitation", "ask_age"),
    ] {
        let text = answer.as_str().unwrap();
        assert!(text.starts_with("Unavailable: "), "{text}");
        assert!(text.contains(what) && text.contains(tool), "{text}");
    }
    // The same from sync code, and in a scope whose host serves neither.
    struct Deaf;
    impl ToolHost for Deaf {}
    let scope = CallScope::new().host(Arc::new(Deaf));
    let sampled = scope.run(ask(&toolbox, "ask_summary")).await;
    assert!(
        sampled.as_str().unwrap().starts_with("Unavailable: "),
        "{sampled}"
    );
}

#[tokio::test]
async fn a_nested_type_is_refused_naming_the_field() {
    let toolbox = toolbox();
    let answer = ask(&toolbox, "ask_nested").await;
    println!("{answer}");
    let text = answer.as_str().unwrap();
    assert!(text.starts_with("UnsupportedSchema: "), "{text}");
    assert!(text.contains("`address`"), "{text}");
}

/// What `ToolHost`'s asking methods return.
type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Answers every question with what it was built with.
struct Answers {
    elicited: ElicitationAnswer,
}

impl ToolHost for Answers {
    fn sample<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        request: SamplingRequest,
    ) -> BoxFuture<'a, Result<SamplingReply, ContextError>> {
        let asked = request.messages.len();
        Box::pin(async move {
            Ok(serde_json::from_value(json!({
                "role": "assistant",
                "content": {"type": "text", "text": format!("{asked} message(s) read")},
                "model": "test"
            }))
            .unwrap())
        })
    }

    fn elicit<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        request: ElicitationRequest,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ContextError>> {
        assert_eq!(request.requested_schema["required"], json!(["years"]));
        let answer = self.elicited.clone();
        Box::pin(async move { Ok(answer) })
    }
}

async fn answered(elicited: ElicitationAnswer, tool: &str) -> Value {
    let scope = CallScope::new().host(Arc::new(Answers { elicited }));
    scope.run(ask(&toolbox(), tool)).await
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_type_is_invalid() {
    let answer = answered(
        ElicitationAnswer::Accept(json!({"years": "old"})),
        "ask_age",
    )
    .await;
    println!("{answer}");
    assert!(
        answer.as_str().unwrap().starts_with("InvalidAnswer: "),
        "{answer}"
    );
}

#[tokio::test]
async fn answers_that_fit_reach_the_tool() {
    let accepted = answered(ElicitationAnswer::Accept(json!({"years": 36})), "ask_age").await;
    assert_eq!(accepted, json!("36 years"));
    let declined = answered(ElicitationAnswer::Decline, "ask_age").await;
    assert_eq!(declined, json!("Declined"));
    let sampled = answered(ElicitationAnswer::Decline, "ask_summary").await;
    assert_eq!(sampled, json!("1 message(s) read"));
}
