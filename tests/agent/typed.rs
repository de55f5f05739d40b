//! Typed answers (`output::<T>()`) over the real wire formats: OpenAI's `response_format`
//! with a strict `json_schema`, Anthropic's `final_result` tool, and ReAct's `final_answer`;
//! answers coerced and validated as tool arguments are, and the model told when one does not
//! fit, until the retries run out.

use crate::common;

use common::model_server::{ModelServer, Reply};
use common::wire::{anthropic_calls, anthropic_client, anthropic_text, openai_client, openai_text};
use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::agent::{Agent, AgentError};
use toolkit::models::{ChatModel, Message};
use toolkit::prelude::*;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct City {
    name: String,
    population: u64,
}

/// A typed agent over `model` asked for the capital answers Lisbon.
async fn answers_lisbon(model: impl ChatModel + 'static) {
    let agent = Agent::builder(model).output::<City>().build();
    let run = agent.run("The capital of Portugal?").await.unwrap();
    assert_eq!(run.answer, lisbon());
}

/// Anthropic's reply calling `final_result` with Lisbon.
fn lisbon_called() -> Reply {
    anthropic_calls(&[(
        "toolu_1",
        "final_result",
        json!({"name": "Lisbon", "population": 545000}),
    )])
}

fn lisbon() -> City {
    City {
        name: "Lisbon".into(),
        population: 545000,
    }
}

#[tokio::test]
async fn openai_is_sent_a_strict_json_schema_response_format_and_its_text_is_read_as_t() {
    let server = ModelServer::start(vec![openai_text(
        r#"{"name":"Lisbon","population":545000}"#,
    )])
    .await;
    answers_lisbon(openai_client(&server)).await;
    let body = &server.received()[0].body;
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "final_result", "strict": true,
            "schema": {"type": "object", "properties": {
                "name": {"type": "string"},
                "population": {"type": "integer", "minimum": 0, "maximum": u64::MAX}},
            "required": ["name", "population"], "additionalProperties": false}}})
    );
    // Native output offers no answer tool.
    assert!(body.get("tools").is_none());
}

#[tokio::test]
async fn an_answer_that_does_not_fit_goes_back_to_the_model_with_the_reason() {
    let server = ModelServer::start(vec![
        openai_text(r#"{"name":"Lisbon"}"#),
        openai_text(r#"{"name":"Lisbon","population":"545000"}"#),
    ])
    .await;
    // The second answer's string is coerced to the integer, as a tool argument would be.
    answers_lisbon(openai_client(&server)).await;
    let second = &server.received()[1].body["messages"];
    let feedback = second[2]["content"].as_str().unwrap();
    assert!(
        feedback.starts_with(
            "Your answer could not be read: missing required argument \"population\" for \
             final_result"
        ),
        "{feedback}"
    );
}

#[tokio::test]
async fn anthropic_gets_a_final_result_tool_and_its_call_is_the_answer() {
    let server = ModelServer::start(vec![lisbon_called()]).await;
    answers_lisbon(anthropic_client(&server)).await;
    let tools = &server.received()[0].body["tools"];
    assert_eq!(tools[0]["name"], "final_result");
    assert_eq!(
        tools[0]["input_schema"]["required"],
        json!(["name", "population"])
    );
}

#[tokio::test]
async fn a_text_reply_is_no_answer_when_the_final_result_tool_is_expected() {
    let server = ModelServer::start(vec![
        anthropic_text("Lisbon, about half a million people."),
        lisbon_called(),
    ])
    .await;
    answers_lisbon(anthropic_client(&server)).await;
    let second = &server.received()[1].body["messages"];
    assert_eq!(
        second[2]["content"][0]["text"],
        "A text reply does not end this task; finish by calling final_result."
    );
}

#[tokio::test]
async fn answers_that_never_fit_end_in_a_typed_error_that_keeps_the_history() {
    let bad = |id| anthropic_calls(&[(id, "final_result", json!({"name": "Lisbon"}))]);
    let server = ModelServer::start(vec![bad("toolu_1"), bad("toolu_2"), bad("toolu_3")]).await;
    let agent = Agent::builder(anthropic_client(&server))
        .output::<City>()
        .max_output_retries(1)
        .build();
    let error = agent.run("The capital of Portugal?").await.unwrap_err();
    let AgentError::Output {
        attempts,
        message,
        history,
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!(*attempts, 2);
    assert_eq!(
        message,
        "Error: missing required argument \"population\" for final_result"
    );
    // The question, then two answers each with its error result.
    assert_eq!(history.len(), 5);
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn an_answer_that_is_not_an_object_is_wrapped_for_the_provider() {
    let server = ModelServer::start(vec![anthropic_calls(&[(
        "toolu_1",
        "final_result",
        json!({"response": ["Lisbon", "Porto"]}),
    )])])
    .await;
    let agent = Agent::builder(anthropic_client(&server))
        .output::<Vec<String>>()
        .build();
    let run = agent.run("Two cities of Portugal?").await.unwrap();
    assert_eq!(run.answer, ["Lisbon", "Porto"]);
    let schema = &server.received()[0].body["tools"][0]["input_schema"];
    assert_eq!(schema["required"], json!(["response"]));
}

#[tokio::test]
async fn react_reads_its_final_answer_as_t() {
    let server = ModelServer::start(vec![
        openai_text(r#"{"thought": "I know it", "final_answer": {"name": "Lisbon"}}"#),
        openai_text(
            r#"{"thought": "with the population", "final_answer": {"name": "Lisbon", "population": 545000}}"#,
        ),
    ])
    .await;
    let agent = Agent::builder(openai_client(&server))
        .react()
        .output::<City>()
        .build();
    let run = agent.run("The capital of Portugal?").await.unwrap();
    assert_eq!(run.answer, lisbon());
    let first = &server.received()[0].body;
    // ReAct sends no response format: the schema is in the prompt.
    assert!(first.get("response_format").is_none());
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("The final_answer is a JSON value matching this schema: {"));
    let observation = server.received()[1].body["messages"][3]["content"].clone();
    assert!(
        observation
            .as_str()
            .unwrap()
            .starts_with("Observation: Your answer could not be read: missing required argument"),
        "{observation}"
    );
}

#[tokio::test]
async fn the_untyped_agent_underneath_answers_the_json() {
    let server = ModelServer::start(vec![Reply::json(
        200,
        &json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1741570283,
            "model": "gpt-4o-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
            "content": "{\"name\":\"Lisbon\",\"population\":545000}"}}]})
        .to_string(),
    )])
    .await;
    let agent = Agent::builder(openai_client(&server))
        .output::<City>()
        .build();
    let run = agent.agent().run("The capital of Portugal?").await.unwrap();
    assert_eq!(run.answer, r#"{"name":"Lisbon","population":545000}"#);
    assert!(matches!(
        run.history.last(),
        Some(Message::Assistant { .. })
    ));
}

