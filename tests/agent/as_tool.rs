//! Agents as tools (`Agent::into_tool`, `into_tool_with`): the inner run's answer is the
//! result, its events reach the caller's callback nested, its steps are the call's progress,
//! its tokens add to the caller's usage, it stops with the call, a depth limit stops an agent
//! that calls itself, and the same tool works served over MCP and called by toolkit's client.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use toolkit::agent::{Agent, AgentError, AgentEvent, RunBudget};
use toolkit::mcp::{HttpOptions, McpClient, McpServer, McpTransport};
use toolkit::models::{Message, ModelReply, ScriptedModel};
use toolkit::prelude::*;

/// Add two numbers
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// An inner agent that adds 2 and 3 with its tool, then answers.
fn adder() -> Agent {
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("add", json!({"a": 2, "b": 3}))]).with_usage(10, 2),
        ModelReply::text("5").with_usage(20, 1),
    ]);
    let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
    Agent::builder(model).toolbox(toolbox).build()
}

fn outer(inner: ToolProxy, task: Value) -> Agent {
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("adder", task).with_id("outer_1")]).with_usage(100, 5),
        ModelReply::text("The sum is 5.").with_usage(200, 6),
    ]);
    Agent::builder(model)
        .toolbox(Toolbox::builder().tool(inner).build().unwrap())
        .build()
}

/// One line per event, the nested ones prefixed with where they came from.
fn line(event: &AgentEvent) -> String {
    match event {
        AgentEvent::Nested {
            agent,
            call_id,
            depth,
            event,
        } => format!("[{agent} {call_id} depth {depth}] {}", line(event)),
        AgentEvent::StepStarted { step } => format!("step {step}"),
        AgentEvent::ToolCalled { call, .. } => format!("call {}", call.name),
        AgentEvent::ToolProgress { tool, progress, .. } => format!(
            "progress {tool} {}/{} {}",
            progress.done,
            progress.total.unwrap_or_default(),
            progress.message.as_deref().unwrap_or_default()
        ),
        AgentEvent::ToolFinished { record, .. } => format!("finished {}", record.call.name),
        AgentEvent::Answer { answer } => format!("answer {answer}"),
        AgentEvent::ModelReplied { .. } => "replied".into(),
        AgentEvent::StepFinished { record } => format!("step {} done", record.step),
        other => format!("{other:?}"),
    }
}

fn recorder() -> (Arc<Mutex<Vec<String>>>, impl Fn(&AgentEvent) + Send + Sync) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    (lines, move |event: &AgentEvent| {
        sink.lock().unwrap().push(line(event))
    })
}

#[tokio::test]
async fn the_inner_answer_is_the_result_and_its_events_and_tokens_reach_the_caller() {
    let inner = adder().into_tool("adder", "Adds numbers").unwrap();
    assert_eq!(inner.parameters()["required"], json!(["task"]));
    let (lines, on_event) = recorder();
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("adder", json!({"task": "2 + 3?"})).with_id("outer_1")])
            .with_usage(100, 5),
        ModelReply::text("The sum is 5.").with_usage(200, 6),
    ]);
    let agent = Agent::builder(model)
        .toolbox(Toolbox::builder().tool(inner).build().unwrap())
        .on_event(on_event)
        .build();
    let run = agent.run("What is 2 + 3?").await.unwrap();
    assert_eq!(run.answer, "The sum is 5.");
    let record = run.tool_calls().next().unwrap();
    assert_eq!(
        (record.result.value.clone(), record.is_error()),
        (json!("5"), false)
    );
    // The outer model's 300 + 11, and the inner model's 30 + 3.
    let usage = run.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (330, 14));
    let nested = "[adder outer_1 depth 1]";
    let expected = [
        "step 1".to_owned(),
        "replied".into(),
        "call adder".into(),
        "progress adder 1/20 adder: step 1".into(),
        format!("{nested} step 1"),
        format!("{nested} replied"),
        format!("{nested} call add"),
        format!("{nested} finished add"),
        format!("{nested} step 1 done"),
        "progress adder 2/20 adder: step 2".into(),
        format!("{nested} step 2"),
        format!("{nested} replied"),
        format!("{nested} step 2 done"),
        format!("{nested} answer 5"),
        "finished adder".into(),
        "step 1 done".into(),
        "step 2".into(),
        "replied".into(),
        "step 2 done".into(),
        "answer The sum is 5.".into(),
    ];
    assert_eq!(*lines.lock().unwrap(), expected);
}

