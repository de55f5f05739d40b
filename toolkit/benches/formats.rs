//! What the provider boundary costs next to the call itself: parsing a provider's tool calls,
//! rendering the result, and converting a definition (done once per request, not per call).
//!
//! Report each as a ratio to `dynamic_call` of the same tool, measured in the same run: the
//! machine is shared and noisy.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolkit::prelude::*;
use toolkit::providers::Format;

/// Count whitespace-separated words
#[tool]
fn word_count(
    /// The text to count
    text: String,
    /// Count only words longer than this
    #[arg(default)]
    min_len: usize,
) -> usize {
    text.split_whitespace()
        .filter(|w| w.len() > min_len)
        .count()
}

fn formats(c: &mut Criterion) {
    let tool = word_count_tool();
    let args = json!({"text": "the quick brown fox jumps over the lazy dog"});
    let message = json!({
        "role": "assistant",
        "tool_calls": [{
            "id": "call_1",
            "type": "function",
            "function": {"name": "word_count", "arguments": "{\"text\": \"the quick brown fox jumps over the lazy dog\"}"}
        }]
    });
    let broken = json!({
        "id": "call_1",
        "type": "function",
        "function": {"name": "word_count", "arguments": "```json\n{\"text\": \"the quick brown fox jumps over the lazy dog\",\n```"}
    });
    let call = ToolCall::new("word_count", args.clone()).with_id("call_1");
    let result = ToolCallResult::from_outcome(&call, Ok(json!(9)));

    let mut group = c.benchmark_group("formats");
    group.bench_function("baseline/dynamic_call", |b| {
        b.iter(|| tool.dynamic_call(black_box(args.clone())))
    });
    group.bench_function("parse/openai_message", |b| {
        b.iter(|| ToolCalls::parse(black_box(&message)))
    });
    group.bench_function("parse/repaired_arguments", |b| {
        b.iter(|| ToolCalls::parse(black_box(&broken)))
    });
    group.bench_function("result/to_anthropic", |b| {
        b.iter(|| black_box(&result).render(Format::Anthropic))
    });
    // A definition is rendered once per proxy and once per toolbox: `first` renders a fresh
    // tool's, `again` asks a proxy (a copy of its rendering) and a toolbox (a lookup) once more.
    group.bench_function("definition/to_openai_strict_first", |b| {
        b.iter_batched(
            word_count_tool,
            |tool| tool.definition_in(Format::OpenAiStrict),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("definition/to_openai_strict_again", |b| {
        b.iter(|| black_box(&tool).definition_in(Format::OpenAiStrict))
    });
    group.bench_function("definition/to_gemini_again", |b| {
        b.iter(|| black_box(&tool).definition_in(Format::Gemini))
    });
    group.bench_function("definition/toolbox_to_openai_strict_first", |b| {
        b.iter_batched(
            || Toolbox::builder().tool(word_count_tool()).build().unwrap(),
            |toolbox| toolbox.definitions(Format::OpenAiStrict).cloned(),
            BatchSize::SmallInput,
        )
    });
    let toolbox = Toolbox::builder().tool(word_count_tool()).build().unwrap();
    group.bench_function("definition/toolbox_to_openai_strict_again", |b| {
        b.iter(|| {
            black_box(&toolbox)
                .definitions(Format::OpenAiStrict)
                .is_ok()
        })
    });
    group.finish();
}

criterion_group!(benches, formats);
criterion_main!(benches);
