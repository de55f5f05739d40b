//! What the agent loop itself costs per step, with a model that answers at once.
//!
//! - `agent/direct`: the baseline: the 19 tool calls of a run made with `Toolbox::acall`;
//! - `agent/loop`: a 20-step `Agent::run` (19 steps that each call the tool once, then a text
//!   answer) against a zero-latency `ScriptedModel`.
//!
//! The loop's own cost per step is `(loop - direct) / 20`: history, ids, records, spans and
//! events, not tool work. Report it with the ratio `loop / direct` of the same run: the machine
//! is shared and noisy.

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{Criterion, criterion_group, criterion_main};
use toolkit::agent::Agent;
use toolkit::models::{ModelReply, ScriptedModel};
use toolkit::prelude::*;

const STEPS: usize = 20;

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

fn call() -> ToolCall {
    ToolCall::new("maths_add", json!({"a": 1, "b": 2})).with_id("call")
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let toolbox = Toolbox::builder().toolset::<Maths>().build().unwrap();
    let turn = AtomicUsize::new(0);
    let model = ScriptedModel::from_fn(move |_| {
        // Replies cycle through one run's script: tool calls, then the answer.
        Ok(match turn.fetch_add(1, Ordering::Relaxed) % STEPS {
            last if last == STEPS - 1 => ModelReply::text("done"),
            _ => ModelReply::calls([call()]),
        })
    });
    let agent = Agent::builder(model)
        .toolbox(toolbox.clone())
        .max_steps(STEPS)
        .build();

    let mut group = c.benchmark_group("agent");
    group.bench_function("direct", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..STEPS - 1 {
                    black_box(toolbox.acall(&call()).await);
                }
            })
        })
    });
    group.bench_function("loop", |b| {
        b.iter(|| runtime.block_on(async { black_box(agent.run("add").await.unwrap()) }))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