#[tokio::test]
async fn a_streamed_run_carries_the_inner_agents_events_nested_on_the_same_stream() {
    use futures::StreamExt;
    use toolkit::agent::StreamItem;

    let inner = adder().into_tool("adder", "Adds numbers").unwrap();
    let agent = outer(inner, json!({"task": "2 + 3?"}));
    let items: Vec<_> = agent.run("What is 2 + 3?").stream().collect().await;
    let mut nested = Vec::new();
    let mut answer = None;
    for item in items {
        match item.unwrap() {
            StreamItem::Event(event @ AgentEvent::Nested { .. }) => nested.push(line(&event)),
            StreamItem::Done(run) => answer = Some(run.answer),
            _ => {}
        }
    }
    let at = "[adder outer_1 depth 1]";
    let expected: Vec<String> = [
        "step 1",
        "replied",
        "call add",
        "finished add",
        "step 1 done",
        "step 2",
        "replied",
        "step 2 done",
        "answer 5",
    ]
    .iter()
    .map(|line| format!("{at} {line}"))
    .collect();
    assert_eq!(nested, expected);
    assert_eq!(answer.as_deref(), Some("The sum is 5."));
}

#[tokio::test]
async fn a_typed_input_is_validated_and_given_to_the_agent_as_json() {
    #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
    struct Sum {
        /// The numbers to add
        numbers: Vec<i64>,
    }
    let seen = Arc::new(Mutex::new(String::new()));
    let task = Arc::clone(&seen);
    let model = ScriptedModel::from_fn(move |request| {
        if let Some(Message::User { content }) = request.messages.last() {
            *task.lock().unwrap() = content.clone();
        }
        Ok(ModelReply::text("6"))
    });
    let inner = Agent::builder(model).build();
    let tool = inner
        .into_tool_with::<Sum>("adder", "Adds numbers")
        .unwrap();
    assert_eq!(tool.parameters()["properties"]["numbers"]["type"], "array");
    let run = outer(tool.clone(), json!({"numbers": [1, 2, 3]}))
        .run("add")
        .await
        .unwrap();
    assert_eq!(run.tool_calls().next().unwrap().result.value, json!("6"));
    assert_eq!(*seen.lock().unwrap(), r#"{"numbers":[1,2,3]}"#);
    let wrong = tool.dynamic_acall(json!({"numbers": "1, 2"})).await;
    assert!(wrong.as_str().unwrap().starts_with("Error: "), "{wrong}");
}

#[tokio::test]
async fn an_inner_run_that_fails_is_an_error_result_naming_why() {
    let looping = ScriptedModel::from_fn(|_| {
        Ok(ModelReply::calls([ToolCall::new(
            "add",
            json!({"a": 1, "b": 1}),
        )]))
    });
    let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
    let inner = Agent::builder(looping)
        .toolbox(toolbox)
        .max_steps(2)
        .build();
    let tool = inner.into_tool("adder", "Adds numbers").unwrap();
    let run = outer(tool, json!({"task": "add forever"}))
        .run("go")
        .await
        .unwrap();
    let record = run.tool_calls().next().unwrap();
    assert!(record.is_error());
    assert_eq!(
        record.result.text(),
        "Error: the agent \"adder\" failed: the agent reached its limit of 2 steps without an \
         answer"
    );
}

/// The tool an agent calls itself through: `me`, set once the agent is a tool.
static ME: OnceLock<ToolProxy> = OnceLock::new();

fn delegate() -> ToolProxy {
    ToolBuilder::new("delegate")
        .description("Hand the task to another copy of this agent")
        .parameters(json!({
            "type": "object",
            "properties": {"task": {"type": "string"}},
            "required": ["task"],
        }))
        .build_async_with_context(|args, ctx| async move {
            let me = ME.get().ok_or("not set")?;
            let result = ctx.scope().clone().run(me.acall(Value::Object(args))).await;
            result.map_err(|err| err.to_string())
        })
        .unwrap()
}

#[tokio::test]
async fn an_agent_that_calls_itself_stops_at_its_depth_limit_with_a_clear_error() {
    // Delegates until a call fails, then answers with what the failure said.
    let model = ScriptedModel::from_fn(|request| {
        Ok(match request.messages.last() {
            Some(Message::Tool { result }) => ModelReply::text(result.text()),
            _ => ModelReply::calls([ToolCall::new("delegate", json!({"task": "again"}))]),
        })
    });
    let toolbox = Toolbox::builder().tool(delegate()).build().unwrap();
    let (lines, on_event) = recorder();
    let agent = Agent::builder(model)
        .toolbox(toolbox)
        .max_depth(3)
        .on_event(on_event)
        .build();
    let _ = ME.set(agent.into_tool("me", "This agent").unwrap());
    let answer = ME.get().unwrap().dynamic_acall(json!({"task": "go"})).await;
    assert_eq!(
        answer,
        json!(
            "Error: not run: the agent \"me\" would run 4 agents deep, past its limit of 3; an \
             agent calling itself, directly or through others, stops here"
        )
    );
    let deepest = lines
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.matches("depth").count() == 2)
        .count();
    assert!(deepest > 0, "the runs at depth 3 report through depth 2");
}

