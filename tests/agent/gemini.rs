//! The Gemini client against a local server speaking the Gemini API, with bodies in the shapes
//! of its reference (<https://ai.google.dev/api/generate-content>) and function-calling guide
//! (<https://ai.google.dev/gemini-api/docs/function-calling>): `functionCall` and
//! `functionResponse` parts, `toolConfig`, `systemInstruction`, `responseSchema`, the
//! `alt=sse` stream, errors and retries, and the key kept out of the URL.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use common::model_server::{ModelServer, Reply, split_at};
use toolkit::ToolDefinition;
use toolkit::agent::Agent;
use toolkit::models::{
    ChatModel, ChatOptions, ChatRequest, FinishReason, GeminiClient, Message, ModelError,
    ModelReply, OutputSchema, RetryPolicy, StreamDelta, ToolChoice, Usage,
};
use toolkit::prelude::*;
use toolkit::providers::gemini_schema;
use toolkit::{Image, ToolOutput};

const CALL: &str = include_str!("../fixtures/models/gemini_function_call.json");
const TEXT: &str = include_str!("../fixtures/models/gemini_text.json");
const STREAM: &str = include_str!("../fixtures/models/gemini_stream.sse");

fn weather() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"location": {"type": "string"}},
        "required": ["location"]});
    let definition = ToolDefinition::new("get_current_weather", "Current weather", schema);
    let tool = ToolProxy::from_fn(definition, |args| {
        let location = args["location"].as_str().unwrap_or_default().to_owned();
        Ok::<_, String>(format!("15 °C and foggy in {location}"))
    });
    Toolbox::builder().tool(tool).build().unwrap()
}

