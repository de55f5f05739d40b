//! What a tool call costs: `dynamic_call` against the direct method call and against the floor
//! every JSON tool layer pays (parse the arguments, serialize the result).
//!
//! Report ratios between these, measured in the same run: the machine is shared and noisy.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolkit::prelude::*;

#[derive(Default)]
struct TextStatsToolset;

#[toolset(name = "stats")]
impl TextStatsToolset {
    /// Count whitespace-separated words
    #[tool]
    fn word_count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }
}

const ARGS: &str = r#"{"text": "the quick brown fox jumps over the lazy dog"}"#;

fn dispatch(c: &mut Criterion) {
    let toolset = TextStatsToolset;
    let tool = TextStatsToolset::to_tools().remove(0);
    let args: Value = serde_json::from_str(ARGS).unwrap();
    let mut group = c.benchmark_group("dispatch");
    group.bench_function("word_count/direct", |b| {
        b.iter(|| {
            toolset.word_count(black_box("the quick brown fox jumps over the lazy dog").to_owned())
        })
    });
    group.bench_function("word_count/serde_floor", |b| {
        b.iter(|| {
            let parsed: Value = serde_json::from_str(black_box(ARGS)).unwrap();
            let text = parsed["text"].as_str().unwrap().to_owned();
            serde_json::to_value(toolset.word_count(text)).unwrap()
        })
    });
    group.bench_function("word_count/dynamic_call_value", |b| {
        b.iter(|| tool.dynamic_call(black_box(args.clone())))
    });
    group.bench_function("word_count/dynamic_call_str", |b| {
        b.iter(|| tool.dynamic_call(black_box(ARGS)))
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
