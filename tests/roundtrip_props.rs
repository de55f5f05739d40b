//! Property: any valid value of a nested struct/enum type, serialized as a model would send it
//! and passed through `dynamic_call`, reaches the method equal to the original. Coercion,
//! validation and deserialization together must never alter a value that was already right.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Order {
    order_id: u32,
    customer: Customer,
    lines: Vec<Line>,
    status: Status,
    shipping: Shipping,
    priority: Priority,
    reference: Reference,
    note: Option<String>,
    tags: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Customer {
    name: String,
    initial: char,
    vip: bool,
    #[serde(default)]
    age: Option<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Line {
    sku: String,
    quantity: u16,
    discount: Option<i8>,
    dims: (u8, i32),
}

/// Internally tagged, with a unit variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Status {
    Open,
    Shipped {
        carrier: String,
        tracking: Option<u64>,
    },
    Cancelled {
        reason: String,
    },
}

/// Externally tagged: unit, struct and newtype variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Shipping {
    Pickup,
    Courier { days: u8 },
    Post(String),
}

/// Adjacently tagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "t", content = "c")]
enum Priority {
    Low,
    Custom(i16),
}

/// Untagged: an integer or a string, where a string holding digits must stay a string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Reference {
    Number(i64),
    Text(String),
}

#[derive(Default)]
struct Orders {
    received: Mutex<Vec<Order>>,
}

#[toolset(name = "orders")]
impl Orders {
    /// Place an order
    #[tool]
    fn place(&self, order: Order) -> usize {
        let mut received = self
            .received
            .lock()
            .expect("no test panics while holding it");
        received.push(order);
        received.len()
    }
}

fn text() -> impl Strategy<Value = String> {
    // Any Unicode, and strings a lax layer might be tempted to "repair".
    prop_oneof![
        any::<String>(),
        Just("5".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
        Just("[1, 2]".to_owned()),
        Just("{\"a\": 1}".to_owned()),
        Just("Pickup".to_owned()),
        Just("PICKUP".to_owned()),
    ]
}

fn customer() -> impl Strategy<Value = Customer> {
    (text(), any::<char>(), any::<bool>(), any::<Option<u8>>()).prop_map(
        |(name, initial, vip, age)| Customer {
            name,
            initial,
            vip,
            age,
        },
    )
}

fn line() -> impl Strategy<Value = Line> {
    (
        text(),
        any::<u16>(),
        any::<Option<i8>>(),
        any::<(u8, i32)>(),
    )
        .prop_map(|(sku, quantity, discount, dims)| Line {
            sku,
            quantity,
            discount,
            dims,
        })
}

fn status() -> impl Strategy<Value = Status> {
    prop_oneof![
        Just(Status::Open),
        (text(), any::<Option<u64>>())
            .prop_map(|(carrier, tracking)| Status::Shipped { carrier, tracking }),
        text().prop_map(|reason| Status::Cancelled { reason }),
    ]
}

fn shipping() -> impl Strategy<Value = Shipping> {
    prop_oneof![
        Just(Shipping::Pickup),
        any::<u8>().prop_map(|days| Shipping::Courier { days }),
        text().prop_map(Shipping::Post),
    ]
}

fn priority() -> impl Strategy<Value = Priority> {
    prop_oneof![Just(Priority::Low), any::<i16>().prop_map(Priority::Custom)]
}

fn reference() -> impl Strategy<Value = Reference> {
    prop_oneof![
        any::<i64>().prop_map(Reference::Number),
        text().prop_map(Reference::Text)
    ]
}

fn order() -> impl Strategy<Value = Order> {
    (
        any::<u32>(),
        customer(),
        prop::collection::vec(line(), 0..4),
        status(),
        shipping(),
        priority(),
        reference(),
        prop::option::of(text()),
        prop::collection::btree_map(text(), any::<i64>(), 0..4),
    )
        .prop_map(
            |(order_id, customer, lines, status, shipping, priority, reference, note, tags)| {
                Order {
                    order_id,
                    customer,
                    lines,
                    status,
                    shipping,
                    priority,
                    reference,
                    note,
                    tags,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn valid_values_reach_the_method_unchanged(original in order()) {
        let orders = Arc::new(Orders::default());
        let tool = Arc::clone(&orders).into_tools().remove(0);

        // As a JSON value, and as the text a model's tool call carries.
        let args = json!({"order": original});
        prop_assert_eq!(tool.dynamic_call(args.clone()), json!(1));
        prop_assert_eq!(tool.dynamic_call(args.to_string()), json!(2));

        let received = orders.received.lock().expect("the tool did not panic");
        prop_assert_eq!(&received[0], &original);
        prop_assert_eq!(&received[1], &original);
    }
}
