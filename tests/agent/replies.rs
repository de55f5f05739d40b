//! What the agent loop does with the calls of one reply, through the real clients against a
//! local server speaking each wire format: a malformed call, repeated call ids, more calls than
//! a step runs, arguments and text over their caps; and a sync tool slower than the deadline.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::model_server::{ModelServer, Reply};
use serde_json::Value;
use toolkit::ToolDefinition;
use toolkit::agent::Agent;
use toolkit::models::{
    AnthropicClient, ChatOptions, ModelReply, OpenAiClient, RetryPolicy, ScriptedModel,
};
use toolkit::prelude::*;
use toolkit::state::{DynamicState, StateSchema, StateWiring};

/// `echo(n)` answers "ran {n}" and counts its runs.
fn echo(runs: &Arc<AtomicUsize>) -> Toolbox {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
        "required": ["n"]});
    let runs = Arc::clone(runs);
    let tool = ToolProxy::from_fn(ToolDefinition::new("echo", "Echo", schema), move |args| {
        runs.fetch_add(1, Ordering::SeqCst);
        Ok::<_, String>(format!("ran {}", args["n"]))
    });
    Toolbox::builder().tool(tool).build().unwrap()
}

fn openai(server: &ModelServer, stream: bool) -> OpenAiClient {
    OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .streaming(stream)
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

fn anthropic(server: &ModelServer, stream: bool) -> AnthropicClient {
    AnthropicClient::builder("claude-sonnet-4-5")
        .base_url(server.base_url())
        .streaming(stream)
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

/// A Chat Completion asking for `calls` (each an element of `message.tool_calls`).
fn openai_calls(calls: Vec<Value>) -> Reply {
    let body = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
        "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant",
        "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}});
    Reply::json(200, &body.to_string())
}

fn openai_call(id: &str, n: i64) -> Value {
    json!({"id": id, "type": "function",
        "function": {"name": "echo", "arguments": format!("{{\"n\":{n}}}")}})
}

fn openai_text(text: &str) -> Reply {
    let body = json!({"id": "chatcmpl-2", "object": "chat.completion", "created": 1,
        "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant",
        "content": text}, "finish_reason": "stop"}]});
    Reply::json(200, &body.to_string())
}

/// A Messages response with these content blocks.
fn anthropic_blocks(content: Vec<Value>) -> Reply {
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": content, "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5}});
    Reply::json(200, &body.to_string())
}

fn anthropic_call(id: &str, n: i64) -> Value {
    json!({"type": "tool_use", "id": id, "name": "echo", "input": {"n": n}})
}

fn anthropic_text(text: &str) -> Reply {
    anthropic_blocks(vec![json!({"type": "text", "text": text})])
}

