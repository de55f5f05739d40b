//! The tools as the server runs and lists them: moved off the async workers, capped, and in
//! rmcp's types.

use rmcp::model::{ContentBlock, Tool};
use serde_json::{Map, json};

use crate::providers::Format;
use crate::{ToolProxy, Toolbox};

/// A result's content blocks in rmcp's type. Ours serialize as MCP's own JSON, so rmcp reads
/// them as they are; a block it could not read (none today) goes as the result's text.
pub(super) fn content_blocks(parts: &crate::providers::McpResult) -> Vec<ContentBlock> {
    serde_json::to_value(&parts.content)
        .and_then(serde_json::from_value)
        .unwrap_or_else(|_| vec![ContentBlock::text(parts.text.clone())])
}

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

/// A tool as `tools/list` describes it: its [`Format::Mcp`] definition, in rmcp's type.
pub(super) fn mcp_tool(tool: &ToolProxy) -> Tool {
    let listed = tool
        .definition_in(Format::Mcp)
        .map_err(|err| err.to_string())
        .and_then(|definition| serde_json::from_value(definition).map_err(|err| err.to_string()));
    listed.unwrap_or_else(|err| {
        // Only a parameters schema that is not a JSON object could fail here, and tools are
        // built with object schemas; list the tool without its schema rather than not at all.
        tracing::warn!(tool = tool.name(), error = %err, "tool listed without its schema");
        Tool::new(
            tool.name().to_owned(),
            tool.description().to_owned(),
            Map::from_iter([("type".to_owned(), json!("object"))]),
        )
    })
}
