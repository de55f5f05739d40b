//! The OpenAI Responses client against a local server speaking the Responses API, with bodies
//! in the shapes of OpenAI's API reference (<https://platform.openai.com/docs/api-reference/responses>,
//! "The response object", "Streaming events") and its function-calling guide: `function_call`
//! items, `function_call_output` with images, semantic stream events, errors and retries.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use common::model_server::{ModelServer, Reply, read_arguments, split_at};
use toolkit::ToolDefinition;
use toolkit::agent::Agent;
use toolkit::models::{
    ChatModel, ChatOptions, ChatRequest, FinishReason, Message, ModelError, ModelReply,
    OpenAiResponsesClient, OutputSchema, RetryPolicy, StreamDelta, ToolChoice, Usage,
};
use toolkit::prelude::*;
use toolkit::providers::Format;
use toolkit::{Image, ToolOutput};

const CALL: &str = include_str!("../fixtures/models/responses_function_call.json");
const TEXT: &str = include_str!("../fixtures/models/responses_text.json");
const STREAM: &str = include_str!("../fixtures/models/responses_stream.sse");

fn weather() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"}},
        "required": ["location"]});
    let definition = ToolDefinition::new("get_weather", "Current weather", schema);
    let tool = ToolProxy::from_fn(definition, |args| {
        let location = args["location"].as_str().unwrap_or_default().to_owned();
        Ok::<_, String>(format!("15 °C and foggy in {location}"))
    });
    Toolbox::builder().tool(tool).build().unwrap()
}

fn client(server: &ModelServer, retry: RetryPolicy) -> OpenAiResponsesClient {
    OpenAiResponsesClient::builder("gpt-4.1")
        .base_url(server.base_url())
        .api_key("sk-test-secret")
        .retry(retry)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn fast_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(1),
        max_delay: Duration::from_secs(5),
    }
}

async fn ask(model: &OpenAiResponsesClient) -> Result<ModelReply, ModelError> {
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather in Paris?"),
    ];
    let (toolbox, options) = (weather(), ChatOptions::default());
    model
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
}

#[tokio::test]
async fn a_documented_function_call_response_is_read_and_the_request_is_responses() {
    let server = ModelServer::start(vec![Reply::json(200, CALL)]).await;
    let model = client(&server, RetryPolicy::none());
    assert!(model.native_output());
    let reply = ask(&model).await.unwrap();
    assert_eq!(
        read_arguments(reply.tool_calls.clone()),
        [
            ToolCall::new("get_weather", json!({"location": "Paris, France"}))
                .with_id("call_12345xyz")
        ]
    );
    assert_eq!(reply.finish, FinishReason::ToolCalls);
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: 36,
            output_tokens: 87
        })
    );
    let request = &server.received()[0];
    assert!(request.head.starts_with("POST /v1/responses HTTP/1.1\r\n"));
    assert!(
        request
            .head
            .contains("authorization: Bearer sk-test-secret\r\n")
    );
    assert_eq!(
        request.body,
        json!({
            "model": "gpt-4.1",
            "store": false,
            "input": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
            ],
            "tools": weather().definitions(Format::OpenAiResponses).unwrap(),
            "tool_choice": "auto",
            "parallel_tool_calls": true,
        })
    );
}