/// The `role: tool` messages of an OpenAI request, as (id, content).
fn openai_results(body: &Value) -> Vec<(String, String)> {
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let id = m["tool_call_id"].as_str().unwrap().to_owned();
            (id, m["content"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// The `tool_result` blocks of an Anthropic request, as (id, content).
fn anthropic_results(body: &Value) -> Vec<(String, String)> {
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "tool_result")
        .map(|block| {
            let id = block["tool_use_id"].as_str().unwrap().to_owned();
            (id, block["content"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(id, content)| (id.to_string(), content.to_string()))
        .collect()
}

#[tokio::test]
async fn openai_a_malformed_call_is_answered_with_an_error_and_the_others_run() {
    let broken = json!({"id": "c2", "type": "function", "function": {"arguments": "{}"}});
    let calls = vec![openai_call("c1", 1), broken, openai_call("c3", 3)];
    let server =
        ModelServer::start(vec![openai_calls(calls).unchecked(), openai_text("done")]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(openai(&server, false))
        .toolbox(echo(&runs))
        .build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.answer, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    let error = "Error: could not read a tool call: \
                 `choices[0].message.tool_calls[1].function.name` should be a string, got nothing";
    assert_eq!(
        openai_results(&server.received()[1].body),
        pairs(&[("c1", "ran 1"), ("c3", "ran 3"), ("c2", error)])
    );
}

#[tokio::test]
async fn anthropic_a_malformed_call_is_answered_with_an_error_and_the_others_run() {
    let broken = json!({"type": "tool_use", "id": "t2", "input": {"n": 2}});
    let blocks = vec![anthropic_call("t1", 1), broken, anthropic_call("t3", 3)];
    let server = ModelServer::start(vec![
        anthropic_blocks(blocks).unchecked(),
        anthropic_text("done"),
    ])
    .await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(anthropic(&server, false))
        .toolbox(echo(&runs))
        .build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.answer, "done");
    assert_eq!(runs.load(Ordering::SeqCst), 2);
    let error =
        "Error: could not read a tool call: `content[1].name` should be a string, got nothing";
    assert_eq!(
        anthropic_results(&server.received()[1].body),
        pairs(&[("t1", "ran 1"), ("t3", "ran 3"), ("t2", error)])
    );
}

#[tokio::test]
async fn openai_repeated_call_ids_are_made_unique_and_each_result_goes_back_with_its_call() {
    let calls = vec![openai_call("dup", 1), openai_call("dup", 2)];
    let server = ModelServer::start(vec![openai_calls(calls), openai_text("done")]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(openai(&server, false))
        .toolbox(echo(&runs))
        .build();
    agent.run("go").await.unwrap();
    let second = &server.received()[1].body;
    let asked: Vec<(&str, &str)> = second["messages"][1]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let id = c["id"].as_str().unwrap();
            (id, c["function"]["arguments"].as_str().unwrap())
        })
        .collect();
    assert_eq!(asked, [("dup", "{\"n\":1}"), ("dup_2", "{\"n\":2}")]);
    assert_eq!(
        openai_results(second),
        pairs(&[("dup", "ran 1"), ("dup_2", "ran 2")])
    );
}

#[tokio::test]
async fn anthropic_repeated_call_ids_are_made_unique_and_each_result_goes_back_with_its_call() {
    let blocks = vec![anthropic_call("dup", 1), anthropic_call("dup", 2)];
    let server = ModelServer::start(vec![anthropic_blocks(blocks), anthropic_text("done")]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(anthropic(&server, false))
        .toolbox(echo(&runs))
        .build();
    agent.run("go").await.unwrap();
    let second = &server.received()[1].body;
    let asked: Vec<(&str, &Value)> = second["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| (block["id"].as_str().unwrap(), &block["input"]))
        .collect();
    assert_eq!(
        asked,
        [("dup", &json!({"n": 1})), ("dup_2", &json!({"n": 2}))]
    );
    assert_eq!(
        anthropic_results(second),
        pairs(&[("dup", "ran 1"), ("dup_2", "ran 2")])
    );
}

/// What the model is told of the calls past the limit, for a reply of 70.
const OVER_LIMIT: &str = "Not run: your reply asked for 70 tool calls and at most 64 run in one \
                          step, so the 6 calls after the first 64 were left out; ask for the \
                          rest in your next reply.";

/// The `role: user` messages of an OpenAI request.
fn openai_user_texts(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().unwrap();
    (messages.iter())
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

/// Whether each assistant message's calls are answered, in order, by the `role: tool`
/// messages right after it, as Chat Completions requires of every `tool_call_id`.
fn openai_calls_answered(body: &Value) -> bool {
    let messages = body["messages"].as_array().unwrap();
    messages.iter().enumerate().all(|(at, message)| {
        let calls = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        calls.iter().enumerate().all(|(offset, call)| {
            let answer = messages.get(at + 1 + offset);
            answer.is_some_and(|m| m["role"] == "tool" && m["tool_call_id"] == call["id"])
        })
    })
}

/// Whether each `tool_use` block is answered by a `tool_result` block of the next message, as
/// the Messages API requires.
fn anthropic_calls_answered(body: &Value) -> bool {
    let messages = body["messages"].as_array().unwrap();
    let blocks = |m: &Value| m["content"].as_array().cloned().unwrap_or_default();
    messages.iter().enumerate().all(|(at, message)| {
        let next = messages.get(at + 1).map(blocks).unwrap_or_default();
        blocks(message)
            .iter()
            .filter(|block| block["type"] == "tool_use")
            .all(|call| {
                next.iter().any(|block| {
                    block["type"] == "tool_result" && block["tool_use_id"] == call["id"]
                })
            })
    })
}

#[tokio::test]
async fn openai_calls_past_max_tool_calls_per_step_are_left_out_with_one_note() {
    let calls = (0..70).map(|n| openai_call(&format!("c{n}"), n)).collect();
    let server = ModelServer::start(vec![openai_calls(calls), openai_text("done")]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(openai(&server, false))
        .toolbox(echo(&runs))
        .build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 64);
    assert_eq!(run.steps[0].calls.len(), 64);
    let second = &server.received()[1].body;
    let results = openai_results(second);
    assert_eq!(results.len(), 64);
    assert_eq!(results[63], ("c63".to_owned(), "ran 63".to_owned()));
    assert_eq!(
        second["messages"][1]["tool_calls"]
            .as_array()
            .unwrap()
            .len(),
        64
    );
    assert_eq!(openai_user_texts(second), ["go", OVER_LIMIT]);
    assert!(openai_calls_answered(second), "{second}");
}

#[tokio::test]
async fn anthropic_calls_past_max_tool_calls_per_step_are_left_out_with_one_note() {
    let blocks = (0..70)
        .map(|n| anthropic_call(&format!("t{n}"), n))
        .collect();
    let server = ModelServer::start(vec![anthropic_blocks(blocks), anthropic_text("done")]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(anthropic(&server, false))
        .toolbox(echo(&runs))
        .build();
    agent.run("go").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 64);
    let second = &server.received()[1].body;
    let results = anthropic_results(second);
    assert_eq!(results.len(), 64);
    assert_eq!(results[63], ("t63".to_owned(), "ran 63".to_owned()));
    // The results and the note share the one user turn that follows the reply, results first.
    let turn = second["messages"][2]["content"].as_array().unwrap();
    assert_eq!(turn.len(), 65);
    assert_eq!(turn[64], json!({"type": "text", "text": OVER_LIMIT}));
    assert!(anthropic_calls_answered(second), "{second}");
}

#[tokio::test]
async fn ten_thousand_calls_a_reply_for_five_steps_keep_the_request_small() {
    let reply = || {
        let calls = (0..10_000)
            .map(|n| openai_call(&format!("c{n}"), n))
            .collect();
        openai_calls(calls)
    };
    let server = ModelServer::start((0..5).map(|_| reply()).collect()).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(openai(&server, false))
        .toolbox(echo(&runs))
        .max_steps(5)
        .build();
    let error = agent.run("go").await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the agent reached its limit of 5 steps without an answer"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 5 * 64);
    let received = server.received();
    let sizes: Vec<usize> = received.iter().map(|r| r.body.to_string().len()).collect();
    // Measured: [279, 2759514, 5518749, 8277984, 11037219] when every refused call stayed in
    // the history with its error result; [279, 9382, 18485, 27588, 36691] with one note a step.
    eprintln!("request bytes by step: {sizes:?}");
    let last = &received[4].body;
    assert!(sizes[4] < 100_000, "the last request is {} bytes", sizes[4]);
    assert_eq!(openai_results(last).len(), 4 * 64);
    assert_eq!(openai_user_texts(last).len(), 1 + 4);
    assert!(openai_calls_answered(last));
}

/// 2 MiB of `n`, which no default cap lets through.
fn huge() -> String {
    format!("{{\"n\":\"{}\"}}", "9".repeat(2 << 20))
}

/// What a call with `huge()` arguments is answered with.
const TOO_LARGE: &str = "Error: could not read a tool call: the arguments are 2097160 bytes, \
                         over the limit of 1048576; send smaller arguments";

/// An OpenAI event stream of these `data:` payloads, ending with `[DONE]`.
fn openai_stream(chunks: Vec<Value>) -> Reply {
    let mut events: Vec<Vec<u8>> = chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n").into_bytes())
        .collect();
    events.push(b"data: [DONE]\n\n".to_vec());
    Reply::event_stream(events)
}

fn openai_delta(delta: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
        "model": "gpt-4o-mini", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

/// An Anthropic event stream of these events, between `message_start` and `message_stop`.
fn anthropic_stream(body: Vec<Value>) -> Reply {
    let start = json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": null,
        "usage": {"input_tokens": 10, "output_tokens": 1}}});
    let stop = json!({"type": "message_stop"});
    let events = std::iter::once(start).chain(body).chain([stop]);
    let events = events
        .map(|event| {
            format!(
                "event: {}\ndata: {event}\n\n",
                event["type"].as_str().unwrap()
            )
        })
        .map(String::into_bytes)
        .collect();
    Reply::event_stream(events)
}

#[tokio::test]
async fn openai_streamed_arguments_over_the_cap_are_refused_and_never_sent_back() {
    let huge = huge();
    let (head, tail) = huge.split_at(huge.len() / 2);
    let stream = openai_stream(vec![
        openai_delta(
            json!({"tool_calls": [{"index": 0, "id": "small", "type": "function",
            "function": {"name": "echo", "arguments": "{\"n\":1}"}}]}),
        ),
        openai_delta(
            json!({"tool_calls": [{"index": 1, "id": "large", "type": "function",
            "function": {"name": "echo", "arguments": head}}]}),
        ),
        openai_delta(json!({"tool_calls": [{"index": 1, "function": {"arguments": tail}}]})),
    ]);
    let done = openai_stream(vec![openai_delta(json!({"content": "done"}))]);
    let server = ModelServer::start(vec![stream, done]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(openai(&server, true))
        .toolbox(echo(&runs))
        .build();
    agent.run("go").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let second = &server.received()[1].body;
    assert_eq!(
        second["messages"][1]["tool_calls"][1]["function"]["arguments"],
        "{}"
    );
    assert_eq!(
        openai_results(second),
        pairs(&[("small", "ran 1"), ("large", TOO_LARGE)])
    );
    assert!(second.to_string().len() < 10_000, "the arguments went back");
}

#[tokio::test]
async fn anthropic_streamed_arguments_over_the_cap_are_refused_and_never_sent_back() {
    let huge = huge();
    let (head, tail) = huge.split_at(huge.len() / 2);
    let delta = |index: u64, json: &str| {
        json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "input_json_delta", "partial_json": json}})
    };
    let start = |index: u64, id: &str| {
        json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": id, "name": "echo", "input": {}}})
    };
    let stream = anthropic_stream(vec![
        start(0, "small"),
        delta(0, "{\"n\":1}"),
        start(1, "large"),
        delta(1, head),
        delta(1, tail),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9}}),
    ]);
    let done = anthropic_stream(vec![json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": "done"}})]);
    let server = ModelServer::start(vec![stream, done]).await;
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder(anthropic(&server, true))
        .toolbox(echo(&runs))
        .build();
    agent.run("go").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let second = &server.received()[1].body;
    assert_eq!(second["messages"][1]["content"][1]["input"], json!({}));
    assert_eq!(
        anthropic_results(second),
        pairs(&[("small", "ran 1"), ("large", TOO_LARGE)])
    );
    assert!(second.to_string().len() < 10_000, "the arguments went back");
}

/// The answer of a reply of 5,000 bytes of text under a cap of 1,000.
fn cut_answer() -> String {
    let note = "\n[cut: the reply's text is 5000 bytes, over the limit of 1000]";
    format!("{}{note}", "a".repeat(1000 - note.len()))
}

#[tokio::test]
async fn openai_streamed_text_over_the_cap_is_cut_with_a_note() {
    let text = "a".repeat(5000);
    let (head, tail) = text.split_at(2500);
    let stream = openai_stream(vec![
        openai_delta(json!({"content": head})),
        openai_delta(json!({"content": tail})),
    ]);
    let server = ModelServer::start(vec![stream]).await;
    let agent = Agent::builder(openai(&server, true))
        .max_text_bytes(1000)
        .build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.answer, cut_answer());
}

#[tokio::test]
async fn anthropic_streamed_text_over_the_cap_is_cut_with_a_note() {
    let text = "a".repeat(5000);
    let (head, tail) = text.split_at(2500);
    let delta = |text: &str| {
        json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": text}})
    };
    let stream = anthropic_stream(vec![
        json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        delta(head),
        delta(tail),
    ]);
    let server = ModelServer::start(vec![stream]).await;
    let agent = Agent::builder(anthropic(&server, true))
        .max_text_bytes(1000)
        .build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.answer, cut_answer());
}

