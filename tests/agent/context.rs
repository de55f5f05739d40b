//! Tools that talk back inside an agent run: their progress and logs as events, elicitation
//! through `on_elicit` (declined by default), sampling from the agent's model, cancellation on
//! the run's deadline and on drop, and images of a content result sent to a Chat Completions
//! model in a user message after the tool messages.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::model_server::{ModelServer, Reply};
use toolkit::agent::{Agent, AgentError, AgentEvent};
use toolkit::context::{ElicitationAnswer, ElicitationRequest, LogLevel, SamplingRequest};
use toolkit::models::{Message, ModelReply, OpenAiClient, ScriptedModel};
use toolkit::prelude::*;

fn toolbox(tool: ToolProxy) -> Toolbox {
    Toolbox::builder().tool(tool).build().unwrap()
}

/// A model that calls `tool` once, then answers "done".
fn calls_once(tool: &str) -> ScriptedModel {
    ScriptedModel::new([
        ModelReply::calls([ToolCall::new(tool, json!({})).with_id("call_a")]),
        ModelReply::text("done"),
    ])
}

/// The one result of a run.
fn only_result(run: &toolkit::agent::AgentRun) -> Value {
    run.tool_calls().next().unwrap().result.value.clone()
}

/// A one-line record of each event, for comparing orders.
fn recorded(log: &Arc<Mutex<Vec<String>>>) -> impl Fn(&AgentEvent) + Send + Sync + 'static {
    let log = Arc::clone(log);
    move |event| {
        let line = match event {
            AgentEvent::ToolCalled { call, .. } => format!("called {}", call.name),
            AgentEvent::ToolProgress {
                step,
                call_id,
                tool,
                progress,
            } => format!(
                "step {step} {call_id} {tool} progress {}/{} {}",
                progress.done,
                progress.total.unwrap_or_default(),
                progress.message.as_deref().unwrap_or_default()
            ),
            AgentEvent::ToolLog {
                call_id,
                tool,
                level,
                message,
                ..
            } => format!("{call_id} {tool} {} {message}", level.as_str()),
            AgentEvent::ToolFinished { record, .. } => format!("finished {}", record.call.name),
            _ => return,
        };
        log.lock().unwrap().push(line);
    }
}

fn indexing(name: &str, sync: bool) -> ToolProxy {
    let builder = ToolBuilder::new(name).description("Index three files");
    let work = |ctx: &ToolContext| {
        ctx.info("starting");
        for done in 1..=3 {
            ctx.progress(f64::from(done), Some(3.0), format!("file {done}"));
        }
        ctx.log(LogLevel::Warning, "one file was empty");
        "indexed"
    };
    if sync {
        builder.build_with_context(move |_args, ctx| Ok::<_, String>(work(&ctx)))
    } else {
        builder.build_async_with_context(move |_args, ctx| async move {
            tokio::task::yield_now().await;
            Ok::<_, String>(work(&ctx))
        })
    }
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_logs_arrive_as_events_in_order_with_the_call_id() {
    for (name, sync, deadline) in [
        ("index_async", false, None),
        ("index_sync", true, None),
        // With a deadline a sync tool runs on the blocking pool.
        ("index_pool", true, Some(Duration::from_secs(10))),
    ] {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut agent = Agent::builder(calls_once(name))
            .toolbox(toolbox(indexing(name, sync)))
            .on_event(recorded(&log));
        if let Some(deadline) = deadline {
            agent = agent.deadline(deadline);
        }
        let run = agent.build().run("index").await.unwrap();
        assert_eq!(only_result(&run), json!("indexed"));
        let events = log.lock().unwrap().clone();
        println!("{name}: {} events: {events:#?}", events.len());
        assert_eq!(
            events,
            [
                format!("called {name}"),
                format!("call_a {name} info starting"),
                format!("step 1 call_a {name} progress 1/3 file 1"),
                format!("step 1 call_a {name} progress 2/3 file 2"),
                format!("step 1 call_a {name} progress 3/3 file 3"),
                format!("call_a {name} warning one file was empty"),
                format!("finished {name}"),
            ]
        );
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
    reason: String,
}

fn asks_to_delete() -> ToolProxy {
    ToolBuilder::new("delete")
        .description("Delete the notes once the user agrees")
        .build_async_with_context(|_args, ctx| async move {
            Ok::<_, String>(match ctx.elicit::<Confirm>("Delete the notes?").await {
                Ok(Elicited::Accepted(answer)) => {
                    format!("accepted: {} ({})", answer.confirm, answer.reason)
                }
                Ok(Elicited::Declined) => "declined".to_owned(),
                Ok(Elicited::Cancelled) => "cancelled".to_owned(),
                Err(err) => format!("error: {err}"),
            })
        })
        .unwrap()
}

#[tokio::test]
async fn without_on_elicit_the_tool_sees_declined() {
    let agent = Agent::builder(calls_once("delete"))
        .toolbox(toolbox(asks_to_delete()))
        .build();
    let run = agent.run("clean up").await.unwrap();
    println!("the tool's answer: {}", only_result(&run));
    assert_eq!(only_result(&run), json!("declined"));
}

#[tokio::test]
async fn a_custom_on_elicit_answers_the_tool() {
    let asked: Arc<Mutex<Vec<ElicitationRequest>>> = Arc::default();
    let seen = Arc::clone(&asked);
    let agent = Agent::builder(calls_once("delete"))
        .toolbox(toolbox(asks_to_delete()))
        .on_elicit(move |request| {
            seen.lock().unwrap().push(request);
            async { ElicitationAnswer::Accept(json!({"confirm": true, "reason": "old"})) }
        })
        .build();
    let run = agent.run("clean up").await.unwrap();
    assert_eq!(only_result(&run), json!("accepted: true (old)"));
    let asked = asked.lock().unwrap();
    println!("the handler was asked: {asked:#?}");
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].message, "Delete the notes?");
    let properties = &asked[0].requested_schema["properties"];
    assert_eq!(properties["confirm"]["type"], "boolean");
    assert_eq!(properties["reason"]["type"], "string");
}

