//! Every toolset linked into the binary registers itself.

use std::sync::Arc;

use toolkit::prelude::*;
use toolkit::registry;

#[derive(Default)]
struct MathToolset;

#[toolset]
impl MathToolset {
    /// Add two integers
    #[tool]
    fn add(&self, a: i64, b: i64) -> i64 {
        a + b
    }

    /// Multiply two integers
    #[tool]
    fn mul(&self, a: i64, b: i64) -> i64 {
        a * b
    }
}

struct Configured {
    base: i64,
}

#[toolset(name = "configured")]
impl Configured {
    /// Add the configured base
    #[tool]
    fn offset(&self, n: i64) -> i64 {
        self.base + n
    }
}

// Two toolsets exporting one name: the registry reports it instead of picking one.
#[derive(Default)]
struct ClashA;

#[toolset(name = "clash")]
impl ClashA {
    /// Ping from A
    #[tool]
    fn ping(&self) -> &'static str {
        "a"
    }
}

#[derive(Default)]
struct ClashB;

#[toolset(name = "clash")]
impl ClashB {
    /// Ping from B
    #[tool]
    fn ping(&self) -> &'static str {
        "b"
    }
}

#[test]
fn linked_toolsets_are_listed_with_name_type_and_tool_names() {
    let math = registry::find_toolset("math").expect("math is registered");
    assert_eq!(math.name, "math");
    assert_eq!(math.type_name, "registry::MathToolset");
    assert_eq!(math.tool_names, ["math_add", "math_mul"]);
    let names: Vec<_> = registry::toolsets().iter().map(|r| r.name).collect();
    for expected in ["clash", "configured", "math"] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
}

#[test]
fn default_toolsets_build_proxies_and_others_do_not() {
    let math = registry::find_toolset("math")
        .unwrap()
        .tools()
        .expect("MathToolset is Default");
    assert_eq!(math[1].dynamic_call(json!({"a": 6, "b": 7})), json!(42));
    let configured = registry::find_toolset("configured").unwrap();
    assert_eq!(configured.tool_names, ["configured_offset"]);
    assert!(configured.tools().is_none(), "Configured has no Default");
    let tools = Arc::new(Configured { base: 10 }).into_tools();
    assert_eq!(tools[0].dynamic_call(json!({"n": 5})), json!(15));
}

#[test]
fn tools_are_found_by_exported_name() {
    let add = registry::find_tool("math_add").expect("math_add is registered");
    assert_eq!(add.dynamic_call(json!({"a": 2, "b": 3})), json!(5));
    assert!(registry::find_tool("math_sub").is_none());
}

#[test]
fn two_toolsets_exporting_one_name_are_reported_not_overwritten() {
    let clashes = registry::duplicates();
    assert_eq!(clashes.len(), 1, "{clashes:?}");
    assert_eq!(clashes[0].name, "clash_ping");
    let mut types = [clashes[0].first.as_str(), clashes[0].second.as_str()];
    types.sort();
    assert_eq!(types, ["registry::ClashA", "registry::ClashB"]);
    assert_eq!(
        clashes[0].to_string(),
        format!(
            "tool name \"clash_ping\" is exported by two toolsets: {} and {}",
            clashes[0].first, clashes[0].second
        )
    );
    assert_eq!(registry::all_tools().unwrap_err(), clashes);
}

// A library's toolset can stay out of every program's registry.
#[derive(Default)]
struct Unlisted;

#[toolset(name = "unlisted", register = false)]
impl Unlisted {
    /// Not in the registry
    #[tool]
    fn hidden(&self) -> bool {
        true
    }
}

#[test]
fn a_toolset_with_register_false_is_left_out_of_the_registry() {
    assert!(registry::find_toolset("unlisted").is_none());
    assert!(registry::find_tool("unlisted_hidden").is_none());
    assert_eq!(Unlisted::to_tools()[0].dynamic_call(json!({})), json!(true));
}
