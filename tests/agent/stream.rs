//! `agent.run(..).stream()`: events as they happen, from the clients' stream parsers over loopback
//! (Chat Completions and Anthropic event streams) and from any model's whole reply; dropping the
//! stream cancels the run's tool calls.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::model_server::{ModelServer, Reply};
use futures::StreamExt;
use toolkit::agent::{Agent, AgentEvent, StreamItem};
use toolkit::models::{AnthropicClient, ModelReply, OpenAiClient, RetryPolicy, ScriptedModel};
use toolkit::prelude::*;

const OPENAI_STREAM: &str = include_str!("../fixtures/models/openai_stream.sse");
const ANTHROPIC_STREAM: &str = include_str!("../fixtures/models/anthropic_stream.sse");

const OPENAI_TEXT: &str = "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Sunny, \"}}]}\n\n\
    data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"28 °C\"},\"finish_reason\":\"stop\"}]}\n\n\
    data: [DONE]\n\n";

fn weather_tools() -> Toolbox {
    let weather = ToolBuilder::new("get_current_weather")
        .description("Current weather")
        .parameters(json!({"type": "object", "properties": {"location": {"type": "string"}}}))
        .build_with_context(|args, ctx: ToolContext| {
            ctx.progress(1.0, Some(1.0), "looked it up");
            Ok::<_, String>(format!(
                "28 °C in {}",
                args["location"].as_str().unwrap_or("?")
            ))
        })
        .unwrap();
    let time = ToolBuilder::new("get_time")
        .description("The time")
        .build(|_args| Ok::<_, String>("noon"))
        .unwrap();
    Toolbox::builder().tool(weather).tool(time).build().unwrap()
}

/// A compact trace of a streamed run, one line per event.
async fn trace(agent: &Agent) -> (Vec<String>, serde_json::Value) {
    let mut lines = Vec::new();
    let mut answer = serde_json::Value::Null;
    let mut stream = agent.run("Weather in São Paulo?").stream();
    while let Some(item) = stream.next().await {
        let event = match item.unwrap() {
            StreamItem::Event(event) => event,
            StreamItem::Done(run) => {
                assert_eq!(run.steps.len(), 2);
                answer = json!(run.answer);
                lines.push("done".into());
                continue;
            }
            other => panic!("{other:?}"),
        };
        lines.push(match event {
            AgentEvent::StepStarted { step } => format!("step {step}"),
            AgentEvent::TextDelta { text, .. } => format!("text {text:?}"),
            AgentEvent::ToolCallDelta {
                index,
                name,
                arguments,
                ..
            } => format!("call {index} {name:?} {arguments:?}"),
            AgentEvent::ModelReplied { step, .. } => format!("replied {step}"),
            AgentEvent::ToolCalled { call, .. } => format!("started {}", call.name),
            AgentEvent::ToolProgress { tool, progress, .. } => {
                format!("progress {tool} {:?}", progress.message)
            }
            AgentEvent::ToolFinished { record, .. } => {
                assert!(!record.is_error(), "{:?}", record.result);
                format!("finished {}", record.call.name)
            }
            AgentEvent::StepFinished { record } => format!("step {} done", record.step),
            AgentEvent::Answer { answer } => format!("answer {answer}"),
            other => format!("{other:?}"),
        });
    }
    (lines, answer)
}

#[tokio::test]
async fn a_streamed_run_over_chat_completions_yields_deltas_then_tools_then_the_answer() {
    let server = ModelServer::start(vec![
        Reply::event_stream(vec![OPENAI_STREAM.into()]),
        Reply::event_stream(vec![OPENAI_TEXT.into()]),
    ])
    .await;
    // Not built `streaming(true)`: a streamed run streams anyway.
    let model = OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let agent = Agent::builder(model)
        .toolbox(weather_tools())
        .parallel_tool_calls(false)
        .build();
    let (lines, answer) = trace(&agent).await;
    assert_eq!(answer, json!("Sunny, 28 °C"));
    let at = |line: &str| {
        let found = lines.iter().position(|l| l == line);
        found.unwrap_or_else(|| panic!("{line} in {lines:#?}"))
    };
    assert_eq!(lines[0], "step 1");
    assert_eq!(lines[1], "text \"Checking the caf\u{e9} \u{2615} \"");
    assert!(lines.contains(&"call 0 Some(\"get_current_weather\") \"\"".to_owned()));
    assert!(
        at("started get_current_weather")
            < at("progress get_current_weather Some(\"looked it up\")")
    );
    assert!(
        at("progress get_current_weather Some(\"looked it up\")")
            < at("finished get_current_weather")
    );
    assert!(at("finished get_time") < at("step 1 done"));
    assert_eq!(
        lines[at("step 1 done")..],
        [
            "step 1 done",
            "step 2",
            "text \"Sunny, \"",
            "text \"28 °C\"",
            "replied 2",
            "step 2 done",
            "answer Sunny, 28 °C",
            "done"
        ]
    );
    for request in server.received() {
        assert_eq!(request.body["stream"], true);
    }
}