#[tokio::test]
async fn the_inner_run_stops_when_the_outer_run_hits_its_deadline() {
    let (lines, on_event) = recorder();
    let slow = ToolBuilder::new("slow")
        .description("Waits")
        .build_async(|_| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok::<_, String>("late")
        })
        .unwrap();
    let model = ScriptedModel::new([ModelReply::calls([ToolCall::new("slow", json!({}))])]);
    let inner = Agent::builder(model)
        .toolbox(Toolbox::builder().tool(slow).build().unwrap())
        .build();
    let tool = inner.into_tool("adder", "Waits").unwrap();
    let model = ScriptedModel::new([ModelReply::calls([ToolCall::new(
        "adder",
        json!({"task": "wait"}),
    )])]);
    let agent = Agent::builder(model)
        .toolbox(Toolbox::builder().tool(tool).build().unwrap())
        .deadline(Duration::from_millis(150))
        .on_event(on_event)
        .build();
    let started = std::time::Instant::now();
    let err = agent.run("go").await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("the agent did not finish within"),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let lines = lines.lock().unwrap();
    assert!(lines.iter().any(|l| l.ends_with("call slow")), "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.ends_with("finished slow")),
        "{lines:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_served_over_mcp_answers_and_reports_its_steps_as_progress() {
    let served = adder().into_tool("adder", "Adds numbers").unwrap();
    let server = McpServer::new([served])
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let client = McpClient::connect(McpTransport::http(server.url().as_str()))
        .await
        .expect("connect");
    let remote = client.tools();
    assert_eq!(remote[0].name(), "adder");
    assert_eq!(remote[0].parameters()["required"], json!(["task"]));
    let (lines, on_event) = recorder();
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("adder", json!({"task": "2 + 3?"}))]),
        ModelReply::text("The sum is 5."),
    ]);
    let agent = Agent::builder(model)
        .toolbox(Toolbox::builder().tools("remote", remote).build().unwrap())
        .on_event(on_event)
        .build();
    let run = agent.run("What is 2 + 3?").await.unwrap();
    let record = run.tool_calls().next().unwrap();
    assert!(!record.is_error(), "{:?}", record.result);
    assert_eq!(record.result.text(), "5");
    let progress: Vec<String> = (lines.lock().unwrap().iter())
        .filter(|l| l.starts_with("progress"))
        .cloned()
        .collect();
    // The server coalesces a call's progress to the newest notice not yet sent, so step 1's
    // may be replaced by step 2's; the last one always arrives, in order.
    let every = [
        "progress adder 1/20 adder: step 1",
        "progress adder 2/20 adder: step 2",
    ];
    assert!(progress == every || progress == every[1..], "{progress:?}");
    server.shutdown().await.expect("shut down");
}

#[test]
fn a_bad_name_or_an_input_that_is_no_object_is_a_clear_error() {
    let bad_name = adder().into_tool("add numbers", "Adds").unwrap_err();
    assert!(
        bad_name.to_string().starts_with(
            "tool add numbers cannot be built: the name must be 1 to 64 letters, digits"
        ),
        "{bad_name}"
    );
    let no_description = adder().into_tool("adder", " ").unwrap_err();
    assert!(no_description.to_string().contains("it has no description"));
    let not_an_object = adder()
        .into_tool_with::<String>("adder", "Adds")
        .unwrap_err();
    assert_eq!(
        not_an_object.to_string(),
        "tool adder cannot be built: the parameters schema must describe an object of named \
         arguments, not \"string\""
    );
}

