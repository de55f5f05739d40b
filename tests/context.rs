//! A tool's context (`ctx: &ToolContext`), through `#[toolset]`, `#[tool]` and
//! `ToolBuilder::build_with_context`: hidden from every format, progress and logs reaching the
//! caller's host in order, data from the toolbox and the scope, and a nested call with its own
//! name. Cancellation and the questions a tool asks (`sample`, `elicit`) are in
//! `context_cancel.rs` and `context_asks.rs`.

use std::sync::{Arc, Mutex};

use toolkit::context::{CallScope, Data, LogLevel, Progress, ToolHost};
use toolkit::prelude::*;
use toolkit::providers::Format;

/// What a host was told, one line a report: `tool call_id what`.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn lines(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl ToolHost for Recorder {
    fn progress(&self, ctx: &ToolContext, progress: Progress) {
        let line = format!(
            "{} {} progress {}/{} {}",
            ctx.tool_name(),
            ctx.call_id().unwrap_or("-"),
            progress.done,
            progress.total.unwrap_or(f64::NAN),
            progress.message.unwrap_or_default()
        );
        self.0.lock().unwrap().push(line);
    }

    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        let line = format!(
            "{} {} {} {message}",
            ctx.tool_name(),
            ctx.call_id().unwrap_or("-"),
            level.as_str()
        );
        self.0.lock().unwrap().push(line);
    }
}

#[derive(Default)]
struct Reports;

#[toolset(name = "reports")]
impl Reports {
    /// Count to `n`, reporting each step (the context first)
    #[tool]
    fn count(&self, ctx: &ToolContext, n: u32) -> u32 {
        for done in 1..=n {
            ctx.progress(f64::from(done), Some(f64::from(n)), format!("step {done}"));
        }
        ctx.info("counted");
        n
    }

    /// Count to `n` asynchronously, the context between two arguments
    #[tool]
    async fn count_async(&self, n: u32, ctx: &ToolContext, label: String) -> String {
        for done in 1..=n {
            ctx.progress(f64::from(done), None, "");
            tokio::task::yield_now().await;
        }
        ctx.log(LogLevel::Warning, &label);
        label
    }

    /// The port and the name the application gave, the context last and named otherwise
    #[tool]
    fn settings(&self, prefix: String, context: &toolkit::context::ToolContext) -> String {
        let port = context.data::<u16>().copied();
        let name = context.data::<&'static str>().copied();
        format!("{prefix} {port:?} {name:?}")
    }

    /// The tool's own name and call id, as its context gives them
    #[tool]
    async fn whoami(&self, ctx: &ToolContext) -> String {
        format!("{} {}", ctx.tool_name(), ctx.call_id().unwrap_or("-"))
    }
}

/// A free function takes its context as a method does.
/// Say which tool this is
#[tool]
async fn named(ctx: &ToolContext, greeting: String) -> String {
    format!("{greeting} from {}", ctx.tool_name())
}

#[derive(AgentState, Default, Clone)]
struct Notes {
    owner: String,
}

#[derive(Default)]
struct Stated;

#[toolset(name = "stated", state = Notes)]
impl Stated {
    /// Sign a note with the owner from state
    #[tool]
    fn sign(&self, text: String, ctx: &ToolContext, #[arg(from_state)] owner: String) -> String {
        format!("{text} by {owner} in {}", ctx.tool_name())
    }
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .toolset::<Reports>()
        .toolset::<Stated>()
        .tool(named_tool())
        .tool(
            ToolBuilder::new("built")
                .description("A built tool that reads its context")
                .build_with_context(|_args, ctx| Ok::<_, String>(ctx.tool_name().to_owned()))
                .unwrap(),
        )
        .data(Data::new().with(8080_u16).with("toolbox"))
        .build()
        .unwrap()
}

#[test]
fn the_context_is_in_no_format_of_any_tool() {
    let toolbox = toolbox();
    let formats = [
        Format::OpenAi,
        Format::OpenAiStrict,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Mcp,
    ];
    let mut checked = 0;
    for tool in toolbox.iter() {
        assert!(tool.takes_context(), "{} takes a context", tool.name());
        for format in formats {
            let definition = tool.definition_in(format).unwrap().to_string();
            for hidden in ["ctx", "context", "ToolContext", "owner"] {
                assert!(
                    !definition.contains(&format!("\"{hidden}\"")),
                    "{} in {format:?} shows `{hidden}`: {definition}",
                    tool.name()
                );
            }
            checked += 1;
        }
    }
    println!("{checked} definitions (tools x formats) show no context parameter");
    let count = toolbox.get("reports_count_async").unwrap().parameters();
    assert_eq!(count["required"], json!(["n", "label"]));
    let sign = toolbox.get("stated_sign").unwrap().parameters();
    assert_eq!(sign["required"], json!(["text"]));
}

