//! The OpenAI-compatible client against a local server speaking Chat Completions, with bodies
//! from OpenAI's documented examples: tool calls, streaming, retries, broken bodies, secrets,
//! and a recorded run replayed offline.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::model_server::{ModelServer, Reply, read_arguments, split_at};
use toolkit::ToolDefinition;
use toolkit::agent::Agent;
use toolkit::models::{
    ChatModel, ChatOptions, ChatRequest, FinishReason, Message, ModelError, ModelReply,
    OpenAiClient, OutputSchema, Recorder, Replayer, RetryPolicy, ToolChoice, Usage,
};
use toolkit::prelude::*;
use toolkit::providers::Format;

const TOOL_CALLS: &str = include_str!("../fixtures/models/openai_tool_calls.json");
const TEXT: &str = include_str!("../fixtures/models/openai_text.json");
const STREAM: &str = include_str!("../fixtures/models/openai_stream.sse");

/// The documented example calls `get_current_weather(location)`.
fn weather() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"}},
        "required": ["location"]});
    let definition = ToolDefinition::new("get_current_weather", "Current weather", schema);
    let tool = ToolProxy::from_fn(definition, |args| {
        let location = args["location"].as_str().unwrap_or_default().to_owned();
        Ok::<_, String>(format!("22 °C and sunny in {location}"))
    });
    Toolbox::builder().tool(tool).build().unwrap()
}

fn client(server: &ModelServer, retry: RetryPolicy) -> OpenAiClient {
    OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .api_key("sk-test-secret")
        .retry(retry)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

async fn ask(model: &OpenAiClient) -> Result<ModelReply, ModelError> {
    let messages = [Message::user("Weather in Boston?")];
    let (toolbox, options) = (weather(), ChatOptions::default());
    model
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
}

fn fast_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(1),
        max_delay: Duration::from_secs(5),
    }
}

#[tokio::test]
async fn a_documented_tool_call_response_is_read_and_the_request_is_chat_completions() {
    let server = ModelServer::start(vec![Reply::json(200, TOOL_CALLS)]).await;
    let mut reply = ask(&client(&server, RetryPolicy::none())).await.unwrap();
    reply.tool_calls = read_arguments(reply.tool_calls);
    assert_eq!(
        reply,
        ModelReply {
            text: None,
            tool_calls: vec![
                ToolCall::new("get_current_weather", json!({"location": "Boston, MA"}))
                    .with_id("call_abc123")
            ],
            finish: FinishReason::ToolCalls,
            usage: Some(Usage {
                input_tokens: 82,
                output_tokens: 17
            }),
            refused_calls: Vec::new(),
        }
    );
    let request = &server.received()[0];
    assert!(
        request
            .head
            .starts_with("POST /v1/chat/completions HTTP/1.1\r\n")
    );
    assert!(
        request
            .head
            .contains("authorization: Bearer sk-test-secret\r\n")
    );
    assert_eq!(request.body["model"], "gpt-4o-mini");
    assert_eq!(
        request.body["messages"],
        json!([{"role": "user", "content": "Weather in Boston?"}])
    );
    assert_eq!(
        request.body["tools"],
        *weather().definitions(Format::OpenAi).unwrap()
    );
    assert_eq!(request.body["tool_choice"], "auto");
}

/// Current weather
#[tool]
fn get_current_weather(location: String) -> String {
    format!("22 °C and sunny in {location}")
}

#[tokio::test]
async fn an_agents_calls_reach_the_tool_as_the_models_text_and_take_the_typed_fast_path() {
    let server =
        ModelServer::start(vec![Reply::json(200, TOOL_CALLS), Reply::json(200, TEXT)]).await;
    let tool = get_current_weather_tool();
    assert!(tool.__takes_fast_path());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let toolbox = Toolbox::builder()
        .tool(tool)
        .before_call(move |call, _tool| {
            record.lock().unwrap().push(call.args.clone());
            Ok(())
        })
        .build()
        .unwrap();
    let agent = Agent::builder(client(&server, RetryPolicy::none()))
        .toolbox(toolbox)
        .build();
    let run = agent.run("Weather in Boston?").await.unwrap();
    assert_eq!(run.answer, "The weather in Boston is 22 °C and sunny.");
    // The model's argument text, unparsed: the typed reader reads it straight into `String`.
    assert_eq!(
        *seen.lock().unwrap(),
        [json!("{\n\"location\": \"Boston, MA\"\n}")]
    );
    assert_eq!(
        server.received()[1].body["messages"][2]["content"],
        "22 °C and sunny in Boston, MA"
    );
}