#[test]
fn a_schema_strict_mode_cannot_express_is_sent_as_it_is_and_not_strict() {
    use toolkit::models::{ChatOptions, ChatRequest, OutputSchema};
    use toolkit::providers::{ToolDefinitions, openai};
    let schema = json!({"type": "object", "properties": {"n": {"not": {"type": "string"}}}});
    let options = ChatOptions {
        output: Some(OutputSchema {
            name: "final_result".into(),
            schema: schema.clone(),
            strict: true,
        }),
        ..ChatOptions::default()
    };
    let messages = [Message::user("hi")];
    let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
    let body = openai::request_body(&request, "gpt-4o", false, false).unwrap();
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema",
            "json_schema": {"name": "final_result", "strict": false, "schema": schema}})
    );
}

#[tokio::test]
async fn a_typed_agent_streams_and_ends_with_its_typed_answer() {
    use futures::StreamExt;
    use toolkit::agent::{AgentEvent, StreamItem};
    use toolkit::models::{ModelReply, ScriptedModel};

    let model = ScriptedModel::new([ModelReply::calls([ToolCall::new(
        "final_result",
        json!({"name": "Lisbon", "population": "545000"}),
    )])]);
    let agent = Agent::builder(model).output::<City>().build();
    let mut stream = agent.run("The capital of Portugal?").stream();
    let mut items = Vec::new();
    while let Some(item) = stream.next().await {
        items.push(item.unwrap());
    }
    let Some(StreamItem::Done(run)) = items.pop() else {
        panic!("the stream did not end with the run")
    };
    // The checked answer, the population coerced to a number, as a `City`.
    assert_eq!(
        run.answer,
        City {
            name: "Lisbon".into(),
            population: 545000
        }
    );
    let events: Vec<String> = items
        .iter()
        .map(|item| match item {
            StreamItem::Event(AgentEvent::ToolCalled { call, .. }) => {
                format!("called {}", call.name)
            }
            StreamItem::Event(AgentEvent::Answer { answer }) => format!("answer {answer}"),
            _ => String::new(),
        })
        .filter(|line| !line.is_empty())
        .collect();
    assert_eq!(
        events,
        [
            "called final_result",
            r#"answer {"name":"Lisbon","population":545000}"#
        ]
    );
}

#[tokio::test]
async fn a_typed_agent_streams_with_state_into_a_conversation() {
    use futures::StreamExt;
    use serde::Serialize;
    use toolkit::agent::{Conversation, StreamItem};
    use toolkit::models::{ModelReply, ScriptedModel};

    #[derive(AgentState, Default, Serialize, Deserialize)]
    struct Notes {
        seen: Vec<String>,
    }

    let model = ScriptedModel::new([ModelReply::calls([ToolCall::new(
        "final_result",
        json!({"name": "Lisbon", "population": 545000}),
    )])]);
    let agent = Agent::builder(model).output::<City>().build();
    let mut conversation = Conversation::new();
    let notes = Notes {
        seen: vec!["Porto".into()],
    };
    let stream = agent
        .run("The capital of Portugal?")
        .state(Box::new(notes))
        .conversation(&mut conversation)
        .stream();
    let items: Vec<_> = stream.collect().await;
    let Some(Ok(StreamItem::Done(run))) = items.into_iter().last() else {
        panic!("the stream did not end with the run")
    };
    assert_eq!(run.answer.name, "Lisbon");
    assert_eq!(run.state_as::<Notes>().unwrap().seen, ["Porto"]);
    // user, the answer's call, its result
    assert_eq!(conversation.messages.len(), 3);
}

#[tokio::test]
async fn a_plain_agents_stream_ends_with_its_text_answer_as_it_is() {
    use futures::StreamExt;
    use toolkit::agent::StreamItem;
    use toolkit::models::{ModelReply, ScriptedModel};

    // Text that is JSON stays text: only a typed answer is read as JSON.
    let model = ScriptedModel::new([ModelReply::text("{\"a\": 1}")]);
    let agent = Agent::builder(model).build();
    let mut stream = agent.run("go").stream();
    let mut last = None;
    while let Some(item) = stream.next().await {
        last = Some(item.unwrap());
    }
    let Some(StreamItem::Done(run)) = last else {
        panic!("the stream did not end with the run")
    };
    assert_eq!(run.answer, "{\"a\": 1}");
}