#[tokio::test]
async fn a_streamed_run_over_anthropic_passes_input_json_deltas_on() {
    let text = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-3-5-sonnet-20240620\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n\
        event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
        event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Foggy\"}}\n\n\
        event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n\
        event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let server = ModelServer::start(vec![
        Reply::event_stream(vec![ANTHROPIC_STREAM.into()]),
        Reply::event_stream(vec![text.into()]),
    ])
    .await;
    let model = AnthropicClient::builder("claude-sonnet-4-5")
        .base_url(server.base_url())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let agent = Agent::builder(model).build();
    let mut arguments = String::new();
    let mut texts = Vec::new();
    let mut stream = agent.run("Weather?").stream();
    while let Some(item) = stream.next().await {
        match item.unwrap() {
            StreamItem::Event(AgentEvent::ToolCallDelta { arguments: a, .. }) => {
                arguments.push_str(&a)
            }
            StreamItem::Event(AgentEvent::TextDelta { text, .. }) => texts.push(text),
            StreamItem::Done(run) => assert_eq!(run.answer, "Foggy"),
            _ => {}
        }
    }
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&arguments).unwrap(),
        json!({"location": "São Paulo, BR"})
    );
    assert_eq!(texts.last().map(String::as_str), Some("Foggy"));
}

#[tokio::test]
async fn any_model_streams_its_whole_reply_and_a_failed_run_ends_the_stream_with_its_error() {
    let agent = Agent::builder(ScriptedModel::new([ModelReply::text("four")])).build();
    let events: Vec<_> = agent.run("2 + 2?").stream().collect().await;
    assert!(
        matches!(&events[1], Ok(StreamItem::Event(AgentEvent::TextDelta { text, .. })) if text == "four")
    );
    assert!(matches!(events.last(), Some(Ok(StreamItem::Done(run))) if run.answer == "four"));
    let failing = Agent::builder(ScriptedModel::new([])).build();
    let events: Vec<_> = failing.run("2 + 2?").stream().collect().await;
    let last = events.last().unwrap().as_ref().unwrap_err();
    assert!(
        last.to_string().starts_with("the model failed at step 1"),
        "{last}"
    );
}

/// Waits until `flag` is set, for at most two seconds.
async fn wait_for(flag: &AtomicBool) -> bool {
    let started = Instant::now();
    while !flag.load(Ordering::SeqCst) && started.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    flag.load(Ordering::SeqCst)
}

#[tokio::test]
async fn dropping_the_stream_cancels_the_running_tools_contexts() {
    let (async_saw, sync_saw) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let seen = Arc::clone(&async_saw);
    let slow_async = ToolBuilder::new("slow_async")
        .description("Takes a while")
        .build_async_with_context(move |_args, ctx: ToolContext| {
            let seen = Arc::clone(&seen);
            async move {
                let token = ctx.cancellation().clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    seen.store(true, Ordering::SeqCst);
                });
                tokio::time::sleep(Duration::from_secs(30)).await;
                Ok::<_, String>("late")
            }
        })
        .unwrap();
    let seen = Arc::clone(&sync_saw);
    let slow_sync = ToolBuilder::new("slow_sync")
        .description("Takes a while too")
        .build_with_context(move |_args, ctx: ToolContext| {
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(30) {
                if ctx.is_cancelled() {
                    seen.store(true, Ordering::SeqCst);
                    return Err("cancelled".to_owned());
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Ok("late")
        })
        .unwrap();
    let model = ScriptedModel::new([
        ModelReply::calls([
            ToolCall::new("slow_async", json!({})),
            ToolCall::new("slow_sync", json!({})),
        ]),
        ModelReply::text("never"),
    ]);
    // A deadline puts the sync tool on the blocking pool, where it runs on after the drop.
    let agent = Agent::builder(model)
        .toolbox(
            Toolbox::builder()
                .tool(slow_async)
                .tool(slow_sync)
                .build()
                .unwrap(),
        )
        .deadline(Duration::from_secs(60))
        .build();
    let mut stream = agent.run("go").stream();
    let mut started = 0;
    while started < 2 {
        if let Some(Ok(StreamItem::Event(AgentEvent::ToolCalled { .. }))) = stream.next().await {
            started += 1;
        }
    }
    // Let both calls begin before the stream goes.
    let _ = tokio::time::timeout(Duration::from_millis(100), stream.next()).await;
    drop(stream);
    assert!(
        wait_for(&async_saw).await,
        "the async tool's context was not cancelled"
    );
    assert!(
        wait_for(&sync_saw).await,
        "the sync tool's context was not cancelled"
    );
}
