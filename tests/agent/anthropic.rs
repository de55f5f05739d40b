//! The Anthropic Messages client against a local server speaking the Messages API, with bodies
//! from Anthropic's documented examples: `tool_use`, `tool_result`, and streamed
//! `input_json_delta` fragments.

use crate::common;

use std::time::Duration;

use common::model_server::{ModelServer, Reply, read_arguments, split_at};
use toolkit::ToolDefinition;
use toolkit::agent::Agent;
use toolkit::models::{
    AnthropicClient, ChatModel, ChatOptions, ChatRequest, FinishReason, Message, ModelReply,
    RetryPolicy, Usage,
};
use toolkit::prelude::*;
use toolkit::providers::Format;

const TOOL_USE: &str = include_str!("../fixtures/models/anthropic_tool_use.json");
const TEXT: &str = include_str!("../fixtures/models/anthropic_text.json");
const STREAM: &str = include_str!("../fixtures/models/anthropic_stream.sse");

/// The documented example calls `get_weather(location, unit)`.
fn weather() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"},
        "unit": {"type": "string"}}, "required": ["location"]});
    let definition = ToolDefinition::new("get_weather", "Current weather", schema);
    let tool = ToolProxy::from_fn(definition, |args| {
        let location = args["location"].as_str().unwrap_or_default().to_owned();
        Ok::<_, String>(format!("15 °C and foggy in {location}"))
    });
    Toolbox::builder().tool(tool).build().unwrap()
}

fn client(server: &ModelServer, stream: bool) -> AnthropicClient {
    AnthropicClient::builder("claude-3-5-sonnet-20240620")
        .base_url(server.base_url())
        .api_key("sk-ant-secret")
        .streaming(stream)
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_documented_tool_use_response_is_read_and_the_request_is_messages() {
    let server = ModelServer::start(vec![Reply::json(200, TOOL_USE)]).await;
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather in SF?"),
    ];
    let (toolbox, options) = (weather(), ChatOptions::default());
    let reply = client(&server, false)
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap();
    assert_eq!(
        reply,
        ModelReply {
            text: Some(
                "<thinking>I need to call the get_weather function, and the user wants SF, \
                 which is likely San Francisco, CA.</thinking>"
                    .into()
            ),
            tool_calls: vec![
                ToolCall::new(
                    "get_weather",
                    json!({"location": "San Francisco, CA", "unit": "celsius"})
                )
                .with_id("toolu_01A09q90qw90lq917835lq9")
            ],
            finish: FinishReason::ToolCalls,
            usage: Some(Usage {
                input_tokens: 472,
                output_tokens: 89
            }),
            refused_calls: Vec::new(),
        }
    );
    let request = &server.received()[0];
    assert!(request.head.starts_with("POST /v1/messages HTTP/1.1\r\n"));
    assert!(request.head.contains("x-api-key: sk-ant-secret\r\n"));
    assert!(request.head.contains("anthropic-version: 2023-06-01\r\n"));
    assert_eq!(
        request.body,
        json!({
            "model": "claude-3-5-sonnet-20240620",
            "max_tokens": 4096,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather in SF?"}]}],
            "tools": weather().definitions(Format::Anthropic).unwrap(),
            "tool_choice": {"type": "auto"},
        })
    );
}

#[tokio::test]
async fn an_agent_sends_tool_results_as_tool_result_blocks_in_a_user_message() {
    let server = ModelServer::start(vec![Reply::json(200, TOOL_USE), Reply::json(200, TEXT)]).await;
    let agent = Agent::builder(client(&server, false))
        .toolbox(weather())
        .parallel_tool_calls(false)
        .build();
    let run = agent.run("Weather in SF?").await.unwrap();
    assert_eq!(run.answer, "It is 15 °C and foggy in San Francisco.");
    let second = &server.received()[1].body;
    assert_eq!(
        second["tool_choice"],
        json!({"type": "auto", "disable_parallel_tool_use": true})
    );
    assert_eq!(second["messages"][1]["role"], "assistant");
    assert_eq!(
        second["messages"][1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather",
            "input": {"location": "San Francisco, CA", "unit": "celsius"}})
    );
    assert_eq!(
        second["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
            "content": "15 °C and foggy in San Francisco, CA", "is_error": false}]})
    );
}

#[tokio::test]
async fn a_stream_split_mid_argument_and_mid_character_is_assembled() {
    let in_sao = STREAM.find("São").unwrap() + 2; // inside ã
    let in_sun = STREAM.find('☀').unwrap() + 1; // inside ☀
    let in_json = STREAM.find("\\\"location\\\":").unwrap() + 5;
    let server = ModelServer::start(vec![Reply::event_stream(split_at(
        STREAM,
        &[in_sao, in_sun, in_json],
    ))])
    .await;
    let messages = [Message::user("Weather in São Paulo?")];
    let (toolbox, options) = (weather(), ChatOptions::default());
    let reply = client(&server, true)
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap();
    assert_eq!(
        reply.text.as_deref(),
        Some("Okay, let's check the weather for São Paulo ☀")
    );
    assert_eq!(
        read_arguments(reply.tool_calls),
        [
            ToolCall::new("get_weather", json!({"location": "São Paulo, BR"}))
                .with_id("toolu_01T1x1fJ34qAmk2tNTrN7Up6")
        ]
    );
    assert_eq!(server.received()[0].body["stream"], true);
}

#[tokio::test]
async fn a_stream_without_message_stop_is_reported_as_cut_off() {
    let cut = &STREAM[..STREAM.find("event: message_stop").unwrap()];
    let server = ModelServer::start(vec![Reply::event_stream(vec![cut.into()])]).await;
    let messages = [Message::user("Weather?")];
    let (toolbox, options) = (weather(), ChatOptions::default());
    let err = client(&server, true)
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the response body was cut off: the event stream ended before `message_stop`"
    );
}