fn summarises() -> ToolProxy {
    ToolBuilder::new("summarise")
        .description("Summarise the page with the model")
        .build_async_with_context(|_args, ctx| async move {
            let request = SamplingRequest::new("Summarise: a long page")
                .system("Be brief.")
                .max_tokens(50)
                .temperature(0.5);
            match ctx.sample(request).await {
                Ok(reply) => Ok(json!({"text": reply.text(), "model": reply.model,
                    "stop": reply.stop_reason})),
                Err(err) => Err(err.to_string()),
            }
        })
        .unwrap()
}

/// A model that answers a sampling request (no tools, a system prompt) with `summary`, calls
/// `summarise` first and then answers "done"; it keeps the sampling requests it saw.
fn sampling_model(summary: &'static str, seen: Arc<Mutex<Vec<Value>>>) -> ScriptedModel {
    ScriptedModel::from_fn(move |request| {
        if request.tools.is_empty() {
            seen.lock().unwrap().push(json!({
                "messages": serde_json::to_value(request.messages).unwrap(),
                "max_tokens": request.options.max_tokens,
                "temperature": request.options.temperature,
            }));
            return Ok(ModelReply::text(summary));
        }
        match request.messages.last() {
            Some(Message::Tool { .. }) => Ok(ModelReply::text("done")),
            _ => Ok(ModelReply::calls([ToolCall::new("summarise", json!({}))])),
        }
    })
}

#[tokio::test]
async fn a_tools_sampling_request_reaches_the_agents_model_and_the_answer_comes_back() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder(sampling_model("a short page", Arc::clone(&seen)))
        .toolbox(toolbox(summarises()))
        .build();
    let run = agent.run("summarise the page").await.unwrap();
    let result = only_result(&run);
    println!("the tool got: {result}");
    assert_eq!(
        result,
        json!({"text": "a short page", "model": "scripted", "stop": "endTurn"})
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0],
        json!({
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Summarise: a long page"},
            ],
            "max_tokens": 50,
            "temperature": 0.5,
        })
    );
}

#[tokio::test]
async fn a_sampling_model_set_on_the_builder_answers_instead() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let other_seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder(sampling_model("from the agent's model", Arc::clone(&seen)))
        .toolbox(toolbox(summarises()))
        .sampling_model(sampling_model(
            "from the other model",
            Arc::clone(&other_seen),
        ))
        .build();
    let run = agent.run("summarise the page").await.unwrap();
    assert_eq!(only_result(&run)["text"], "from the other model");
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(other_seen.lock().unwrap().len(), 1);
}

/// When a tool's context saw its cancellation.
type Seen = Arc<Mutex<Option<Instant>>>;

/// A sync tool that polls `is_cancelled` every millisecond for up to 10 s and notes when it
/// saw it; `started` is told when it runs.
fn waits_for_cancellation(seen: Seen, started: Arc<tokio::sync::Notify>) -> ToolProxy {
    ToolBuilder::new("wait")
        .description("Wait until cancelled")
        .build_with_context(move |_args, ctx| {
            started.notify_one();
            let began = Instant::now();
            while !ctx.is_cancelled() && began.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(1));
            }
            *seen.lock().unwrap() = ctx.is_cancelled().then(Instant::now);
            Ok::<_, String>("stopped")
        })
        .unwrap()
}

