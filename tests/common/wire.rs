//! Model replies in the providers' real wire formats, for the scripted model server: OpenAI
//! Chat Completions responses and Anthropic Messages responses, shaped as their docs show.

// Each test file uses the formats it needs.
#![allow(dead_code)]
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::models::{AnthropicClient, OpenAiClient, RetryPolicy};

use super::model_server::{ModelServer, Reply};

/// An OpenAI client of `server`, without retries.
pub fn openai_client(server: &ModelServer) -> OpenAiClient {
    OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .api_key("sk-test")
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(5))
        .build()
        .expect("the client builds")
}

/// An Anthropic client of `server`, without retries.
pub fn anthropic_client(server: &ModelServer) -> AnthropicClient {
    AnthropicClient::builder("claude-3-5-sonnet-20240620")
        .base_url(server.base_url())
        .api_key("sk-ant-test")
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(5))
        .build()
        .expect("the client builds")
}

/// A Chat Completions response with `message` and its finish reason.
pub fn openai(message: Value, finish: &str) -> Reply {
    let body = json!({
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 1741570283,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    });
    Reply::json(200, &body.to_string())
}

/// A Chat Completions text answer.
pub fn openai_text(text: &str) -> Reply {
    openai(json!({"role": "assistant", "content": text}), "stop")
}

/// A Chat Completions reply asking for `calls` (id, tool, arguments).
pub fn openai_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    let message = json!({"role": "assistant", "content": null, "tool_calls": calls});
    openai(message, "tool_calls")
}

/// A Messages response with `content` blocks.
pub fn anthropic(content: Value, stop: &str) -> Reply {
    let body = json!({
        "id": "msg_scripted", "type": "message", "model": "claude-3-5-sonnet-20240620",
        "role": "assistant", "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    });
    Reply::json(200, &body.to_string())
}

/// A Messages text answer.
pub fn anthropic_text(text: &str) -> Reply {
    anthropic(json!([{"type": "text", "text": text}]), "end_turn")
}

/// A Messages reply with `tool_use` blocks (id, tool, input).
pub fn anthropic_calls(calls: &[(&str, &str, Value)]) -> Reply {
    let blocks: Vec<Value> = calls
        .iter()
        .map(
            |(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        )
        .collect();
    anthropic(Value::Array(blocks), "tool_use")
}
