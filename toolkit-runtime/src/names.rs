//! The one rule for a tool name claimed twice, shared by the registry, the toolbox and the MCP
//! server: the first tool with a name keeps it, and each later one is a clash naming both. Each
//! caller then reacts as its signature allows (see [`first_of_each_name`]).

use std::collections::HashMap;

/// A later item whose name an earlier, kept item already has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTaken<T> {
    /// Where the kept item with this name is in the list of kept items.
    pub first: usize,
    /// The later item, left out.
    pub second: T,
}

/// Splits `items` into those that keep their names (the first of each name, in order) and the
/// later items whose name is taken, in order, each with the kept item it clashes with.
///
/// This is toolkit's one duplicate-name rule. The callers react differently, each as its
/// signature allows: `registry::duplicates` lists every clash (the program decides), a
/// [`Toolbox`](crate::Toolbox) refuses to build with `ToolboxError::DuplicateTool` for the first
/// clash (the strictest), and `McpServer::new`, which cannot fail, warns and serves the first
/// (`McpServer::from_toolbox` is the strict way in).
///
/// ```
/// use toolkit_runtime::first_of_each_name;
///
/// let (kept, taken) = first_of_each_name(["a", "b", "a"], |name| name);
/// assert_eq!(kept, ["a", "b"]);
/// assert_eq!((taken[0].first, taken[0].second), (0, "a"));
/// ```
pub fn first_of_each_name<T>(
    items: impl IntoIterator<Item = T>,
    name: impl Fn(&T) -> &str,
) -> (Vec<T>, Vec<NameTaken<T>>) {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut kept = Vec::new();
    let mut taken = Vec::new();
    for item in items {
        match index.get(name(&item)) {
            Some(&first) => taken.push(NameTaken {
                first,
                second: item,
            }),
            None => {
                index.insert(name(&item).to_owned(), kept.len());
                kept.push(item);
            }
        }
    }
    (kept, taken)
}
