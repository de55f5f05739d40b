//! What dispatch through a toolbox costs.
//!
//! - `call_all/*`: 10,000 cheap async calls through `Toolbox::call_all` on a 2-worker runtime,
//!   against the same calls awaited one after another through `Toolbox::acall`, and against
//!   10,000 direct awaits of the method itself.
//! - `waiting/*`: 200 calls that each wait 1 ms, concurrently and one after another.
//! - `overhead/*`: one call of the same tool through `ToolProxy::call` and `ToolProxy::acall`,
//!   with an async twin of the tool and the toolbox's dispatch for comparison.
//!
//! Report ratios between results of one run: the machine is shared and noisy. Before the
//! timings, the bench prints `call_all` against a loop doing the same work, the two timed in
//! alternating rounds (`support/paired.rs`), from `block_on` and from a task: those are the
//! ratios to quote.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tokio::runtime::{Builder, Runtime};
use toolkit::prelude::*;

#[path = "support/paired.rs"]
mod paired;

use paired::paired_runs;

#[derive(Default)]
struct Cheap;

#[toolset(name = "cheap")]
impl Cheap {
    /// Count whitespace-separated words
    #[tool]
    fn word_count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }

    /// Count whitespace-separated words, as an async tool
    #[tool]
    async fn word_count_async(&self, text: String) -> usize {
        text.split_whitespace().count()
    }

    /// Double a number
    #[tool]
    async fn double(&self, n: u64) -> u64 {
        n * 2
    }

    /// Hash a number many times: CPU work of about 50 µs, as a parser or a scorer would do
    #[tool]
    fn crunch(&self, n: u64) -> u64 {
        (0..20_000u64).fold(n, |acc, i| {
            acc.rotate_left(5) ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        })
    }

    /// Wait a millisecond, as a call to another service would
    #[tool]
    async fn wait(&self, n: u64) -> u64 {
        tokio::time::sleep(Duration::from_millis(1)).await;
        n
    }
}

const TEXT: &str = "the quick brown fox jumps over the lazy dog";
const CALLS: u64 = 10_000;
const WAITING_CALLS: u64 = 200;

fn runtime() -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Times `body` `iters` times inside one `block_on`, so the runtime's entry is not measured.
fn timed_async<F: Future<Output = ()>>(
    rt: &Runtime,
    iters: u64,
    mut body: impl FnMut() -> F,
) -> Duration {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            body().await;
        }
        start.elapsed()
    })
}

/// Where a batch is run from: `block_on` on the caller's own thread, as a `main` would, or a
/// task on the runtime, as an agent or a server would.
#[derive(Clone, Copy, Debug)]
enum Caller {
    BlockOn,
    Task,
}

/// Runs `timed` from `caller` and returns the time it measured itself.
fn timed_from<F>(rt: &Runtime, caller: Caller, timed: F) -> Duration
where
    F: Future<Output = Duration> + Send + 'static,
{
    match caller {
        Caller::BlockOn => rt.block_on(timed),
        Caller::Task => rt.block_on(rt.spawn(timed)).unwrap(),
    }
}

/// One `call_all` of a fresh copy of `calls`, timed without the copying.
fn timed_call_all(rt: &Runtime, caller: Caller, toolbox: &Toolbox, calls: &[ToolCall]) -> Duration {
    let (toolbox, batch) = (toolbox.clone(), calls.to_vec());
    timed_from(rt, caller, async move {
        let start = Instant::now();
        black_box(toolbox.call_all(batch).await);
        start.elapsed()
    })
}

/// What one `call_all` does, as a loop of `acall`s: a fresh copy of `calls` is consumed, each
/// result kept, and the batch and results freed, all timed but the copying.
fn timed_consuming_loop(
    rt: &Runtime,
    caller: Caller,
    toolbox: &Toolbox,
    calls: &[ToolCall],
) -> Duration {
    let (toolbox, batch) = (toolbox.clone(), calls.to_vec());
    timed_from(rt, caller, async move {
        let start = Instant::now();
        let mut results = Vec::with_capacity(batch.len());
        for call in &batch {
            results.push(toolbox.acall(call).await);
        }
        drop(batch);
        black_box(results);
        start.elapsed()
    })
}

fn repeated(iters: u64, mut run: impl FnMut() -> Duration) -> Duration {
    (0..iters).map(|_| run()).sum()
}

