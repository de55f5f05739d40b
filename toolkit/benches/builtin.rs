//! What the built-in text tools cost: `text_grep` through `dynamic_call` against the direct
//! method call, and a nested-quantifier pattern (exponential in backtracking engines) against a
//! plain one on the same text, to show matching stays linear.
//!
//! Report ratios between these, measured in the same run: the machine is shared and noisy.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use toolkit::builtin::TextProcessingToolset;
use toolkit::prelude::*;

fn text() -> String {
    // 64 KiB: 2048 lines of 31 'a's, one line ending in 'b'.
    let mut text = ("a".repeat(31) + "\n").repeat(2048);
    text.push_str("aaab\n");
    text
}

fn builtin(c: &mut Criterion) {
    let toolset = TextProcessingToolset::new();
    let grep = TextProcessingToolset::to_tools().remove(0);
    let text = text();
    let args = json!({"text": text, "pattern": "b$", "count_only": true});
    let nested = json!({"text": text, "pattern": "^(a|aa)*b$", "count_only": true});

    let mut group = c.benchmark_group("builtin_text");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3));
    group.bench_function("grep_64k/direct", |b| {
        b.iter(|| toolset.grep(black_box(&text), "b$", true, true))
    });
    group.bench_function("grep_64k/dynamic_call", |b| {
        b.iter(|| grep.dynamic_call(black_box(args.clone())))
    });
    group.bench_function("grep_64k/dynamic_call_nested_quantifier", |b| {
        b.iter(|| grep.dynamic_call(black_box(nested.clone())))
    });
    group.finish();
}

criterion_group!(benches, builtin);
criterion_main!(benches);
