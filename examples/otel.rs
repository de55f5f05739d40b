//! An agent's spans exported through OpenTelemetry: `tracing-opentelemetry` turns the run's
//! `tracing` spans into OpenTelemetry spans, named and attributed as the GenAI semantic
//! conventions say (`invoke_agent`, `chat {model}`, `execute_tool {tool}`, `gen_ai.*`).
//!
//! `cargo run --example otel` runs offline: the model is a scripted OpenAI-compatible server on
//! 127.0.0.1, and the exporter is this example's own, printing each span as a tree. In an
//! application, put an OTLP exporter (`opentelemetry-otlp`) where `PrintExporter` is.

#[path = "../tests/common/model_server.rs"]
mod model_server;

use std::sync::{Arc, Mutex};

use model_server::{ModelServer, Reply};
use opentelemetry::trace::{SpanId, TracerProvider as _};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use toolkit::agent::Agent;
use toolkit::models::OpenAiClient;
use toolkit::prelude::*;
use tracing_subscriber::layer::SubscriberExt;

/// Keeps every finished span, to print them as a tree at the end.
#[derive(Debug, Clone, Default)]
struct PrintExporter {
    spans: Arc<Mutex<Vec<SpanData>>>,
}

impl SpanExporter for PrintExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let mut spans = self.spans.lock().unwrap_or_else(|e| e.into_inner());
        spans.extend(batch);
        Ok(())
    }
}

impl PrintExporter {
    /// Prints the spans under `parent`, each with its kind and `gen_ai.*` attributes.
    fn print(&self, parent: SpanId, depth: usize) {
        let spans = self.spans.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut children: Vec<&SpanData> = spans
            .iter()
            .filter(|span| span.parent_span_id == parent)
            .collect();
        children.sort_by_key(|span| span.start_time);
        for span in children {
            let indent = "  ".repeat(depth);
            println!("{indent}{} [{:?}]", span.name, span.span_kind);
            for attribute in &span.attributes {
                let key = attribute.key.as_str();
                if key.starts_with("gen_ai.") {
                    let value = attribute.value.as_str();
                    let shown = match value.char_indices().nth(72) {
                        Some((end, _)) => format!("{}...", &value[..end]),
                        None => value.into_owned(),
                    };
                    println!("{indent}    {key} = {shown}");
                }
            }
            self.print(span.span_context.span_id(), depth + 1);
        }
    }
}

fn completion(message: Value, finish: &str, tokens: (u32, u32)) -> Reply {
    let body = json!({
        "id": "chatcmpl-otel", "object": "chat.completion", "created": 1741570283,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": tokens.0, "completion_tokens": tokens.1,
            "total_tokens": tokens.0 + tokens.1},
    });
    Reply::json(200, &body.to_string())
}

/// Tomorrow's weather forecast for a city
#[tool]
fn weather(city: String) -> String {
    format!("-3 °C and clear in {city}")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exporter = PrintExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("toolkit-example"));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))?;

    let server = ModelServer::start(vec![
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
                "type": "function", "function": {"name": "weather",
                "arguments": "{\"city\":\"Oslo\"}"}}]}),
            "tool_calls",
            (52, 14),
        ),
        completion(
            json!({"role": "assistant", "content": "Oslo: -3 °C and clear; pack a coat."}),
            "stop",
            (80, 11),
        ),
    ])
    .await;
    let model = OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .build()?;
    let agent = Agent::builder(model)
        .toolbox(Toolbox::builder().tool(weather_tool()).build()?)
        // Message content is recorded only when the application asks for it.
        .trace_content(true)
        .build();
    let run = agent.run("What should I pack for Oslo?").await?;
    println!("answer: {}", run.answer);

    provider.force_flush()?;
    exporter.print(SpanId::INVALID, 0);
    provider.shutdown()?;
    Ok(())
}
