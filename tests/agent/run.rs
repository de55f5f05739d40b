//! The agent loop against a scripted model: answers, tool feedback, limits, exits, parallel
//! calls, the deadline, cancellation, usage, events and state.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use toolkit::ToolDefinition;
use toolkit::agent::{Agent, AgentError, AgentEvent, ExitCondition, RunBudget};
use toolkit::models::{Message, ModelError, ModelReply, ScriptedModel, Usage};
use toolkit::prelude::*;
use toolkit::state::{AgentState, DynamicState, StateSchema, StateWiring};

#[derive(Default)]
struct Desk;

#[toolset(name = "desk")]
impl Desk {
    /// Add two numbers
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Divide a by b
    #[tool]
    fn divide(&self, a: i64, b: i64) -> Result<i64, String> {
        a.checked_div(b)
            .ok_or_else(|| "division by zero".to_string())
    }

    /// Wait, then echo the label
    #[tool]
    async fn wait(&self, label: String, millis: u64) -> String {
        tokio::time::sleep(Duration::from_millis(millis)).await;
        label
    }

    /// Submit the final answer
    #[tool]
    fn submit(&self, answer: String) -> String {
        answer
    }
}

fn desk() -> Toolbox {
    Toolbox::builder().toolset::<Desk>().build().unwrap()
}

fn call(id: &str, name: &str, args: Value) -> ToolCall {
    ToolCall::new(name, args).with_id(id)
}

fn result(id: &str, name: &str, value: Value, is_error: bool) -> Message {
    Message::Tool {
        result: ToolCallResult::new(Some(id.into()), name, value, is_error),
    }
}

#[tokio::test]
async fn a_tool_result_goes_back_paired_by_id_and_the_text_reply_is_the_answer() {
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "desk_add", json!({"a": 2, "b": 3}))]),
        ModelReply::text("5"),
    ]);
    let agent = Agent::builder(model)
        .toolbox(desk())
        .system_prompt("You add.")
        .build();
    let run = agent.run("2 + 3?").await.unwrap();
    assert_eq!(run.answer, "5");
    assert_eq!(
        run.history,
        [
            Message::system("You add."),
            Message::user("2 + 3?"),
            Message::assistant_calls(None, vec![call("c1", "desk_add", json!({"a": 2, "b": 3}))]),
            result("c1", "desk_add", json!(5), false),
            Message::assistant("5"),
        ]
    );
    assert_eq!(run.steps.len(), 2);
    assert_eq!(run.tool_calls().count(), 1);
}

#[tokio::test]
async fn calls_without_an_id_are_given_one_so_results_pair_with_them() {
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("desk_add", json!({"a": 1, "b": 1}))]),
        ModelReply::text("2"),
    ]);
    let run = Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("1+1")
        .await
        .unwrap();
    assert_eq!(
        run.history[1],
        Message::assistant_calls(
            None,
            vec![call("call_1_0", "desk_add", json!({"a": 1, "b": 1}))]
        )
    );
    assert_eq!(
        run.history[2],
        result("call_1_0", "desk_add", json!(2), false)
    );
}

#[tokio::test]
async fn reaching_the_step_limit_is_a_typed_error_that_carries_the_history() {
    let model = ScriptedModel::from_fn(|_| {
        Ok(ModelReply::calls([call(
            "c",
            "desk_add",
            json!({"a": 1, "b": 1}),
        )]))
    });
    let err = Agent::builder(model)
        .toolbox(desk())
        .max_steps(3)
        .build()
        .run("loop")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the agent reached its limit of 3 steps without an answer"
    );
    let AgentError::MaxSteps { max_steps, history } = &err else {
        panic!("expected MaxSteps, got {err:?}");
    };
    assert_eq!(*max_steps, 3);
    // The question, then three (assistant, tool result) pairs.
    assert_eq!(history.len(), 1 + 3 * 2);
}

