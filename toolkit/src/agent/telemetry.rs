//! The run's spans in OpenTelemetry's GenAI semantic conventions
//! (<https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/>): `invoke_agent` for the
//! run, `chat` for each model call, `execute_tool` for each tool call (the runtime's
//! `tool_call` span). `otel.name` and `otel.kind` name the span for `tracing-opentelemetry`.
//!
//! Message content goes on a span only when the application opts in
//! ([`AgentBuilder::trace_content`](super::AgentBuilder::trace_content)): it may hold what
//! users and tools said.

use serde_json::{Value, json};
use tracing::Span;
use tracing::field::Empty;

use crate::models::{ChatModel, ChatOptions, FinishReason, Message, ModelReply, Usage};

/// The span of a whole run.
pub(super) fn agent_span(model: &dyn ChatModel) -> Span {
    let span = tracing::info_span!(
        "agent.run",
        otel.name = "invoke_agent",
        otel.kind = "internal",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = Empty,
        gen_ai.request.model = model.name(),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
    );
    if let Some(provider) = model.provider_name() {
        span.record("gen_ai.provider.name", provider);
    }
    span
}

/// The span of step `step`'s model call, with the request's options.
pub(super) fn chat_span(step: usize, model: &dyn ChatModel, options: &ChatOptions) -> Span {
    let name = model.name();
    let span = tracing::info_span!(
        "agent.model_call",
        step,
        model = name,
        otel.name = Empty,
        otel.kind = "client",
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = Empty,
        gen_ai.request.model = name,
        gen_ai.request.temperature = Empty,
        gen_ai.request.max_tokens = Empty,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.input.messages = Empty,
        gen_ai.output.messages = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    span.record("otel.name", format!("chat {name}"));
    if let Some(provider) = model.provider_name() {
        span.record("gen_ai.provider.name", provider);
    }
    if let Some(temperature) = options.temperature {
        span.record("gen_ai.request.temperature", f64::from(temperature));
    }
    if let Some(max_tokens) = options.max_tokens {
        span.record("gen_ai.request.max_tokens", max_tokens);
    }
    span
}

/// Records what the model call asked (with content) before it is sent.
pub(super) fn record_input(span: &Span, history: &[Message], content: bool) {
    if content && !span.is_disabled() {
        let messages: Vec<Value> = history.iter().map(message).collect();
        span.record("gen_ai.input.messages", Value::Array(messages).to_string());
    }
}

/// Records the reply on its span: finish reason, usage, and (with content) the message.
pub(super) fn record_reply(span: &Span, reply: &ModelReply, content: bool) {
    if span.is_disabled() {
        return;
    }
    let finish = finish_reason(&reply.finish);
    span.record(
        "gen_ai.response.finish_reasons",
        json!([finish]).to_string(),
    );
    record_usage(span, reply.usage);
    if content {
        let output = Message::assistant_calls(reply.text.clone(), reply.tool_calls.clone());
        let mut output = message(&output);
        output["finish_reason"] = json!(finish);
        span.record("gen_ai.output.messages", json!([output]).to_string());
    }
}

pub(super) fn record_usage(span: &Span, usage: Option<Usage>) {
    if let Some(usage) = usage {
        span.record("gen_ai.usage.input_tokens", usage.input_tokens);
        span.record("gen_ai.usage.output_tokens", usage.output_tokens);
    }
}

/// The convention's finish reasons: `stop`, `tool_call`, `length`, `content_filter`.
fn finish_reason(finish: &FinishReason) -> &str {
    match finish {
        FinishReason::Stop => "stop",
        FinishReason::ToolCalls => "tool_call",
        FinishReason::Length => "length",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Other(other) => other,
    }
}

/// A message in the convention's shape: `{"role", "parts": [{"type": "text", "content"},
/// {"type": "tool_call", "id", "name", "arguments"}, {"type": "tool_call_response", "id",
/// "response"}]}`.
fn message(message: &Message) -> Value {
    let text = |content: &str| json!({"type": "text", "content": content});
    match message {
        Message::System { content } => json!({"role": "system", "parts": [text(content)]}),
        Message::User { content } => json!({"role": "user", "parts": [text(content)]}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut parts: Vec<Value> = content.as_deref().map(text).into_iter().collect();
            parts.extend(tool_calls.iter().map(|call| {
                let arguments = match &call.args {
                    Value::String(text) => serde_json::from_str(text).unwrap_or(json!(text)),
                    other => other.clone(),
                };
                json!({"type": "tool_call", "id": call.id, "name": call.name,
                    "arguments": arguments})
            }));
            json!({"role": "assistant", "parts": parts})
        }
        Message::Tool { result } => json!({"role": "tool", "parts": [
            {"type": "tool_call_response", "id": result.call_id, "response": result.value}
        ]}),
    }
}