#[tokio::test]
async fn progress_and_logs_reach_the_host_in_order_with_the_tool_and_call() {
    let toolbox = toolbox();
    let recorder = Arc::new(Recorder::default());
    let scope = CallScope::new().host(recorder.clone());
    let call = ToolCall::new("reports_count", json!({"n": 3})).with_id("call_1");
    let result = scope.clone().run(toolbox.acall(&call)).await;
    assert_eq!(result.value, json!(3));
    let call =
        ToolCall::new("reports_count_async", json!({"n": 2, "label": "done"})).with_id("call_2");
    let result = scope.run(toolbox.acall(&call)).await;
    assert_eq!(result.value, json!("done"));
    assert_eq!(
        recorder.lines(),
        [
            "reports_count call_1 progress 1/3 step 1",
            "reports_count call_1 progress 2/3 step 2",
            "reports_count call_1 progress 3/3 step 3",
            "reports_count call_1 info counted",
            "reports_count_async call_2 progress 1/NaN ",
            "reports_count_async call_2 progress 2/NaN ",
            "reports_count_async call_2 warning done",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_all_carries_the_scope_into_its_workers() {
    let toolbox = toolbox();
    let recorder = Arc::new(Recorder::default());
    let calls: Vec<_> = (0..16)
        .map(|i| ToolCall::new("reports_count", json!({"n": 2})).with_id(format!("c{i}")))
        .collect();
    let results = CallScope::new()
        .host(recorder.clone())
        .run(toolbox.call_all(calls))
        .await;
    assert!(results.iter().all(|r| r.value == json!(2)));
    let lines = recorder.lines();
    assert_eq!(lines.len(), 16 * 3);
    // Each call's reports arrive in its own order, whatever worker ran it.
    for i in 0..16 {
        let own: Vec<_> = lines
            .iter()
            .filter(|line| line.starts_with(&format!("reports_count c{i} ")))
            .collect();
        assert_eq!(
            own,
            [
                &format!("reports_count c{i} progress 1/2 step 1"),
                &format!("reports_count c{i} progress 2/2 step 2"),
                &format!("reports_count c{i} info counted"),
            ]
        );
    }
}

#[tokio::test]
async fn data_comes_from_the_toolbox_and_the_scope_wins() {
    let toolbox = toolbox();
    let call = ToolCall::new("reports_settings", json!({"prefix": "got"}));
    let result = toolbox.acall(&call).await;
    assert_eq!(result.value, json!("got Some(8080) Some(\"toolbox\")"));
    // The scope's value of a type replaces the toolbox's; the toolbox fills the others.
    let scope = CallScope::new().data(Data::new().with(9090_u16));
    let result = scope.run(toolbox.acall(&call)).await;
    assert_eq!(result.value, json!("got Some(9090) Some(\"toolbox\")"));
    // From sync code too.
    let scope = CallScope::new().data(Data::new().with("scope"));
    let result = scope.run_sync(|| toolbox.call(&call));
    assert_eq!(result.value, json!("got Some(8080) Some(\"scope\")"));
}

#[tokio::test]
async fn every_kind_of_tool_gets_its_own_name_and_call_id() {
    let toolbox = toolbox();
    let cases = [
        ("reports_whoami", json!({}), json!("reports_whoami id")),
        ("named", json!({"greeting": "hi"}), json!("hi from named")),
        ("built", json!({}), json!("built")),
    ];
    for (name, args, expected) in cases {
        let result = toolbox
            .acall(&ToolCall::new(name, args).with_id("id"))
            .await;
        assert_eq!(result.value, expected, "{name}");
    }
    // A tool called without a proxy's context around it (here, directly) gets a detached one.
    assert_eq!(
        named_tool().dynamic_acall(json!({"greeting": "yo"})).await,
        json!("yo from named")
    );
}

#[tokio::test]
async fn a_tool_with_state_takes_its_context_beside_a_state_parameter() {
    let toolbox = toolbox();
    let mut state = Notes {
        owner: "ada".into(),
    };
    let call = ToolCall::new("stated_sign", json!({"text": "memo"}));
    let result = toolbox.acall_with_state(&mut state, &call).await;
    assert_eq!(result.value, json!("memo by ada in stated_sign"));
    let result = toolbox.call_with_state(&mut state, &call);
    assert_eq!(result.value, json!("memo by ada in stated_sign"));
}

/// A tool whose body calls a tool of another toolbox: each has its own context.
struct Outer {
    inner: Toolbox,
}

#[toolset(name = "outer", register = false)]
impl Outer {
    /// Call the inner toolbox and report both names
    #[tool]
    async fn relay(&self, ctx: &ToolContext) -> String {
        let call = ToolCall::new("reports_whoami", json!({})).with_id("inner_id");
        let inner = self.inner.acall(&call).await;
        format!(
            "{} {} / {}",
            ctx.tool_name(),
            ctx.call_id().unwrap_or("-"),
            inner.value
        )
    }
}

#[tokio::test]
async fn a_tool_calling_another_toolbox_keeps_its_name_and_the_inner_tool_gets_its_own() {
    let inner = Toolbox::builder().toolset::<Reports>().build().unwrap();
    let outer = Toolbox::builder()
        .toolset_instance(Arc::new(Outer { inner }))
        .build()
        .unwrap();
    let call = ToolCall::new("outer_relay", json!({})).with_id("outer_id");
    let result = outer.acall(&call).await;
    assert_eq!(
        result.value,
        json!("outer_relay outer_id / \"reports_whoami inner_id\"")
    );
}