/// The time `seen` was set, waiting for it up to 5 s.
async fn when_seen(seen: &Seen) -> Instant {
    for _ in 0..5000 {
        if let Some(at) = *seen.lock().unwrap() {
            return at;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("the tool never saw its cancellation");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runs_deadline_cancels_a_sync_tools_context() {
    let seen = Seen::default();
    let started = Arc::new(tokio::sync::Notify::new());
    let deadline = Duration::from_millis(200);
    let agent = Agent::builder(calls_once("wait"))
        .toolbox(toolbox(waits_for_cancellation(Arc::clone(&seen), started)))
        .deadline(deadline)
        .build();
    let began = Instant::now();
    let outcome = agent.run("wait").await;
    let returned = began.elapsed();
    assert!(
        matches!(outcome, Err(AgentError::Deadline { .. })),
        "{outcome:?}"
    );
    let late = when_seen(&seen).await.duration_since(began + deadline);
    println!(
        "deadline {deadline:?}: the run returned after {returned:?}; the sync tool saw \
         is_cancelled() {late:?} after the deadline"
    );
    assert!(late < Duration::from_millis(50), "{late:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_run_cancels_a_sync_tools_context() {
    let seen = Seen::default();
    let started = Arc::new(tokio::sync::Notify::new());
    let tool = waits_for_cancellation(Arc::clone(&seen), Arc::clone(&started));
    let agent = Agent::builder(calls_once("wait"))
        .toolbox(toolbox(tool))
        .build();
    // In a task, so the batch's workers are tasks too and the tool body runs on one of them.
    let run = tokio::spawn(async move { agent.run("wait").await });
    started.notified().await;
    let dropped = Instant::now();
    run.abort();
    let late = when_seen(&seen).await.duration_since(dropped);
    println!("the sync tool saw is_cancelled() {late:?} after its run was dropped");
    assert!(late < Duration::from_millis(50), "{late:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_a_run_drops_an_async_tools_future_and_cancels_its_context() {
    struct OnDrop(Seen);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            *self.0.lock().unwrap() = Some(Instant::now());
        }
    }
    let seen = Seen::default();
    let context: Arc<Mutex<Option<ToolContext>>> = Arc::default();
    let started = Arc::new(tokio::sync::Notify::new());
    let (noted, kept, told) = (
        Arc::clone(&seen),
        Arc::clone(&context),
        Arc::clone(&started),
    );
    let tool = ToolBuilder::new("wait")
        .description("Wait a minute")
        .build_async_with_context(move |_args, ctx| {
            let guard = OnDrop(Arc::clone(&noted));
            *kept.lock().unwrap() = Some(ctx);
            let told = Arc::clone(&told);
            async move {
                let _guard = guard;
                told.notify_one();
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok::<_, String>("slept")
            }
        })
        .unwrap();
    let agent = Agent::builder(calls_once("wait"))
        .toolbox(toolbox(tool))
        .build();
    let run = tokio::spawn(async move { agent.run("wait").await });
    started.notified().await;
    let dropped = Instant::now();
    run.abort();
    let late = when_seen(&seen).await.duration_since(dropped);
    let ctx = context.lock().unwrap().clone().unwrap();
    println!(
        "the async tool's future was dropped {late:?} after its run; cancelled: {}",
        ctx.is_cancelled()
    );
    assert!(ctx.is_cancelled());
    assert!(late < Duration::from_millis(50), "{late:?}");
}

/// A Chat Completions response, as OpenAI documents it.
fn completion(message: Value, finish: &str) -> Reply {
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1741570283,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    });
    Reply::json(200, &body.to_string())
}

fn chart() -> ToolProxy {
    ToolBuilder::new("chart")
        .description("Draw a chart")
        .build(|_args| {
            let output = ToolOutput::new()
                .with(Content::text("two points"))
                .with(Image::png([0x89, b'P', b'N', b'G']));
            Ok::<_, String>(output)
        })
        .unwrap()
        .returning_content()
}

#[tokio::test]
async fn images_of_a_content_result_reach_a_chat_completions_model_in_a_user_message() {
    let call = json!({"id": "call_1", "type": "function",
        "function": {"name": "chart", "arguments": "{}"}});
    let server = ModelServer::start(vec![
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [call]}),
            "tool_calls",
        ),
        completion(
            json!({"role": "assistant", "content": "a rising line"}),
            "stop",
        ),
    ])
    .await;
    let model = OpenAiClient::builder("gpt-4o-mini")
        .base_url(server.base_url())
        .build()
        .unwrap();
    let agent = Agent::builder(model).toolbox(toolbox(chart())).build();
    let run = agent.run("draw it").await.unwrap();
    assert_eq!(run.answer, "a rising line");
    let received = server.received();
    let messages = &received[1].body["messages"];
    println!(
        "the second request's messages: {}",
        serde_json::to_string_pretty(messages).unwrap()
    );
    assert_eq!(
        messages,
        &json!([
            {"role": "user", "content": "draw it"},
            {"role": "assistant", "content": null, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content":
                "two points\n[image (image/png), 4 bytes] (shown in the user message after the tool results)"},
            {"role": "user", "content": [
                {"type": "text", "text": "The images the tool call call_1 (chart) returned:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
            ]},
        ])
    );
}