#[tokio::test]
async fn an_agent_runs_over_http_and_sends_results_paired_by_call_id() {
    let server =
        ModelServer::start(vec![Reply::json(200, TOOL_CALLS), Reply::json(200, TEXT)]).await;
    let agent = Agent::builder(client(&server, RetryPolicy::none()))
        .toolbox(weather())
        .build();
    let run = agent.run("Weather in Boston?").await.unwrap();
    assert_eq!(run.answer, "The weather in Boston is 22 °C and sunny.");
    assert_eq!(run.usage.map(|u| u.total()), Some(82 + 17 + 1117 + 46));
    let second = &server.received()[1].body["messages"];
    assert_eq!(
        second[1],
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_abc123",
            "type": "function", "function": {"name": "get_current_weather",
            "arguments": "{\"location\":\"Boston, MA\"}"}}]})
    );
    assert_eq!(
        second[2],
        json!({"role": "tool", "tool_call_id": "call_abc123",
            "content": "22 °C and sunny in Boston, MA"})
    );
}

#[tokio::test]
async fn a_stream_split_mid_argument_and_mid_character_is_assembled() {
    let in_cafe = STREAM.find("café").unwrap() + "caf".len() + 1; // inside the two bytes of é
    let in_sao = STREAM.find("São").unwrap() + 2; // inside ã
    let in_arguments = STREAM.find(" Paulo").unwrap() + 3;
    let chunks = split_at(
        STREAM,
        &[7, in_cafe, in_sao, in_arguments, STREAM.len() - 3],
    );
    let server = ModelServer::start(vec![Reply::event_stream(chunks)]).await;
    let model = OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .streaming(true)
        .build()
        .unwrap();
    let reply = ask(&model).await.unwrap();
    assert_eq!(reply.text.as_deref(), Some("Checking the café ☕ "));
    assert_eq!(
        read_arguments(reply.tool_calls),
        [
            ToolCall::new("get_current_weather", json!({"location": "São Paulo"}))
                .with_id("call_DdmO9pD3xa9XTPNJ32zg2hcA"),
            ToolCall::new("get_time", json!({})).with_id("call_2"),
        ]
    );
    assert_eq!(server.received()[0].body["stream"], true);
    assert_eq!(
        server.received()[0].body["stream_options"],
        json!({"include_usage": true})
    );
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out_then_the_call_succeeds() {
    let limited = Reply::json(429, r#"{"error": {"message": "Rate limit reached"}}"#)
        .header("retry-after", "1");
    let server = ModelServer::start(vec![limited, Reply::json(200, TEXT)]).await;
    let started = Instant::now();
    let reply = ask(&client(&server, fast_retries(3))).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(reply.finish, FinishReason::Stop);
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_500_is_retried_up_to_the_cap_then_reported() {
    let failing = Reply::json(500, r#"{"error": "overloaded"}"#);
    let server = ModelServer::start(vec![failing.clone(), failing.clone(), failing]).await;
    let err = ask(&client(&server, fast_retries(2))).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "gave up after 3 attempts; last error: the model API answered 500: {\"error\": \"overloaded\"}"
    );
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn a_client_error_status_is_not_retried() {
    let server = ModelServer::start(vec![Reply::json(400, r#"{"error": "bad model"}"#)]).await;
    let err = ask(&client(&server, fast_retries(3))).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the model API answered 400: {\"error\": \"bad model\"}"
    );
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn a_truncated_body_is_reported_as_cut_off() {
    let half = &TOOL_CALLS[..TOOL_CALLS.len() / 2];
    let server = ModelServer::start(vec![
        Reply::json(200, half)
            .cut_short(TOOL_CALLS.len())
            .unchecked(),
    ])
    .await;
    let err = ask(&client(&server, RetryPolicy::none()))
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Truncated(_)), "{err:?}");

    let no_done = &STREAM[..STREAM.find("data: [DONE]").unwrap()];
    let server = ModelServer::start(vec![Reply::event_stream(vec![no_done.into()])]).await;
    let model = OpenAiClient::builder("m")
        .base_url(server.base_url())
        .streaming(true)
        .build()
        .unwrap();
    assert_eq!(
        ask(&model).await.unwrap_err().to_string(),
        "the response body was cut off: the event stream ended before `data: [DONE]`"
    );
}

#[tokio::test]
async fn a_wrong_content_type_is_named() {
    let page = Reply::body(200, "text/html; charset=utf-8", "<html>Bad gateway</html>").unchecked();
    let server = ModelServer::start(vec![page]).await;
    let err = ask(&client(&server, RetryPolicy::none()))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a application/json response, got content type \"text/html; charset=utf-8\""
    );
}

#[tokio::test]
async fn a_wrongly_typed_field_is_named_by_its_path() {
    let body = TEXT.replace(
        "\"The weather in Boston is 22 °C and sunny.\"",
        "[\"not\", \"a string\"]",
    );
    let server = ModelServer::start(vec![Reply::json(200, &body).unchecked()]).await;
    let err = ask(&client(&server, RetryPolicy::none()))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the response body is not a valid OpenAI Chat Completions response: \
         `choices[0].message.content` should be a string, got [\"not\",\"a string\"]"
    );
}

#[tokio::test]
async fn the_api_key_never_shows_in_debug_output_or_errors() {
    let server = ModelServer::start(vec![Reply::json(401, r#"{"error": "invalid key"}"#)]).await;
    let model = client(&server, RetryPolicy::none());
    let debug = format!("{model:?}");
    assert!(debug.contains("key: Some(***)"), "{debug}");
    let err = ask(&model).await.unwrap_err();
    for shown in [debug, err.to_string(), format!("{err:?}")] {
        assert!(!shown.contains("sk-test-secret"), "{shown}");
    }
}

#[tokio::test]
async fn a_server_slower_than_the_timeout_is_a_timeout() {
    let slow = Reply::json(200, TEXT).after(Duration::from_secs(3));
    let server = ModelServer::start(vec![slow]).await;
    let model = OpenAiClient::builder("m")
        .base_url(server.base_url())
        .timeout(Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    assert_eq!(
        ask(&model).await.unwrap_err(),
        ModelError::Timeout(Duration::from_millis(300))
    );
}

#[tokio::test]
async fn a_recorded_run_replays_offline_to_the_same_history() {
    let server =
        ModelServer::start(vec![Reply::json(200, TOOL_CALLS), Reply::json(200, TEXT)]).await;
    let recorder = std::sync::Arc::new(Recorder::new(client(&server, RetryPolicy::none())));
    let live = Agent::builder(recorder.clone())
        .toolbox(weather())
        .build()
        .run("Weather in Boston?")
        .await
        .unwrap();
    let path = std::env::temp_dir().join(format!("toolkit-recording-{}.json", std::process::id()));
    recorder.save(&path).unwrap();
    drop(server);

    let replayer = Replayer::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let agent = Agent::builder(replayer).toolbox(weather()).build();
    let replayed = agent.run("Weather in Boston?").await.unwrap();
    assert_eq!(replayed.history, live.history);
    assert_eq!(replayed.answer, live.answer);

    let changed = Agent::builder(Replayer::new(recorder.exchanges()))
        .toolbox(weather())
        .build();
    let err = changed.run("Weather in Paris?").await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "the model failed at step 1: the replayed run diverged at exchange 0: message 0 \
         differs (recorded 1 messages, asked with 1)"
    );
}

/// A client that sends tools as strict definitions.
fn strict_client(server: &ModelServer) -> OpenAiClient {
    OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .strict_tools(true)
        .build()
        .unwrap()
}

/// Optional, defaulted, constrained and nested parameters, and a typed answer with an optional
/// field, all reach the server in strict mode's subset: the SDK validator checks every object is
/// closed and lists every property as required.
#[tokio::test]
async fn strict_tools_and_a_strict_typed_answer_keep_to_strict_modes_rules() {
    let server = ModelServer::start(vec![Reply::json(200, TEXT)]).await;
    let schema = json!({"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "default": 1},
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "near": {"type": "object", "properties": {"lat": {"type": "number"},
            "lon": {"type": "number"}}, "required": ["lat"]},
        "tags": {"type": "array", "items": {"type": "string"}}}});
    let definition = ToolDefinition::new("forecast", "The forecast", schema);
    let tool = ToolProxy::from_fn(definition, |_| Ok::<_, String>("sunny"));
    let toolbox = Toolbox::builder().tool(tool).build().unwrap();
    let options = ChatOptions {
        output: Some(OutputSchema {
            name: "answer".into(),
            schema: json!({"type": "object", "properties": {"text": {"type": "string"},
                "source": {"type": "string"}}, "required": ["text"]}),
            strict: true,
        }),
        ..ChatOptions::default()
    };
    let messages = [Message::user("Forecast?")];
    strict_client(&server)
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap();
    let body = &server.received()[0].body;
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["city", "days", "unit", "near", "tags"])
    );
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["required"],
        json!(["text", "source"])
    );
    assert_eq!(server.refusals(), Vec::<String>::new());
}

#[tokio::test]
async fn strict_tools_and_a_forced_tool_choice_are_sent_when_asked() {
    let server = ModelServer::start(vec![Reply::json(200, TOOL_CALLS)]).await;
    let model = strict_client(&server);
    let messages = [Message::user("Weather in Boston?")];
    let toolbox = weather();
    let options = ChatOptions {
        tool_choice: ToolChoice::Tool("get_current_weather".into()),
        parallel_tool_calls: false,
        temperature: Some(0.0),
        max_tokens: Some(256),
        ..ChatOptions::default()
    };
    model
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap();
    let body = &server.received()[0].body;
    assert_eq!(
        body["tools"],
        *toolbox.definitions(Format::OpenAiStrict).unwrap()
    );
    assert_eq!(body["tools"][0]["function"]["strict"], true);
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "get_current_weather"}})
    );
    assert_eq!(body["parallel_tool_calls"], false);
    assert_eq!(
        (&body["temperature"], &body["max_tokens"]),
        (&json!(0.0), &json!(256))
    );
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model = OpenAiClient::builder("m")
        .base_url(format!("http://127.0.0.1:{port}/v1"))
        .api_key("sk-test-secret")
        .retry(fast_retries(1))
        .build()
        .unwrap();
    let err = ask(&model).await.unwrap_err();
    let ModelError::RetriesExhausted { attempts, last } = &err else {
        panic!("expected retries, got {err:?}");
    };
    assert_eq!(*attempts, 2);
    let ModelError::Connect { url, .. } = &**last else {
        panic!("expected a connection error, got {last:?}");
    };
    assert_eq!(*url, format!("http://127.0.0.1:{port}/v1/chat/completions"));
    assert!(!err.to_string().contains("sk-test-secret"));
}

#[tokio::test]
async fn a_tool_strict_mode_cannot_express_is_a_request_error_and_nothing_is_sent() {
    let server = ModelServer::start(vec![Reply::json(200, TOOL_CALLS)]).await;
    let model = strict_client(&server);
    // `value` takes any JSON value, which strict mode has no schema for.
    let schema = json!({"type": "object", "properties": {"value": {}}, "required": ["value"]});
    let tool = ToolProxy::from_fn(
        ToolDefinition::new("keep", "Keep a value", schema),
        |args| Ok::<_, String>(args["value"].clone()),
    );
    let toolbox = Toolbox::builder().tool(tool).build().unwrap();
    let (messages, options) = ([Message::user("Keep 1")], ChatOptions::default());
    let err = model
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Request { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(
            "the OpenAI Chat Completions request cannot be built: the tools cannot be sent as \
             strict definitions: "
        ),
        "{err}"
    );
    assert!(server.received().is_empty());
}
