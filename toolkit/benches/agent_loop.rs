//! The agent loop's cost per step against rig's agent (rig-agent 0.44), in one run.
//!
//! Both agents run the same script on an in-process model that answers at once: each reply but
//! the last calls the same toolkit tool (`maths_add`; rig reaches it through
//! `toolkit::integrations::rig::dynamic_tools`, so the tool's own work is the same), and the
//! last is a text answer; runs of 4 and of 20 steps. What differs is the loop: history, ids,
//! records, events and spans for toolkit; rig's turn loop, its message types and its tool
//! server for rig. rig's model is its own scripted wire (`MockScript`, rig-core's
//! `test-utils`), answering each request with the next turn; toolkit's is
//! `ScriptedModel::from_fn`.
//!
//! Report the paired ratios it prints (`toolkit / rig`, the two runs timed in alternating
//! batches, `support/paired.rs`), and criterion's time per run of each (divide by the steps for
//! a step). Target: at most 1.0x.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use rig_agent::{Agent as RigAgent, AgentBuilder as RigAgentBuilder};
use rig_core::completion::{AssistantContent, CompletionRequest, CompletionResponse, Usage};
use rig_core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_core::message::{Origin, ToolName};
use rig_core::test_utils::{MOCK_API, MOCK_MODEL, MOCK_PROVIDER, MockFrame, MockScript};
use toolkit::agent::Agent;
use toolkit::integrations::rig::dynamic_tools;
use toolkit::models::{ModelReply, ScriptedModel};
use toolkit::prelude::*;

#[path = "support/paired.rs"]
mod paired;

/// Run lengths: a short task, and the 20 steps of `benches/agent.rs`.
const RUNS: [usize; 2] = [4, 20];

#[derive(Default)]
struct Maths;

#[toolset(name = "maths")]
impl Maths {
    /// Add two numbers
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }
}

fn args() -> Value {
    json!({"a": 1, "b": 2})
}

/// rig's side of the script: each request gets the next turn, cycling through one run's.
#[derive(Clone, Default)]
struct RigScript {
    turn: Arc<AtomicUsize>,
    steps: usize,
}

impl Transport<MockScript> for RigScript {
    fn send(&self, _request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        let turn = self.turn.fetch_add(1, Ordering::Relaxed) % self.steps;
        let choice = match turn {
            last if last == self.steps - 1 => vec![AssistantContent::text("done")],
            _ => {
                let name = ToolName::new("maths_add").expect("a valid name");
                vec![AssistantContent::tool_call("call", name, args())]
            }
        };
        let origin = Origin::new(MOCK_API, MOCK_PROVIDER, MOCK_MODEL);
        let response = CompletionResponse::new(choice, Usage::default(), origin, json!({}));
        let frame = MockFrame::Response(Box::new(response));
        Opening::ready(Opened::new(futures::stream::iter([Ok(frame)])))
    }
}

fn toolkit_agent(toolbox: &Toolbox, steps: usize) -> Agent {
    let turn = AtomicUsize::new(0);
    let model = ScriptedModel::from_fn(move |_| {
        Ok(match turn.fetch_add(1, Ordering::Relaxed) % steps {
            last if last == steps - 1 => ModelReply::text("done"),
            _ => ModelReply::calls([ToolCall::new("maths_add", args()).with_id("call")]),
        })
    });
    Agent::builder(model)
        .toolbox(toolbox.clone())
        .max_steps(steps)
        .build()
}

fn rig_agent(toolbox: &Toolbox, steps: usize) -> RigAgent {
    let script = RigScript {
        steps,
        ..RigScript::default()
    };
    let model = Model::new(MockScript::default(), script);
    let tools = dynamic_tools(toolbox).expect("named tools");
    RigAgentBuilder::new(model).dynamic_tools(tools).build()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let toolbox = Toolbox::builder().toolset::<Maths>().build().unwrap();
    let mut group = c.benchmark_group("agent_loop");
    for steps in RUNS {
        let ours = toolkit_agent(&toolbox, steps);
        let theirs = rig_agent(&toolbox, steps);
        let run_ours = || runtime.block_on(async { black_box(ours.run("add").await.unwrap()) });
        let run_theirs = || {
            runtime.block_on(async {
                let run = theirs.prompt("add").max_turns(steps).run().await;
                black_box(run.unwrap())
            })
        };
        // The same answer after the same tool calls, before anything is timed.
        assert_eq!(run_ours().answer, "done");
        assert_eq!(run_ours().tool_calls().count(), steps - 1);
        assert_eq!(run_theirs().output(), "done");

        let ratio = paired::paired_ratio(&run_theirs, &run_ours);
        println!(
            "toolkit / rig, a {steps}-step run: {:.4}x (middle half {:.4}x to {:.4}x); \
             rig / toolkit {:.1}x",
            ratio.median,
            ratio.lower_quartile,
            ratio.upper_quartile,
            1.0 / ratio.median
        );
        group.bench_function(format!("toolkit/{steps}"), |b| b.iter(run_ours));
        group.bench_function(format!("rig/{steps}"), |b| b.iter(run_theirs));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