fn client(server: &ModelServer, retry: RetryPolicy) -> GeminiClient {
    GeminiClient::builder("gemini-2.5-flash")
        .base_url(server.base_url())
        .api_key("AIza-test-secret")
        .retry(retry)
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

async fn ask(model: &GeminiClient) -> Result<ModelReply, ModelError> {
    let messages = [
        Message::system("Be brief."),
        Message::user("Weather in Boston?"),
    ];
    let (toolbox, options) = (weather(), ChatOptions::default());
    model
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
}

#[tokio::test]
async fn a_documented_function_call_is_read_and_the_request_is_generate_content() {
    let server = ModelServer::start(vec![Reply::json(200, CALL)]).await;
    let model = client(&server, RetryPolicy::none());
    assert!(model.native_output());
    let reply = ask(&model).await.unwrap();
    assert_eq!(
        reply,
        ModelReply {
            text: None,
            // Gemini gave no id: a local one pairs the result, and is never sent.
            tool_calls: vec![
                ToolCall::new("get_current_weather", json!({"location": "Boston, MA"}))
                    .with_id("gemini-local-0")
            ],
            finish: FinishReason::ToolCalls,
            usage: Some(Usage {
                input_tokens: 34,
                output_tokens: 8
            }),
            refused_calls: Vec::new(),
        }
    );
    let request = &server.received()[0];
    assert!(
        request
            .head
            .starts_with("POST /v1/models/gemini-2.5-flash:generateContent HTTP/1.1\r\n"),
        "{}",
        request.head
    );
    assert!(
        request
            .head
            .contains("x-goog-api-key: AIza-test-secret\r\n")
    );
    assert_eq!(request.head.matches("AIza-test-secret").count(), 1);
    assert_eq!(
        request.body,
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [{"role": "user", "parts": [{"text": "Weather in Boston?"}]}],
            "tools": [{"functionDeclarations": [{"name": "get_current_weather",
                "description": "Current weather", "parameters": {"type": "OBJECT",
                "properties": {"location": {"type": "STRING"}}, "required": ["location"]}}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
        })
    );
}

#[tokio::test]
async fn an_agent_sends_function_responses_in_one_user_turn_with_inline_images() {
    /// A chart of the weather
    #[tool]
    fn get_current_weather(location: String) -> ToolOutput {
        ToolOutput::new()
            .with(format!("the chart for {location}"))
            .with(Image::png([1, 2, 3]))
    }
    let server = ModelServer::start(vec![Reply::json(200, CALL), Reply::json(200, TEXT)]).await;
    let agent = Agent::builder(client(&server, RetryPolicy::none()))
        .toolbox(
            Toolbox::builder()
                .tool(get_current_weather_tool())
                .build()
                .unwrap(),
        )
        .tool_choice(ToolChoice::Tool("get_current_weather".into()))
        .build();
    let run = agent.run("Weather in Boston?").await.unwrap();
    assert_eq!(run.answer, "It is 15 °C and foggy in Boston.");
    assert_eq!(run.usage.map(|u| u.output_tokens), Some(8 + 12 + 38));
    let second = &server.received()[1].body;
    assert_eq!(
        second["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_current_weather"]}})
    );
    // Gemini gave the call no id: none is made up on the wire, the response pairs by order.
    assert_eq!(
        second["contents"][1],
        json!({"role": "model", "parts": [{"functionCall": {"name": "get_current_weather",
            "args": {"location": "Boston, MA"}}}]})
    );
    assert_eq!(
        second["contents"][2],
        json!({"role": "user", "parts": [{"functionResponse": {
            "name": "get_current_weather",
            "response": {"output": "the chart for Boston, MA"},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": "AQID"}}]}}]})
    );
}

/// Gemini pairs a response with its call by the call's `id` when it gave one: the agent echoes it
/// on both the `functionCall` it sends back and the `functionResponse`.
#[tokio::test]
async fn a_call_id_gemini_gives_is_echoed_on_the_call_and_its_response() {
    let call = CALL.replace(
        "\"name\": \"get_current_weather\",",
        "\"id\": \"fc-boston-1\", \"name\": \"get_current_weather\",",
    );
    let server = ModelServer::start(vec![Reply::json(200, &call), Reply::json(200, TEXT)]).await;
    let agent = Agent::builder(client(&server, RetryPolicy::none()))
        .toolbox(weather())
        .build();
    let run = agent.run("Weather in Boston?").await.unwrap();
    assert_eq!(
        run.tool_calls().next().unwrap().call.id.as_deref(),
        Some("fc-boston-1")
    );
    let second = &server.received()[1].body;
    assert_eq!(
        second["contents"][1]["parts"][0]["functionCall"]["id"],
        "fc-boston-1"
    );
    assert_eq!(
        second["contents"][2]["parts"][0]["functionResponse"]["id"],
        "fc-boston-1"
    );
}

#[tokio::test]
async fn a_stream_split_mid_character_is_assembled_from_alt_sse_and_its_deltas_passed_on() {
    let in_cafe = STREAM.find("café").unwrap() + 4;
    let in_sao = STREAM.rfind("São").unwrap() + 2;
    let server = ModelServer::start(vec![Reply::event_stream(split_at(
        STREAM,
        &[in_cafe, in_sao],
    ))])
    .await;
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
        reply.tool_calls,
        [
            ToolCall::new("get_current_weather", json!({"location": "São Paulo"}))
                .with_id("gemini-local-0")
        ]
    );
    assert_eq!(reply.usage.map(|u| u.total()), Some(47));
    let head = &server.received()[0].head;
    assert!(
        head.starts_with(
            "POST /v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse HTTP/1.1\r\n"
        ),
        "{head}"
    );
    assert!(!head.contains("key="), "{head}");
    let seen = seen.into_inner().unwrap();
    assert_eq!(
        seen[..2],
        [
            StreamDelta::Text("Checking the café ☕ ".into()),
            StreamDelta::Text("in São Paulo".into())
        ]
    );
    assert!(
        matches!(&seen[2], StreamDelta::ToolCall { index: 0, name: Some(name), .. }
        if name == "get_current_weather")
    );
}

#[tokio::test]
async fn a_cut_stream_a_malformed_chunk_a_blocked_prompt_and_an_error_status_are_clear() {
    let cut = &STREAM[..STREAM.rfind("data: ").unwrap()];
    let malformed = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": \
        {\"args\": {}}}]}}]}\r\n\r\n";
    let server = ModelServer::start(vec![
        Reply::event_stream(vec![cut.as_bytes().to_vec()]),
        Reply::event_stream(vec![malformed.as_bytes().to_vec()]),
        Reply::json(200, r#"{"promptFeedback": {"blockReason": "SAFETY"}}"#),
        Reply::json(
            400,
            r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}"#,
        ),
    ])
    .await;
    let streaming = GeminiClient::builder("models/gemini-2.5-flash")
        .base_url(server.base_url())
        .api_key("AIza-test-secret")
        .streaming(true)
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let plain = client(&server, RetryPolicy::none());
    let errors = [
        ask(&streaming).await.unwrap_err().to_string(),
        ask(&streaming).await.unwrap_err().to_string(),
        ask(&plain).await.unwrap_err().to_string(),
        ask(&plain).await.unwrap_err().to_string(),
    ];
    assert_eq!(
        errors[..3],
        [
            "the response body was cut off: the event stream ended before a chunk with a \
             `finishReason`",
            "the response body is not a valid Gemini response: \
             `candidates[0].content.parts[0].functionCall.name` should be a string, got nothing",
            "the response body is not a valid Gemini response: the body says the prompt was \
             blocked (SAFETY)",
        ]
    );
    assert!(
        errors[3].starts_with("the model API answered 400: "),
        "{}",
        errors[3]
    );
    assert!(errors[3].contains("API key not valid"), "{}", errors[3]);
    for error in &errors {
        assert!(!error.contains("AIza-test-secret"), "{error}");
    }
}

#[tokio::test]
async fn a_429_is_retried_then_the_call_succeeds() {
    let limited = Reply::json(
        429,
        r#"{"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}"#,
    );
    let server = ModelServer::start(vec![limited, Reply::json(200, TEXT)]).await;
    let retry = RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(1),
        max_delay: Duration::from_secs(1),
    };
    let reply = ask(&client(&server, retry)).await.unwrap();
    assert_eq!(
        reply.text.as_deref(),
        Some("It is 15 °C and foggy in Boston.")
    );
    assert_eq!(server.received().len(), 2);
}

#[tokio::test]
async fn a_typed_answer_is_asked_for_as_a_response_schema_in_geminis_subset() {
    let server = ModelServer::start(vec![Reply::json(200, TEXT)]).await;
    let schema = json!({"type": "object", "additionalProperties": false,
        "properties": {"celsius": {"type": ["number", "null"]}}, "required": ["celsius"],
        "$schema": "https://json-schema.org/draft/2020-12/schema"});
    let options = ChatOptions {
        output: Some(OutputSchema {
            name: "weather".into(),
            schema: schema.clone(),
            strict: true,
        }),
        temperature: Some(0.5),
        max_tokens: Some(100),
        ..ChatOptions::default()
    };
    let (messages, toolbox) = ([Message::user("Weather?")], Toolbox::default());
    client(&server, RetryPolicy::none())
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
        .unwrap();
    let body = &server.received()[0].body;
    assert_eq!(
        body["generationConfig"],
        json!({"temperature": 0.5, "maxOutputTokens": 100,
            "responseMimeType": "application/json", "responseSchema": gemini_schema(&schema)})
    );
    assert_eq!(
        body["generationConfig"]["responseSchema"],
        json!({"type": "OBJECT", "properties": {"celsius": {"type": "NUMBER", "nullable": true}},
            "required": ["celsius"]})
    );
}

#[test]
fn a_model_name_that_cannot_be_a_path_segment_is_refused_at_build() {
    for bad in ["", "a/b", "x?key=1", "..", "gemini 2"] {
        let error = GeminiClient::builder(bad).build().unwrap_err().to_string();
        assert!(
            error.contains("cannot be written in the URL"),
            "{bad}: {error}"
        );
    }
}