fn call_all(c: &mut Criterion) {
    let rt = runtime();
    let toolbox = Toolbox::builder()
        .toolset::<Cheap>()
        .concurrency(64)
        .build()
        .unwrap();
    let two_workers = Toolbox::builder()
        .toolset::<Cheap>()
        .concurrency(2)
        .build()
        .unwrap();
    let calls: Vec<ToolCall> = (0..CALLS)
        .map(|n| ToolCall::new("cheap_double", json!({ "n": n })).with_id(format!("call_{n}")))
        .collect();
    for caller in [Caller::BlockOn, Caller::Task] {
        for (name, batched) in [("64 at a time", &toolbox), ("2 at a time", &two_workers)] {
            let paired = paired_runs(
                || timed_consuming_loop(&rt, caller, &toolbox, &calls),
                || timed_call_all(&rt, caller, batched, &calls),
            );
            println!(
                "call_all of 10k cheap calls from {caller:?}, {name}, against the consuming \
                 loop: {paired}; {:.2} M calls/s against {:.2} M calls/s",
                CALLS as f64 / paired.candidate_time.as_secs_f64() / 1e6,
                CALLS as f64 / paired.floor_time.as_secs_f64() / 1e6,
            );
        }
    }
    let mut group = c.benchmark_group("call_all");
    group.sample_size(10);
    group.throughput(Throughput::Elements(CALLS));
    group.bench_function("10k/call_all_concurrency_64", |b| {
        b.iter_custom(|iters| {
            repeated(iters, || {
                timed_call_all(&rt, Caller::BlockOn, &toolbox, &calls)
            })
        })
    });
    group.bench_function("10k/call_all_concurrency_64_from_a_task", |b| {
        b.iter_custom(|iters| {
            repeated(iters, || {
                timed_call_all(&rt, Caller::Task, &toolbox, &calls)
            })
        })
    });
    group.bench_function("10k/call_all_concurrency_2", |b| {
        b.iter_custom(|iters| {
            repeated(iters, || {
                timed_call_all(&rt, Caller::BlockOn, &two_workers, &calls)
            })
        })
    });
    let current_thread = Builder::new_current_thread().enable_all().build().unwrap();
    group.bench_function("10k/call_all_concurrency_64_current_thread", |b| {
        b.iter_custom(|iters| {
            repeated(iters, || {
                timed_call_all(&current_thread, Caller::BlockOn, &toolbox, &calls)
            })
        })
    });
    // The same work as one call_all: the batch is consumed, so dropping it is timed too.
    group.bench_function("10k/acall_one_after_another_consuming_the_batch", |b| {
        b.iter_custom(|iters| {
            repeated(iters, || {
                timed_consuming_loop(&rt, Caller::BlockOn, &toolbox, &calls)
            })
        })
    });
    group.bench_function(
        "10k/acall_one_after_another_consuming_the_batch_from_a_task",
        |b| {
            b.iter_custom(|iters| {
                repeated(iters, || {
                    timed_consuming_loop(&rt, Caller::Task, &toolbox, &calls)
                })
            })
        },
    );
    group.bench_function("10k/acall_one_after_another", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                for call in &calls {
                    black_box(toolbox.acall(call).await);
                }
            })
        })
    });
    let cheap = Cheap;
    group.bench_function("10k/direct_method", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                for n in 0..CALLS {
                    black_box(cheap.double(black_box(n)).await);
                }
            })
        })
    });
    group.finish();

    // Where concurrency is for: calls that wait.
    let waits: Vec<ToolCall> = (0..WAITING_CALLS)
        .map(|n| ToolCall::new("cheap_wait", json!({ "n": n })))
        .collect();
    let mut group = c.benchmark_group("waiting");
    group.sample_size(10);
    group.throughput(Throughput::Elements(WAITING_CALLS));
    group.bench_function("200x1ms/call_all_concurrency_64", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let batch = waits.clone();
                total += rt.block_on(async {
                    let start = Instant::now();
                    black_box(toolbox.call_all(batch).await);
                    start.elapsed()
                });
            }
            total
        })
    });
    group.bench_function("200x1ms/acall_one_after_another", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                for call in &waits {
                    black_box(toolbox.acall(call).await);
                }
            })
        })
    });
    group.finish();
}

fn overhead(c: &mut Criterion) {
    let rt = runtime();
    let tools = Cheap::to_tools();
    let (sync_tool, async_tool) = (&tools[0], &tools[1]);
    let args = json!({ "text": TEXT });
    let toolbox = Toolbox::builder().toolset::<Cheap>().build().unwrap();
    let call = ToolCall::new("cheap_word_count", args.clone());

    let mut group = c.benchmark_group("overhead");
    group.bench_function("word_count/call", |b| {
        b.iter(|| sync_tool.call(black_box(args.clone())))
    });
    group.bench_function("word_count/acall", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                black_box(sync_tool.acall(black_box(args.clone())).await.unwrap());
            })
        })
    });
    group.bench_function("word_count_async/acall", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                black_box(async_tool.acall(black_box(args.clone())).await.unwrap());
            })
        })
    });
    group.bench_function("word_count_async/call_with_opt_in", |b| {
        b.iter(|| toolkit::allow_async_to_sync(|| async_tool.call(black_box(args.clone()))))
    });
    group.bench_function("word_count/toolbox_call", |b| {
        b.iter(|| toolbox.call(black_box(&call)))
    });
    group.bench_function("word_count/toolbox_acall", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                black_box(toolbox.acall(black_box(&call)).await);
            })
        })
    });
    group.finish();
}

/// CPU-bound sync tools: `call_all` should spread them over both worker threads.
fn cpu_bound(c: &mut Criterion) {
    const CPU_CALLS: u64 = 200;
    let rt = runtime();
    let toolbox = Toolbox::builder().toolset::<Cheap>().build().unwrap();
    let calls: Vec<ToolCall> = (0..CPU_CALLS)
        .map(|n| ToolCall::new("cheap_crunch", json!({ "n": n })))
        .collect();
    let paired = paired_runs(
        || {
            timed_async(&rt, 1, || async {
                for call in &calls {
                    black_box(toolbox.acall(call).await);
                }
            })
        },
        || timed_call_all(&rt, Caller::BlockOn, &toolbox, &calls),
    );
    println!(
        "call_all of 200 CPU-bound calls against a loop of acalls: {paired}; {:.2}x as fast",
        1.0 / paired.median
    );
    let mut group = c.benchmark_group("cpu_bound");
    group.sample_size(10);
    group.throughput(Throughput::Elements(CPU_CALLS));
    group.bench_function("200x50us/call_all", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                black_box(toolbox.call_all(calls.clone()).await);
            })
        })
    });
    group.bench_function("200x50us/acall_one_after_another", |b| {
        b.iter_custom(|iters| {
            timed_async(&rt, iters, || async {
                for call in &calls {
                    black_box(toolbox.acall(call).await);
                }
            })
        })
    });
    group.finish();
}

criterion_group!(benches, call_all, overhead, cpu_bound);
criterion_main!(benches);