#[tokio::test]
async fn a_failing_tool_goes_back_as_an_error_result_and_the_run_goes_on() {
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "desk_divide", json!({"a": 1, "b": 0}))]),
        ModelReply::calls([call("c2", "desk_add", json!({"a": 1, "b": "two"}))]),
        ModelReply::text("cannot"),
    ]);
    let run = Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("1/0")
        .await
        .unwrap();
    assert_eq!(run.answer, "cannot");
    assert_eq!(
        run.history[2],
        result("c1", "desk_divide", json!("Error: division by zero"), true)
    );
    let Message::Tool { result: bad_args } = &run.history[4] else {
        panic!("expected a tool result, got {:?}", run.history[4]);
    };
    assert!(bad_args.is_error);
    assert_eq!(
        bad_args.text(),
        "Error: invalid arguments for desk_add: b: expected an integer, got the string \"two\""
    );
    assert_eq!(run.tool_calls().filter(|r| r.is_error()).count(), 2);
}

#[tokio::test]
async fn an_unknown_tool_is_answered_with_the_tools_that_exist() {
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "desk_multiply", json!({}))]),
        ModelReply::text("ok"),
    ]);
    let run = Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("x")
        .await
        .unwrap();
    assert_eq!(
        run.history[2],
        result(
            "c1",
            "desk_multiply",
            json!(
                "Error: Unknown tool: desk_multiply. Available: desk_add, desk_divide, desk_wait, desk_submit"
            ),
            true
        )
    );
}

#[tokio::test]
async fn calling_the_exit_tool_ends_the_run_with_its_result() {
    let model = ScriptedModel::new([
        ModelReply::text("I think it is 4"),
        ModelReply::calls([call("c1", "desk_submit", json!({"answer": "4"}))]),
        ModelReply::text("never asked"),
    ]);
    let model = Arc::new(model);
    let run = Agent::builder(model.clone())
        .toolbox(desk())
        .exit_conditions([ExitCondition::Tool("desk_submit".into())])
        .build()
        .run("2+2")
        .await
        .unwrap();
    assert_eq!(run.answer, "4");
    assert_eq!(model.calls(), 2);
    assert_eq!(
        run.history[2],
        Message::user("A text reply does not end this task; finish by calling desk_submit.")
    );
}

#[tokio::test]
async fn the_calls_of_one_reply_run_concurrently() {
    let model = ScriptedModel::new([
        ModelReply::calls([
            call("a", "desk_wait", json!({"label": "a", "millis": 300})),
            call("b", "desk_wait", json!({"label": "b", "millis": 300})),
            call("c", "desk_wait", json!({"label": "c", "millis": 300})),
        ]),
        ModelReply::text("done"),
    ]);
    let started = Instant::now();
    let run = Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("wait")
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let values: Vec<Value> = run.tool_calls().map(|r| r.result.value.clone()).collect();
    assert_eq!(values, [json!("a"), json!("b"), json!("c")]);
    assert!(
        run.tool_calls()
            .all(|r| r.duration >= Duration::from_millis(300))
    );
    assert!(
        elapsed < Duration::from_millis(800),
        "took {elapsed:?}: the calls did not overlap"
    );
}

#[tokio::test]
async fn the_toolbox_concurrency_bounds_the_calls_of_one_reply() {
    let wait = |id: &str| call(id, "desk_wait", json!({"label": id, "millis": 150}));
    let model = ScriptedModel::new([
        ModelReply::calls([wait("a"), wait("b"), wait("c"), wait("d")]),
        ModelReply::text("done"),
    ]);
    let two_at_a_time = Toolbox::builder()
        .toolset::<Desk>()
        .concurrency(2)
        .build()
        .unwrap();
    let started = Instant::now();
    let run = Agent::builder(model)
        .toolbox(two_at_a_time)
        .build()
        .run("wait")
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let values: Vec<Value> = run.tool_calls().map(|r| r.result.value.clone()).collect();
    assert_eq!(values, [json!("a"), json!("b"), json!("c"), json!("d")]);
    // Two rounds of two: at least 300 ms, under the 600 ms of one after another.
    assert!(
        (Duration::from_millis(300)..Duration::from_millis(600)).contains(&elapsed),
        "took {elapsed:?}"
    );
}