/// Eight calls to `sub` when given a task, then an answer once their results are in; every
/// model call counted in `asked`.
fn fan_out_model(asked: &Arc<AtomicUsize>) -> ScriptedModel {
    let asked = Arc::clone(asked);
    ScriptedModel::from_fn(move |request| {
        asked.fetch_add(1, Ordering::SeqCst);
        Ok(match request.messages.last() {
            Some(Message::User { .. }) => ModelReply::calls(
                (0..8).map(|n| ToolCall::new("sub", json!({"task": format!("part {n}")}))),
            ),
            _ => ModelReply::text("done"),
        })
    })
}

/// An agent with `levels` levels of agents under it: each level's toolbox holds the next as
/// the tool `sub`; the deepest has none, so its calls fail as unknown.
fn tree(levels: usize, asked: &Arc<AtomicUsize>, budget: RunBudget) -> Agent {
    let builder = Agent::builder(fan_out_model(asked)).run_budget(budget);
    if levels == 0 {
        return builder.build();
    }
    let sub = tree(levels - 1, asked, budget)
        .into_tool("sub", "Does part of the task")
        .unwrap();
    builder
        .toolbox(Toolbox::builder().tool(sub).build().unwrap())
        .build()
}

#[tokio::test]
async fn eight_sub_agent_calls_a_reply_at_four_levels_stop_at_the_shared_budget() {
    // Without a budget, the whole tree runs: 1 + 8 + 64 + 512 + 4096 runs of 2 model calls.
    let asked = Arc::new(AtomicUsize::new(0));
    let run = tree(4, &asked, RunBudget::unlimited())
        .run("go")
        .await
        .unwrap();
    assert_eq!(run.answer, "done");
    assert_eq!(asked.load(Ordering::SeqCst), 9_362);

    let asked = Arc::new(AtomicUsize::new(0));
    let budget = RunBudget::default().model_calls(50);
    let error = tree(4, &asked, budget).run("go").await.unwrap_err();
    assert_eq!(asked.load(Ordering::SeqCst), 50);
    assert_eq!(
        error.to_string(),
        "the run stopped: the run's budget of 50 model calls, shared with the agents it calls \
         as tools, is spent"
    );
    assert!(matches!(error, AgentError::Budget { .. }));
    // The sub-agents that could not go on told the model why.
    let told = error.history().iter().any(|message| match message {
        Message::Tool { result } => result.text().starts_with(
            "Error: the agent \"sub\" failed: the run stopped: the run's budget of 50 model calls",
        ),
        _ => false,
    });
    assert!(told, "{:?}", error.history());

    let asked = Arc::new(AtomicUsize::new(0));
    let error = tree(4, &asked, RunBudget::default()).run("go").await;
    assert!(matches!(error, Err(AgentError::Budget { .. })));
    let default = usize::try_from(RunBudget::DEFAULT_MODEL_CALLS).unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), default);
}

#[tokio::test]
async fn tool_calls_past_the_budget_are_answered_and_do_not_run() {
    let model = ScriptedModel::new([
        ModelReply::calls((0..5).map(|n| ToolCall::new("add", json!({"a": n, "b": 1})))),
        ModelReply::text("done"),
    ]);
    let agent = Agent::builder(model)
        .toolbox(Toolbox::builder().tool(add_tool()).build().unwrap())
        .run_budget(RunBudget::default().tool_calls(3))
        .build();
    let run = agent.run("go").await.unwrap();
    let results: Vec<String> = run.tool_calls().map(|c| c.result.text()).collect();
    let refused = "Error: the call to add was refused: not run: the run's budget of 3 tool \
                   calls, shared with the agents it calls as tools, is spent";
    assert_eq!(results, ["1", "2", "3", refused, refused]);
}

#[tokio::test]
async fn a_run_past_its_token_budget_stops_before_its_next_model_call() {
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("add", json!({"a": 1, "b": 1}))]).with_usage(400, 200),
        ModelReply::text("done"),
    ]);
    let agent = Agent::builder(model)
        .toolbox(Toolbox::builder().tool(add_tool()).build().unwrap())
        .run_budget(RunBudget::default().tokens(500))
        .build();
    let error = agent.run("go").await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the run stopped: the run's budget of 500 tokens, shared with the agents it calls as \
         tools, is spent"
    );
}