#[tokio::test]
async fn an_agent_sends_function_call_items_and_outputs_with_images() {
    /// A chart of the weather
    #[tool]
    fn get_weather(location: String) -> ToolOutput {
        let _ = location;
        ToolOutput::new()
            .with("the chart")
            .with(Image::png([1, 2, 3]))
    }
    let chart = get_weather_tool();
    let server = ModelServer::start(vec![Reply::json(200, CALL), Reply::json(200, TEXT)]).await;
    let agent = Agent::builder(client(&server, RetryPolicy::none()))
        .toolbox(Toolbox::builder().tool(chart).build().unwrap())
        .tool_choice(ToolChoice::Tool("get_weather".into()))
        .parallel_tool_calls(false)
        .build();
    let run = agent.run("Weather in Paris?").await.unwrap();
    assert_eq!(run.answer, "It is 15 °C and foggy in Paris.");
    let second = &server.received()[1].body;
    assert_eq!(
        second["tool_choice"],
        json!({"type": "function", "name": "get_weather"})
    );
    assert_eq!(second["parallel_tool_calls"], false);
    assert_eq!(
        second["input"][1],
        json!({"type": "function_call", "call_id": "call_12345xyz", "name": "get_weather",
            "arguments": "{\"location\":\"Paris, France\"}"})
    );
    assert_eq!(
        second["input"][2],
        json!({"type": "function_call_output", "call_id": "call_12345xyz", "output": [
            {"type": "input_text", "text": "the chart"},
            {"type": "input_image", "image_url": "data:image/png;base64,AQID"},
        ]})
    );
}