#[tokio::test]
async fn with_parallel_calls_off_the_calls_of_a_reply_run_one_after_another() {
    let model = ScriptedModel::new([
        ModelReply::calls([
            call("a", "desk_wait", json!({"label": "a", "millis": 150})),
            call("b", "desk_wait", json!({"label": "b", "millis": 150})),
        ]),
        ModelReply::text("done"),
    ]);
    let started = Instant::now();
    Agent::builder(model)
        .toolbox(desk())
        .parallel_tool_calls(false)
        .build()
        .run("wait")
        .await
        .unwrap();
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[tokio::test]
async fn the_deadline_stops_a_run_and_keeps_its_history() {
    let model = ScriptedModel::new([ModelReply::calls([call(
        "a",
        "desk_wait",
        json!({"label": "a", "millis": 5000}),
    )])]);
    let started = Instant::now();
    let err = Agent::builder(model)
        .toolbox(desk())
        .deadline(Duration::from_millis(200))
        .build()
        .run("wait")
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(err.to_string(), "the agent did not finish within 200ms");
    assert!(matches!(err, AgentError::Deadline { .. }));
    assert_eq!(err.history().len(), 2, "{:?}", err.history());
}

static FINISHED: AtomicBool = AtomicBool::new(false);

#[tokio::test]
async fn dropping_the_run_stops_the_tools_in_flight() {
    let slow = ToolProxy::from_async_fn(
        ToolDefinition::new("slow", "Sleep, then mark done", json!({"type": "object"})),
        |_args| async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            FINISHED.store(true, Ordering::SeqCst);
            Ok::<_, String>(json!("done"))
        },
    );
    let toolbox = Toolbox::builder().tool(slow).build().unwrap();
    let model = ScriptedModel::new([ModelReply::calls([call("s", "slow", json!({}))])]);
    let agent = Agent::builder(model).toolbox(toolbox).build();
    let run = agent.run("go");
    assert!(
        tokio::time::timeout(Duration::from_millis(50), run)
            .await
            .is_err()
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !FINISHED.load(Ordering::SeqCst),
        "the tool ran on after the run was dropped"
    );
}

#[tokio::test]
async fn usage_is_summed_over_the_run() {
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "desk_add", json!({"a": 1, "b": 1}))]).with_usage(100, 20),
        ModelReply::text("2").with_usage(130, 5),
    ]);
    let run = Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("1+1")
        .await
        .unwrap();
    assert_eq!(
        run.usage,
        Some(Usage {
            input_tokens: 230,
            output_tokens: 25
        })
    );
}

#[tokio::test]
async fn a_model_failure_is_an_error_naming_the_step_with_the_history() {
    let model = ScriptedModel::new([ModelReply::calls([call(
        "c1",
        "desk_add",
        json!({"a": 1, "b": 1}),
    )])]);
    let err = Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("1+1")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the model failed at step 2: the scripted model has no reply left after 1 replies"
    );
    let AgentError::Model { error, history, .. } = err else {
        panic!("expected a model error");
    };
    assert_eq!(error, ModelError::ScriptExhausted { given: 1 });
    // The question, the call and its result.
    assert_eq!(history.len(), 3);
}

#[tokio::test]
async fn events_report_each_step_as_it_happens() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "desk_add", json!({"a": 1, "b": 1}))]),
        ModelReply::text("2"),
    ]);
    Agent::builder(model)
        .toolbox(desk())
        .on_event(move |event| {
            let line = match event {
                AgentEvent::StepStarted { step } => format!("step {step}"),
                AgentEvent::ModelReplied { reply, .. } => {
                    format!("model: {} calls", reply.tool_calls.len())
                }
                AgentEvent::ToolCalled { call, .. } => format!("call {}", call.name),
                AgentEvent::ToolFinished { record, .. } => {
                    format!("result {}", record.result.value)
                }
                AgentEvent::StepFinished { record } => format!("step {} done", record.step),
                AgentEvent::Answer { answer } => format!("answer {answer}"),
                _ => "other".into(),
            };
            log.lock().unwrap().push(line);
        })
        .build()
        .run("1+1")
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "step 1",
            "model: 1 calls",
            "call desk_add",
            "result 2",
            "step 1 done",
            "step 2",
            "model: 0 calls",
            "step 2 done",
            "answer 2"
        ]
    );
}

/// A toolbox whose one tool doubles the state's `n` and writes it back.
fn doubling_toolbox() -> Toolbox {
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let double = ToolProxy::from_fn(ToolDefinition::new("double", "Double n", schema), |args| {
        Ok::<_, String>(args["n"].as_i64().unwrap_or_default() * 2)
    });
    let double = double
        .with_state(StateWiring::new().input("n").output("n"))
        .unwrap();
    Toolbox::builder().tool(double).build().unwrap()
}

