//! What a tool call costs: `dynamic_call` against the floor, the typed call a person would write
//! by hand without a tool layer: `serde_json::from_str` (or `from_value`) of the same arguments
//! into a `#[derive(Deserialize)]` struct of the tool's parameters, the method, and
//! `serde_json::to_value` of its result.
//!
//! Report ratios between these, measured in the same run: the machine is shared and noisy. Before
//! the timings, the bench prints the heap allocations one call of each makes (a counting global
//! allocator), since allocation is most of what a tool layer adds, and each call's ratio to its
//! floor timed in alternating batches (steadier than two criterion timings seconds apart).

use criterion::{Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

#[path = "support/counting.rs"]
mod counting;
#[path = "support/paired.rs"]
mod paired;

use counting::allocations_per_call;
use paired::paired_ratio;

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

/// What a hand-written tool layer would deserialize: the floor for each tool.
#[derive(Deserialize)]
struct WordCountArgs {
    text: String,
}

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

/// Every measured call, by name, as a closure: timed by criterion and counted for allocations.
type Case<'a> = (&'static str, Box<dyn FnMut() -> Value + 'a>);

fn dispatch(c: &mut Criterion) {
    let toolset = TextStatsToolset;
    let tool = TextStatsToolset::to_tools().remove(0);
    let args: Value = serde_json::from_str(ARGS).unwrap();
    let shop = Shop;
    let total = Shop::to_tools().remove(0);
    let order_args: Value = serde_json::from_str(ORDER_ARGS).unwrap();
    assert_eq!(tool.dynamic_call(ARGS), json!(9));
    assert_eq!(
        total.dynamic_call(order_args.clone()),
        json!({"lines": 3, "items": 6, "total_cents": 2189})
    );

    let cases: Vec<Case> = vec![
        (
            "word_count/floor_str",
            Box::new(|| {
                let args: WordCountArgs = serde_json::from_str(black_box(ARGS)).unwrap();
                serde_json::to_value(toolset.word_count(args.text)).unwrap()
            }),
        ),
        (
            "word_count/dynamic_call_str",
            Box::new(|| tool.dynamic_call(black_box(ARGS))),
        ),
        (
            "word_count/floor_value",
            Box::new(|| {
                let args: WordCountArgs = serde_json::from_value(black_box(args.clone())).unwrap();
                serde_json::to_value(toolset.word_count(args.text)).unwrap()
            }),
        ),
        (
            "word_count/dynamic_call_value",
            Box::new(|| tool.dynamic_call(black_box(args.clone()))),
        ),
        (
            "nested_order/floor_str",
            Box::new(|| {
                let args: TotalArgs = serde_json::from_str(black_box(ORDER_ARGS)).unwrap();
                serde_json::to_value(shop.total(args.order)).unwrap()
            }),
        ),
        (
            "nested_order/dynamic_call_str",
            Box::new(|| total.dynamic_call(black_box(ORDER_ARGS))),
        ),
        (
            "nested_order/floor_value",
            Box::new(|| {
                let args: TotalArgs =
                    serde_json::from_value(black_box(order_args.clone())).unwrap();
                serde_json::to_value(shop.total(args.order)).unwrap()
            }),
        ),
        (
            "nested_order/dynamic_call_value",
            Box::new(|| total.dynamic_call(black_box(order_args.clone()))),
        ),
    ];
    let mut cases = cases;
    for (name, body) in &mut cases {
        println!(
            "allocations per call: {name:<32} {:>6.1}",
            allocations_per_call(body)
        );
    }
    // Each `dynamic_call` case follows its floor.
    for pair in cases.chunks_mut(2) {
        if let [(_, floor), (name, call)] = pair {
            println!(
                "ratio to the floor: {name:<32} {}",
                paired_ratio(&mut *floor, &mut *call)
            );
        }
    }
    let mut group = c.benchmark_group("dispatch");
    for (name, body) in &mut cases {
        group.bench_function(*name, |b| b.iter(&mut *body));
    }
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
