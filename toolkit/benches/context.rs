//! What a tool's context costs, through `Toolbox::acall`: the same tool (a) without a context,
//! (b) taking `ctx: &ToolContext` and not using it, and (c) the same as (b) called in a
//! `CallScope` with a host, as an MCP server or an agent calls it; each sync and async.
//!
//! Report the paired ratios it prints first, (b)/(a) and (c)/(a), the two bodies timed in
//! alternating batches (`support/paired.rs`) in one run: the target is (b)/(a) at most 1.05x.
//! Whether (a) costs what a tool cost before contexts existed is measured against an older
//! build with `scripts/bench-compare` (the `dispatch` and `agent` benches).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tokio::runtime::{Builder, Runtime};
use toolkit::context::{CallScope, Progress, ToolHost};
use toolkit::prelude::*;

#[path = "support/counting.rs"]
mod counting;
#[path = "support/paired.rs"]
mod paired;

use counting::allocations_per_call;
use paired::paired_runs;

#[derive(Default)]
struct Plain;

#[toolset(name = "plain")]
impl Plain {
    /// Count whitespace-separated words
    #[tool]
    fn words(&self, text: String) -> usize {
        text.split_whitespace().count()
    }

    /// Count whitespace-separated words, as an async tool
    #[tool]
    async fn words_async(&self, text: String) -> usize {
        text.split_whitespace().count()
    }
}

#[derive(Default)]
struct Unused;

#[toolset(name = "unused")]
impl Unused {
    /// Count whitespace-separated words
    #[tool]
    fn words(&self, ctx: &ToolContext, text: String) -> usize {
        let _ = ctx;
        text.split_whitespace().count()
    }

    /// Count whitespace-separated words, as an async tool
    #[tool]
    async fn words_async(&self, ctx: &ToolContext, text: String) -> usize {
        let _ = ctx;
        text.split_whitespace().count()
    }
}

/// A host that takes everything and keeps nothing.
struct Quiet;

impl ToolHost for Quiet {
    fn progress(&self, _ctx: &ToolContext, progress: Progress) {
        black_box(progress);
    }
}

const TEXT: &str = "the quick brown fox jumps over the lazy dog";

/// One timed case: the tool it calls and whether it runs in a scope with a host.
struct Case {
    name: &'static str,
    call: ToolCall,
    scope: Option<CallScope>,
}

impl Case {
    fn new(name: &'static str, tool: &str, scope: Option<&CallScope>) -> Case {
        let call = ToolCall::new(tool, json!({ "text": TEXT })).with_id("call_1");
        Case {
            name,
            call,
            scope: scope.cloned(),
        }
    }

    /// `iters` calls, inside one `block_on` so the runtime's entry is not measured.
    fn timed(&self, rt: &Runtime, toolbox: &Toolbox, iters: u64) -> Duration {
        rt.block_on(async {
            let start = Instant::now();
            for _ in 0..iters {
                black_box(self.once(toolbox).await);
            }
            start.elapsed()
        })
    }

    async fn once(&self, toolbox: &Toolbox) -> ToolCallResult {
        let call = black_box(&self.call);
        match &self.scope {
            // A scope per call, as a server gives each request its own.
            Some(scope) => scope.clone().run(toolbox.acall(call)).await,
            None => toolbox.acall(call).await,
        }
    }
}

/// How many calls take about half a millisecond.
fn batch(rt: &Runtime, toolbox: &Toolbox, case: &Case) -> u64 {
    let took = case.timed(rt, toolbox, 2_000);
    ((2_000.0 * 0.5e-3 / took.as_secs_f64()) as u64).max(1)
}

fn context(c: &mut Criterion) {
    let rt = Builder::new_current_thread().enable_all().build().unwrap();
    let toolbox = Toolbox::builder()
        .toolset::<Plain>()
        .toolset::<Unused>()
        .build()
        .unwrap();
    let scope = CallScope::new().host(Arc::new(Quiet));
    let cases = [
        Case::new("sync/a_without_ctx", "plain_words", None),
        Case::new("sync/b_unused_ctx", "unused_words", None),
        Case::new(
            "sync/c_ctx_in_scope_with_host",
            "unused_words",
            Some(&scope),
        ),
        Case::new("async/a_without_ctx", "plain_words_async", None),
        Case::new("async/b_unused_ctx", "unused_words_async", None),
        Case::new(
            "async/c_ctx_in_scope_with_host",
            "unused_words_async",
            Some(&scope),
        ),
    ];
    for case in &cases {
        let result = rt.block_on(case.once(&toolbox));
        assert_eq!(result.value, json!(9), "{}", case.name);
        let allocations = allocations_per_call(&mut || rt.block_on(case.once(&toolbox)));
        println!("allocations per call: {:<34} {allocations:>6.1}", case.name);
    }
    // (b) and (c) each against (a) of the same kind, timed in turns.
    for kind in cases.chunks(3) {
        let [without, unused, scoped] = kind else {
            unreachable!()
        };
        let iters = batch(&rt, &toolbox, without);
        for candidate in [unused, scoped] {
            let ratio = paired_runs(
                || without.timed(&rt, &toolbox, iters),
                || candidate.timed(&rt, &toolbox, iters),
            );
            println!(
                "ratio to the call without ctx: {:<34} {ratio} ({:.0} ns vs {:.0} ns)",
                candidate.name,
                ratio.candidate_time.as_secs_f64() * 1e9 / iters as f64,
                ratio.floor_time.as_secs_f64() * 1e9 / iters as f64,
            );
        }
    }
    let mut group = c.benchmark_group("context");
    group.sample_size(30);
    for case in &cases {
        group.bench_function(case.name, |b| {
            b.iter_custom(|iters| case.timed(&rt, &toolbox, iters))
        });
    }
    group.finish();
}

criterion_group!(benches, context);
criterion_main!(benches);
