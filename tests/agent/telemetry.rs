//! The run's spans follow OpenTelemetry's GenAI semantic conventions
//! (<https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/>): `invoke_agent`,
//! `chat` and `execute_tool`, with the model, provider, usage and tool attributes, and message
//! content only when the application opts in. A capturing `tracing` subscriber reads them.

use crate::common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use common::model_server::{ModelServer, Reply};
use toolkit::ToolDefinition;
use toolkit::agent::Agent;
use toolkit::models::{OpenAiClient, RetryPolicy};
use toolkit::prelude::*;

/// One span: its name, its parent's name, and every field recorded on it, as text.
#[derive(Debug, Clone)]
struct Captured {
    name: String,
    parent: Option<String>,
    fields: BTreeMap<String, String>,
}

#[derive(Clone, Default)]
struct Capture {
    spans: Arc<Mutex<Vec<Captured>>>,
    entered: Arc<Mutex<Vec<u64>>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut fields = BTreeMap::new();
        span.record(&mut Fields(&mut fields));
        let parent = self.entered.lock().unwrap().last().copied();
        let mut spans = self.spans.lock().unwrap();
        let parent = parent.map(|id| spans[id as usize - 1].name.clone());
        spans.push(Captured {
            name: span.metadata().name().to_owned(),
            parent,
            fields,
        });
        tracing::span::Id::from_u64(spans.len() as u64)
    }

    fn record(&self, id: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        values.record(&mut Fields(&mut spans[id.into_u64() as usize - 1].fields));
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}

    fn enter(&self, span: &tracing::span::Id) {
        self.entered.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, _: &tracing::span::Id) {
        self.entered.lock().unwrap().pop();
    }
}

const CALL: &str = r#"{"id": "chatcmpl-1", "object": "chat.completion", "created": 1741570283,
    "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather",
    "arguments": "{\"city\": \"Oslo\"}"}}]}, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}}"#;
const TEXT: &str = r#"{"id": "chatcmpl-2", "object": "chat.completion", "created": 1741570283,
    "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant",
    "content": "Snowing in Oslo."}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 40, "completion_tokens": 7, "total_tokens": 47}}"#;

fn weather() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    let tool = ToolProxy::from_fn(
        ToolDefinition::new("get_weather", "The weather", schema),
        |_| Ok::<_, String>("snow"),
    );
    Toolbox::builder().tool(tool).build().unwrap()
}

/// The spans of one run over a loopback Chat Completions server.
async fn spans_of_a_run(content: bool) -> Vec<Captured> {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(capture.clone());
    let server = ModelServer::start(vec![Reply::json(200, CALL), Reply::json(200, TEXT)]).await;
    let model = OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let agent = Agent::builder(model)
        .toolbox(weather())
        .sampling(Some(0.25), Some(300))
        .trace_content(content)
        .build();
    let run = agent.run("Weather in Oslo?").await.unwrap();
    assert_eq!(run.answer, "Snowing in Oslo.");
    let spans = capture.spans.lock().unwrap();
    spans.clone()
}

fn field<'a>(span: &'a Captured, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

#[tokio::test(flavor = "current_thread")]
async fn a_run_has_invoke_agent_chat_and_execute_tool_spans_with_genai_attributes() {
    let spans = spans_of_a_run(false).await;
    let agent = spans.iter().find(|s| s.name == "agent.run").unwrap();
    assert_eq!(field(agent, "otel.name"), Some("invoke_agent"));
    assert_eq!(field(agent, "gen_ai.operation.name"), Some("invoke_agent"));
    assert_eq!(field(agent, "gen_ai.provider.name"), Some("openai"));
    assert_eq!(field(agent, "gen_ai.request.model"), Some("gpt-4o-mini"));
    assert_eq!(field(agent, "gen_ai.usage.input_tokens"), Some("60"));
    assert_eq!(field(agent, "gen_ai.usage.output_tokens"), Some("12"));

    let chats: Vec<&Captured> = spans
        .iter()
        .filter(|s| field(s, "gen_ai.operation.name") == Some("chat"))
        .collect();
    assert_eq!(chats.len(), 2);
    let first = chats[0];
    assert_eq!(field(first, "otel.name"), Some("chat gpt-4o-mini"));
    assert_eq!(field(first, "otel.kind"), Some("client"));
    assert_eq!(field(first, "gen_ai.provider.name"), Some("openai"));
    assert_eq!(field(first, "gen_ai.request.model"), Some("gpt-4o-mini"));
    assert_eq!(field(first, "gen_ai.request.temperature"), Some("0.25"));
    assert_eq!(field(first, "gen_ai.request.max_tokens"), Some("300"));
    assert_eq!(field(first, "gen_ai.usage.input_tokens"), Some("20"));
    assert_eq!(field(first, "gen_ai.usage.output_tokens"), Some("5"));
    assert_eq!(
        field(first, "gen_ai.response.finish_reasons"),
        Some(r#"["tool_call"]"#)
    );
    assert_eq!(
        field(chats[1], "gen_ai.response.finish_reasons"),
        Some(r#"["stop"]"#)
    );
    // No content without the opt-in.
    for span in &spans {
        assert_eq!(field(span, "gen_ai.input.messages"), None, "{span:?}");
        assert_eq!(field(span, "gen_ai.output.messages"), None, "{span:?}");
    }

    let tool = spans
        .iter()
        .find(|s| field(s, "gen_ai.operation.name") == Some("execute_tool"))
        .unwrap();
    assert_eq!(field(tool, "otel.name"), Some("execute_tool get_weather"));
    assert_eq!(field(tool, "gen_ai.tool.name"), Some("get_weather"));
    assert_eq!(field(tool, "gen_ai.tool.call.id"), Some("call_1"));
    assert_eq!(field(tool, "gen_ai.tool.type"), Some("function"));
    // The tree: the run, its steps, each step's model call and tool calls.
    assert_eq!(tool.parent.as_deref(), Some("agent.step"));
    assert_eq!(first.parent.as_deref(), Some("agent.step"));
    let step = spans.iter().find(|s| s.name == "agent.step").unwrap();
    assert_eq!(step.parent.as_deref(), Some("agent.run"));
}

#[tokio::test(flavor = "current_thread")]
async fn message_content_is_recorded_only_when_the_application_opts_in() {
    let spans = spans_of_a_run(true).await;
    let chats: Vec<&Captured> = spans
        .iter()
        .filter(|s| field(s, "gen_ai.operation.name") == Some("chat"))
        .collect();
    let input: serde_json::Value =
        serde_json::from_str(field(chats[1], "gen_ai.input.messages").unwrap()).unwrap();
    assert_eq!(
        input,
        json!([
            {"role": "user", "parts": [{"type": "text", "content": "Weather in Oslo?"}]},
            {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1",
                "name": "get_weather", "arguments": {"city": "Oslo"}}]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                "response": "snow"}]},
        ])
    );
    let output: serde_json::Value =
        serde_json::from_str(field(chats[1], "gen_ai.output.messages").unwrap()).unwrap();
    assert_eq!(
        output,
        json!([{"role": "assistant", "finish_reason": "stop",
            "parts": [{"type": "text", "content": "Snowing in Oslo."}]}])
    );
}