/// A state with `n` at 5, and a model that calls `double` twice, then answers.
fn doubling_twice() -> (DynamicState, ScriptedModel) {
    let mut state = DynamicState::new(StateSchema::new().key("n", json!({"type": "integer"})));
    state.merge("n", json!(5)).unwrap();
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "double", json!({}))]),
        ModelReply::calls([call("c2", "double", json!({}))]),
        ModelReply::text("twenty"),
    ]);
    (state, model)
}

#[tokio::test]
async fn a_streamed_run_with_state_reports_each_call_and_ends_with_the_final_state() {
    use futures::StreamExt;
    use toolkit::agent::StreamItem;

    let (state, model) = doubling_twice();
    let agent = Agent::builder(model).toolbox(doubling_toolbox()).build();
    let items: Vec<_> = agent
        .run("double twice")
        .state(Box::new(state))
        .stream()
        .collect()
        .await;
    let mut finished = Vec::new();
    let mut last = None;
    for item in items {
        match item.unwrap() {
            StreamItem::Event(AgentEvent::ToolFinished { record, .. }) => {
                finished.push(record.result.value)
            }
            StreamItem::Done(run) => last = Some(run),
            _ => {}
        }
    }
    assert_eq!(finished, [json!(10), json!(20)]);
    let run = last.expect("the stream ends with the run");
    assert_eq!(run.answer, "twenty");
    assert_eq!(run.state.unwrap().to_json(), json!({"n": 20}));
}

#[tokio::test]
async fn a_run_given_state_fills_wired_parameters_and_returns_the_final_state() {
    let toolbox = doubling_toolbox();
    let (state, model) = doubling_twice();
    let run = Agent::builder(model)
        .toolbox(toolbox)
        .build()
        .run("double twice")
        .state(Box::new(state))
        .await
        .unwrap();
    let values: Vec<Value> = run.tool_calls().map(|r| r.result.value.clone()).collect();
    assert_eq!(values, [json!(10), json!(20)]);
    assert_eq!(
        run.state_as::<DynamicState>().unwrap().to_json(),
        json!({"n": 20})
    );
    assert!(run.state_as::<Ledger>().is_none());
    assert_eq!(run.state.unwrap().to_json(), json!({"n": 20}));
}

#[derive(AgentState, Default, serde::Serialize, serde::Deserialize)]
struct Ledger {
    n: i64,
}

#[tokio::test]
async fn a_run_returns_its_derived_state_as_its_own_type() {
    let toolbox = doubling_toolbox();
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "double", json!({}))]),
        ModelReply::text("ten"),
    ]);
    let run = Agent::builder(model)
        .toolbox(toolbox)
        .build()
        .run("double")
        .state(Box::new(Ledger { n: 5 }))
        .await
        .unwrap();
    assert_eq!(run.state_as::<Ledger>().map(|ledger| ledger.n), Some(10));
    let ledger: Ledger = run.into_state().unwrap();
    assert_eq!(ledger.n, 10);
}

#[tokio::test]
async fn each_parallel_call_is_reported_finished_as_soon_as_it_ends() {
    let finished = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&finished);
    let model = ScriptedModel::new([
        ModelReply::calls([
            call("slow", "desk_wait", json!({"label": "slow", "millis": 300})),
            call("fast", "desk_wait", json!({"label": "fast", "millis": 20})),
        ]),
        ModelReply::text("done"),
    ]);
    let run = Agent::builder(model)
        .toolbox(desk())
        .on_event(move |event| {
            if let AgentEvent::ToolFinished { record, .. } = event {
                log.lock()
                    .unwrap()
                    .push(record.call.id.clone().unwrap_or_default());
            }
        })
        .build()
        .run("wait")
        .await
        .unwrap();
    assert_eq!(*finished.lock().unwrap(), ["fast", "slow"]);
    // The history keeps the model's order.
    let ids: Vec<_> = run
        .tool_calls()
        .map(|r| r.call.id.clone().unwrap())
        .collect();
    assert_eq!(ids, ["slow", "fast"]);
}

/// A span's name, `step` field and parent span's name.
type SpanLine = (String, String, Option<String>);

