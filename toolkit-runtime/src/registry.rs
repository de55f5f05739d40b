//! Every `#[toolset]` linked into the binary, collected at startup with `inventory`.

use crate::ToolProxy;
use crate::names::{NameTaken, first_of_each_name};

/// What `#[toolset]` registers about one toolset.
///
/// ```
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct MathToolset;
///
/// #[toolset]
/// impl MathToolset {
///     /// Add two numbers
///     #[tool]
///     fn add(&self, a: i64, b: i64) -> i64 {
///         a + b
///     }
/// }
///
/// let math = toolkit::registry::find_toolset("math").unwrap();
/// assert_eq!(math.tool_names, ["math_add"]);
/// assert!(math.type_name.ends_with("MathToolset"));
/// let add = toolkit::registry::find_tool("math_add").unwrap();
/// assert_eq!(add.dynamic_call(json!({"a": 2, "b": 3})), json!(5));
/// ```
#[derive(Debug)]
pub struct ToolsetRegistration {
    /// The toolset's name (the prefix of its tools).
    pub name: &'static str,
    /// The Rust type the toolset is implemented on.
    pub type_name: &'static str,
    /// The exported tool names, in declaration order.
    pub tool_names: &'static [&'static str],
    /// Built by generated code through `__private::toolset_registration`.
    pub(crate) make_tools: fn() -> Option<Vec<ToolProxy>>,
}

inventory::collect!(ToolsetRegistration);

impl ToolsetRegistration {
    /// Fresh proxies sharing one default instance, or `None` when the type is not `Default`
    /// (build those with `Arc::new(value).into_tools()`).
    pub fn tools(&self) -> Option<Vec<ToolProxy>> {
        (self.make_tools)()
    }
}

/// Every registered toolset, ordered by name then type, so listings are stable across builds.
pub fn toolsets() -> Vec<&'static ToolsetRegistration> {
    let mut all: Vec<_> = inventory::iter::<ToolsetRegistration>.into_iter().collect();
    all.sort_by_key(|r| (r.name, r.type_name));
    all
}

/// The registered toolset called `name`.
pub fn find_toolset(name: &str) -> Option<&'static ToolsetRegistration> {
    toolsets().into_iter().find(|r| r.name == name)
}

/// The tool exported as `tool_name`, built from its toolset's default instance.
pub fn find_tool(tool_name: &str) -> Option<ToolProxy> {
    let registration = toolsets()
        .into_iter()
        .find(|r| r.tool_names.contains(&tool_name))?;
    registration
        .tools()?
        .into_iter()
        .find(|t| t.name() == tool_name)
}

/// A tool name exported by two toolsets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool name \"{name}\" is exported by two toolsets: {first} and {second}")]
pub struct DuplicateToolName {
    /// The clashing name.
    pub name: String,
    /// The type of the first toolset exporting it.
    pub first: String,
    /// The type of the second.
    pub second: String,
}

/// Every tool name exported by more than one registered toolset: the registry's reaction to
/// [`first_of_each_name`]'s clashes is to list them all.
pub fn duplicates() -> Vec<DuplicateToolName> {
    let exported = toolsets().into_iter().flat_map(|registration| {
        (registration.tool_names.iter()).map(move |&name| (name, registration.type_name))
    });
    let (kept, taken) = first_of_each_name(exported, |(name, _)| name);
    taken
        .into_iter()
        .map(|NameTaken { first, second }| DuplicateToolName {
            name: second.0.into(),
            first: kept[first].1.into(),
            second: second.1.into(),
        })
        .collect()
}

/// Proxies for every registered `Default` toolset, or the clashes if two export one name.
pub fn all_tools() -> Result<Vec<ToolProxy>, Vec<DuplicateToolName>> {
    let clashes = duplicates();
    if !clashes.is_empty() {
        return Err(clashes);
    }
    Ok(toolsets()
        .into_iter()
        .filter_map(|r| r.tools())
        .flatten()
        .collect())
}
