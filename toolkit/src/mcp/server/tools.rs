//! The tools as the server runs them: moved off the async workers, and capped.

use crate::{ToolProxy, Toolbox};

/// The toolbox as the server runs it:
///
/// - each sync tool marked [`blocking`](crate::ToolOptions::blocking), unless it is marked
///   [`inline`](crate::ToolOptions::inline) (it returns at once): its body then runs on tokio's
///   blocking pool, at most [`max_threads`](crate::Limits::max_threads) calls of it at once
///   (one more waits for a place, see [`Limits`](crate::Limits)), its arguments checked there
///   too, and never on the async workers, which must stay free to answer every other request,
///   a 401 included;
/// - each tool's output cut at [`DEFAULT_MAX_OUTPUT_BYTES`](crate::mcp::DEFAULT_MAX_OUTPUT_BYTES)
///   unless the tool or the toolbox sets its own
///   [`max_output_bytes`](crate::Limits::max_output_bytes).
///
/// Limits and hooks stay the toolbox's.
pub(super) fn for_serving(toolbox: Toolbox) -> Toolbox {
    let uncapped = toolbox.limits().max_output_bytes.is_none();
    let changed = |tool: &ToolProxy| {
        let options = tool.options();
        let moved = !tool.is_async() && !options.blocking && !options.inline;
        moved || (uncapped && options.limits.max_output_bytes.is_none())
    };
    if !toolbox.iter().any(changed) {
        return toolbox;
    }
    let tools: Vec<ToolProxy> = toolbox
        .iter()
        .map(|tool| {
            let tool = tool.clone();
            if !changed(&tool) {
                return tool;
            }
            let sync = !tool.is_async();
            tool.with_options(|options| {
                options.blocking |= sync && !options.inline;
                if uncapped {
                    let limits = &mut options.limits;
                    limits.max_output_bytes = limits
                        .max_output_bytes
                        .or(Some(crate::mcp::DEFAULT_MAX_OUTPUT_BYTES));
                }
            })
        })
        .collect();
    // Selecting no tool keeps the limits, concurrency and hooks; merging keeps the order.
    let empty = toolbox
        .select(std::iter::empty::<&str>())
        .expect("selecting no tool cannot fail");
    let marked = Toolbox::builder()
        .tools("MCP server", tools)
        .build()
        .expect("a toolbox's names are unique");
    empty.merge(marked).expect("a toolbox's names are unique")
}