/// A `tracing` subscriber that keeps a [`SpanLine`] for each span.
#[derive(Clone, Default)]
struct SpanLog {
    spans: Arc<Mutex<Vec<SpanLine>>>,
    entered: Arc<Mutex<Vec<u64>>>,
}

struct StepField<'a>(&'a mut String);

impl tracing::field::Visit for StepField<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "step" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for SpanLog {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut step = String::new();
        span.record(&mut StepField(&mut step));
        let parent = self.entered.lock().unwrap().last().copied();
        let mut spans = self.spans.lock().unwrap();
        let parent = parent.map(|id| spans[id as usize - 1].0.clone());
        spans.push((span.metadata().name().to_owned(), step, parent));
        tracing::span::Id::from_u64(spans.len() as u64)
    }

    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}

    fn enter(&self, span: &tracing::span::Id) {
        self.entered.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, _: &tracing::span::Id) {
        self.entered.lock().unwrap().pop();
    }
}

#[tokio::test]
async fn each_step_and_each_model_call_has_a_span() {
    let log = SpanLog::default();
    let _default = tracing::subscriber::set_default(log.clone());
    let model = ScriptedModel::new([
        ModelReply::calls([call("c1", "desk_add", json!({"a": 1, "b": 1}))]),
        ModelReply::text("2"),
    ]);
    Agent::builder(model)
        .toolbox(desk())
        .build()
        .run("1+1")
        .await
        .unwrap();
    let spans = log.spans.lock().unwrap().clone();
    let agent_spans: Vec<(&str, &str, Option<&str>)> = spans
        .iter()
        .filter(|(name, ..)| name.starts_with("agent."))
        .map(|(name, step, parent)| (name.as_str(), step.as_str(), parent.as_deref()))
        .collect();
    assert_eq!(
        agent_spans,
        [
            ("agent.run", "", None),
            ("agent.step", "1", Some("agent.run")),
            ("agent.model_call", "1", Some("agent.step")),
            ("agent.step", "2", Some("agent.run")),
            ("agent.model_call", "2", Some("agent.step")),
        ]
    );
    // The tool call's own span sits inside its step.
    let tool_span = spans.iter().find(|(name, ..)| name == "tool_call").unwrap();
    assert_eq!(tool_span.2.as_deref(), Some("agent.step"));
}

#[tokio::test]
async fn token_counts_past_u64_saturate_instead_of_wrapping() {
    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("missing", json!({}))]).with_usage(u64::MAX, 1),
        ModelReply::text("done").with_usage(u64::MAX, u64::MAX),
    ]);
    let agent = Agent::builder(model)
        .run_budget(RunBudget::unlimited())
        .build();
    let run = agent.run("go").await.unwrap();
    let usage = run.usage.unwrap();
    assert_eq!(
        usage,
        Usage {
            input_tokens: u64::MAX,
            output_tokens: u64::MAX
        }
    );
    assert_eq!(usage.total(), u64::MAX);
}

#[tokio::test]
async fn a_token_at_the_last_step_number_resumes_without_wrapping_and_stops_at_the_limit() {
    let guarded = ToolBuilder::new("guarded")
        .description("Needs a person's yes")
        .build(|_| Ok::<_, String>("ran"))
        .unwrap()
        .with_options(|options| options.needs_approval = true);
    let toolbox = Toolbox::builder().tool(guarded).build().unwrap();
    let model = ScriptedModel::new([ModelReply::calls([ToolCall::new("guarded", json!({}))])]);
    let agent = Agent::builder(model).toolbox(toolbox).build();
    let Err(AgentError::Paused(token)) = agent.run("go").await else {
        panic!("the run did not pause")
    };
    let mut json = serde_json::to_value(&*token).unwrap();
    json["step"] = json!(usize::MAX);
    json["output_failures"] = json!(usize::MAX);
    json["usage"] = json!({"input_tokens": u64::MAX, "output_tokens": u64::MAX});
    let token: toolkit::agent::ResumeToken = serde_json::from_value(json).unwrap();
    let decisions: Vec<_> = token
        .pending()
        .iter()
        .map(toolkit::agent::Decision::approve)
        .collect();
    let error = agent.resume(token, decisions).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the agent reached its limit of 20 steps without an answer"
    );
    let results: Vec<String> = (error.history().iter())
        .filter_map(|message| match message {
            Message::Tool { result } => Some(result.text()),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["ran"]);
}
