//! What a tool call costs: `dynamic_call` against the direct method call and against the floor
//! every JSON tool layer pays (parse the arguments, serialize the result).
//!
//! Report ratios between these, measured in the same run: the machine is shared and noisy.

use criterion::{Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

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

/// An order: nested structs, a list, an enum and an option, as agents typically pass.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Order {
    id: u32,
    customer: Customer,
    lines: Vec<Line>,
    priority: Priority,
    note: Option<String>,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Customer {
    name: String,
    email: String,
    vip: bool,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Line {
    sku: String,
    quantity: u16,
    unit_cents: u32,
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

#[derive(Serialize)]
struct Summary {
    lines: usize,
    items: u32,
    total_cents: u64,
}

#[derive(Default)]
struct Shop;

#[toolset(name = "shop")]
impl Shop {
    /// Total an order
    #[tool]
    fn total(&self, order: Order) -> Summary {
        Summary {
            lines: order.lines.len(),
            items: order.lines.iter().map(|l| u32::from(l.quantity)).sum(),
            total_cents: order
                .lines
                .iter()
                .map(|l| u64::from(l.quantity) * u64::from(l.unit_cents))
                .sum(),
        }
    }
}

/// What a hand-written tool layer would deserialize: the floor for the nested tool.
#[derive(Deserialize)]
struct TotalArgs {
    order: Order,
}

const ORDER_ARGS: &str = r#"{"order": {
    "id": 42,
    "customer": {"name": "Ada Lovelace", "email": "ada@example.com", "vip": true},
    "lines": [
        {"sku": "PEN-1", "quantity": 3, "unit_cents": 150},
        {"sku": "INK-7", "quantity": 1, "unit_cents": 899},
        {"sku": "PAD-2", "quantity": 2, "unit_cents": 420}
    ],
    "priority": "high",
    "note": "leave at the door"
}}"#;

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

    let shop = Shop;
    let total = Shop::to_tools().remove(0);
    let order_args: Value = serde_json::from_str(ORDER_ARGS).unwrap();
    assert_eq!(
        total.dynamic_call(order_args.clone()),
        json!({"lines": 3, "items": 6, "total_cents": 2189})
    );
    group.bench_function("nested_order/serde_floor", |b| {
        b.iter(|| {
            let args: TotalArgs = serde_json::from_str(black_box(ORDER_ARGS)).unwrap();
            serde_json::to_value(shop.total(args.order)).unwrap()
        })
    });
    group.bench_function("nested_order/dynamic_call_value", |b| {
        b.iter(|| total.dynamic_call(black_box(order_args.clone())))
    });
    group.bench_function("nested_order/dynamic_call_str", |b| {
        b.iter(|| total.dynamic_call(black_box(ORDER_ARGS)))
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