#[tokio::test]
async fn a_stream_split_mid_argument_and_mid_character_is_assembled_and_its_deltas_passed_on() {
    let in_sao = STREAM.find("São").unwrap() + 2;
    let in_cup = STREAM.find('☕').unwrap() + 1;
    let in_args = STREAM.find("function_call_arguments.delta").unwrap() + 7;
    let chunks = split_at(STREAM, &[in_cup, in_sao, in_args]);
    let server = ModelServer::start(vec![Reply::event_stream(chunks)]).await;
    let model = client(&server, RetryPolicy::none());
    let messages = [Message::user("Weather in São Paulo?")];
    let (toolbox, options) = (weather(), ChatOptions::default());
    let seen = Mutex::new(Vec::new());
    let sink = |delta: StreamDelta| seen.lock().unwrap().push(delta);
    let reply = model
        .chat_stream(ChatRequest::new(&messages, &toolbox, &options), &sink)
        .await
        .unwrap();
    assert_eq!(
        reply.text.as_deref(),
        Some("Checking the café ☕ in São Paulo")
    );
    assert_eq!(
        read_arguments(reply.tool_calls),
        [ToolCall::new("get_weather", json!({"location": "São Paulo"})).with_id("call_1234xyz")]
    );
    assert_eq!(reply.finish, FinishReason::ToolCalls);
    assert_eq!(reply.usage.map(|u| u.total()), Some(109));
    assert_eq!(server.received()[0].body["stream"], true);
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen[0], StreamDelta::Text("Checking the ".into()));
    let arguments: String = seen
        .iter()
        .filter_map(|delta| match delta {
            StreamDelta::ToolCall { arguments, .. } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(arguments, r#"{"location":"São Paulo"}"#);
}

#[tokio::test]
async fn a_stream_error_event_a_failed_response_and_a_cut_stream_are_clear_errors() {
    let error = "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\
        \"message\":\"The server had an error\",\"param\":null,\"sequence_number\":1}\n\n";
    let failed = "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":1,\
        \"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1741290958,\
        \"model\":\"gpt-4.1\",\"parallel_tool_calls\":true,\"tool_choice\":\"auto\",\"tools\":[],\
        \"status\":\"failed\",\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Slow down\"},\
        \"output\":[]}}\n\n";
    let cut = &STREAM[..STREAM.find("event: response.completed").unwrap()];
    let garbage = "event: response.output_text.delta\ndata: {not json\n\n";
    let replies = [error, failed, cut, garbage].map(|body| {
        let reply = Reply::event_stream(vec![body.as_bytes().to_vec()]);
        // Not JSON on purpose.
        if body == garbage {
            reply.unchecked()
        } else {
            reply
        }
    });
    let server = ModelServer::start(replies.to_vec()).await;
    let model = OpenAiResponsesClient::builder("gpt-4.1")
        .base_url(server.base_url())
        .streaming(true)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let mut errors = Vec::new();
    for _ in 0..4 {
        errors.push(ask(&model).await.unwrap_err().to_string());
    }
    assert_eq!(
        errors,
        [
            "the response body is not a valid OpenAI Responses response: the body reports an \
             error (server_error): The server had an error",
            "the response body is not a valid OpenAI Responses response: `response` reports a \
             failed response (rate_limit_exceeded): Slow down",
            "the response body was cut off: the event stream ended before `response.completed`",
            "the response body is not a valid OpenAI Responses response: a stream event is not \
             JSON: key must be a string at line 1 column 2",
        ]
    );
}

#[tokio::test]
async fn a_500_is_retried_and_a_400_is_reported_with_the_providers_message() {
    let failing = Reply::json(500, r#"{"error": {"message": "overloaded"}}"#);
    let bad = Reply::json(
        400,
        r#"{"error": {"message": "Unknown parameter: 'x'.", "type": "invalid_request_error"}}"#,
    );
    let server = ModelServer::start(vec![failing, Reply::json(200, TEXT), bad]).await;
    let model = client(&server, fast_retries(2));
    let reply = ask(&model).await.unwrap();
    assert_eq!(
        reply.text.as_deref(),
        Some("It is 15 °C and foggy in Paris.")
    );
    let err = ask(&model).await.unwrap_err().to_string();
    assert!(err.starts_with("the model API answered 400: "), "{err}");
    assert!(err.contains("Unknown parameter"), "{err}");
    assert_eq!(server.received().len(), 3);
}

#[tokio::test]
async fn a_typed_answer_is_asked_for_as_a_strict_json_schema_text_format() {
    let server = ModelServer::start(vec![Reply::json(200, TEXT)]).await;
    let messages = [Message::user("Weather?")];
    let schema = json!({"type": "object", "properties": {"celsius": {"type": "number"}},
        "required": ["celsius"], "additionalProperties": false});
    let options = ChatOptions {
        output: Some(OutputSchema {
            name: "weather".into(),
            schema: schema.clone(),
            strict: true,
        }),
        max_tokens: Some(100),
        ..ChatOptions::default()
    };
    let toolbox = Toolbox::default();
    client(&server, RetryPolicy::none())
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap();
    let body = &server.received()[0].body;
    assert_eq!(
        body["text"],
        json!({"format": {"type": "json_schema", "name": "weather", "schema": schema, "strict": true}})
    );
    assert_eq!(body["max_output_tokens"], 100);
    assert!(body.get("tools").is_none());
}

/// Strict mode refuses a schema with an optional property or an open object: the answer's schema
/// goes in strict mode's subset (the SDK validator checks it), or not strict when it has none.
#[tokio::test]
async fn a_typed_answer_is_sent_in_strict_modes_subset_or_not_strict_when_it_has_none() {
    let server = ModelServer::start(vec![Reply::json(200, TEXT), Reply::json(200, TEXT)]).await;
    let messages = [Message::user("Weather?")];
    let optional = json!({"type": "object", "properties": {"celsius": {"type": "number"},
        "note": {"type": "string"}}, "required": ["celsius"]});
    let map = json!({"type": "object", "additionalProperties": {"type": "number"}});
    let toolbox = Toolbox::default();
    for schema in [&optional, &map] {
        let options = ChatOptions {
            output: Some(OutputSchema {
                name: "weather".into(),
                schema: schema.clone(),
                strict: true,
            }),
            ..ChatOptions::default()
        };
        client(&server, RetryPolicy::none())
            .chat(ChatRequest::new(&messages, &toolbox, &options))
            .await
            .unwrap();
    }
    let received = server.received();
    assert_eq!(
        received[0].body["text"]["format"],
        json!({"type": "json_schema", "name": "weather", "strict": true, "schema": {
            "type": "object",
            "properties": {"celsius": {"type": "number"}, "note": {"type": ["string", "null"]}},
            "required": ["celsius", "note"], "additionalProperties": false}})
    );
    assert_eq!(
        received[1].body["text"]["format"],
        json!({"type": "json_schema", "name": "weather", "strict": false, "schema": map})
    );
}