#[tokio::test]
async fn any_models_call_over_the_argument_cap_is_refused_by_the_agent() {
    let runs = Arc::new(AtomicUsize::new(0));
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("echo", json!({"n": "x".repeat(100)})).with_id("big")]),
        ModelReply::text("done"),
    ]);
    let agent = Agent::builder(model)
        .toolbox(echo(&runs))
        .max_argument_bytes(50)
        .build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let record = run.tool_calls().next().unwrap();
    assert_eq!(record.call.args, json!({}));
    assert_eq!(
        record.result.value,
        json!(
            "Error: could not read a tool call: the arguments are 108 bytes, over the limit of \
             50; send smaller arguments"
        )
    );
    assert_eq!(ChatOptions::default().max_argument_bytes, 1 << 20);
}

/// An agent with a one-second deadline whose model calls `slow`, a sync tool that takes 4 s,
/// wired to state by `wiring` when given.
fn slow_tool_agent(wiring: Option<StateWiring>) -> Agent {
    let schema = json!({"type": "object", "properties": {}});
    let slow = ToolProxy::from_fn(ToolDefinition::new("slow", "Slow", schema), |_| {
        std::thread::sleep(Duration::from_secs(4));
        Ok::<_, String>(1)
    });
    let slow = match wiring {
        Some(wiring) => slow.with_state(wiring).unwrap(),
        None => slow,
    };
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("slow", json!({}))]),
        ModelReply::text("done"),
    ]);
    Agent::builder(model)
        .toolbox(Toolbox::builder().tool(slow).build().unwrap())
        .deadline(Duration::from_secs(1))
        .build()
}

#[tokio::test]
async fn the_deadline_holds_against_a_slow_sync_tool() {
    let agent = slow_tool_agent(None);
    let started = Instant::now();
    let outcome = agent.run("go").await;
    let elapsed = started.elapsed();
    // About 1.0 s; the tool ran to its end at 4 s before.
    assert!(elapsed < Duration::from_millis(2500), "{elapsed:?}");
    let err = outcome.unwrap_err();
    assert_eq!(err.to_string(), "the agent did not finish within 1s");
}

#[tokio::test]
async fn an_agent_run_with_state_stops_at_its_deadline() {
    let agent = slow_tool_agent(Some(StateWiring::new().output("n")));
    let state = DynamicState::new(StateSchema::new().key("n", json!({"type": "integer"})));
    let started = Instant::now();
    let outcome = agent.run("go").state(Box::new(state)).await;
    let elapsed = started.elapsed();
    // About 1.0 s: the batch with state takes the run's time left, so the sync tool runs where
    // the run can stop waiting for it (before, it ran on the run's own task for its 4 s).
    assert!(elapsed < Duration::from_millis(2500), "{elapsed:?}");
    assert_eq!(
        outcome.unwrap_err().to_string(),
        "the agent did not finish within 1s"
    );
}

#[derive(Default)]
struct Shouter;

#[toolset(name = "shouter")]
impl Shouter {
    /// Say it louder
    #[tool]
    fn shout(&self, text: String) -> String {
        text.to_uppercase()
    }
}

#[tokio::test]
async fn an_agents_call_under_a_deadline_takes_the_typed_fast_path() {
    let toolbox = Toolbox::builder().toolset::<Shouter>().build().unwrap();
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("shouter_shout", json!({"text": "hi"}))]),
        ModelReply::text("done"),
    ]);
    let agent = Agent::builder(model)
        .toolbox(toolbox)
        .deadline(Duration::from_secs(30))
        .build();
    let before = toolkit::__fast_path_calls("shouter_shout");
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.tool_calls().next().unwrap().result.value, json!("HI"));
    // Under the run's deadline the call runs on the blocking pool, read there by the typed
    // reader (before, a deadline sent it down the full JSON pipeline).
    assert_eq!(toolkit::__fast_path_calls("shouter_shout") - before, 1);
}

/// A model that says it caps its own replies, and does not: what it gives is what the agent
/// keeps, so a client's reply is capped once, by the client.
struct SelfCapping;

impl toolkit::models::ChatModel for SelfCapping {
    fn chat<'a>(
        &'a self,
        _request: toolkit::models::ChatRequest<'a>,
    ) -> toolkit::models::BoxFuture<'a, Result<ModelReply, toolkit::models::ModelError>> {
        Box::pin(async { Ok(ModelReply::text("b".repeat(2000))) })
    }

    fn caps_replies(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_reply_is_capped_once_by_the_model_that_caps_its_own_or_by_the_agent() {
    let agent = Agent::builder(SelfCapping).max_text_bytes(1000).build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.answer, "b".repeat(2000));
    let scripted = ScriptedModel::new([ModelReply::text("a".repeat(5000))]);
    let agent = Agent::builder(scripted).max_text_bytes(1000).build();
    let run = agent.run("go").await.unwrap();
    assert_eq!(run.answer, cut_answer());
}
