//! Procedural macros for toolkit. Use them through the `toolkit` crate: `use toolkit::prelude::*;`.
//!
//! The layout follows serde_derive and thiserror-impl: this file only holds the entry points;
//! `ast` parses the input into our own model, `attr` reads the attributes (whose keys are listed
//! in `symbol`), `valid` checks the model, and `expand` writes the code.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod ast;
mod attr;
mod case;
mod ctxt;
mod docs;
mod expand;
mod mcp;
mod params;
mod state;
mod symbol;
mod types;
mod valid;
mod wiring;

use proc_macro::TokenStream;
use syn::parse_macro_input;

/// Exports the `#[tool]` methods of an `impl` block as tools, and its `#[resource]` and
/// `#[prompt]` methods as MCP resources and prompts.
///
/// Keys: `name = "stats"` (the prefix of every tool name; default: the type name without a
/// `Toolset` suffix, in snake_case), `crate = "path"` (where to find toolkit when the
/// dependency is renamed) and `register = false` (leave it out of `toolkit::registry`, as
/// libraries shipping toolsets should).
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = parse_macro_input!(input as syn::ItemImpl);
    expand::toolset(args.into(), item).into()
}

/// Marks a method of a `#[toolset]` impl block, or a free function, as a tool.
///
/// On a free function (sync or async), `#[tool] fn add(..)` keeps `add` as it is and generates
/// `fn add_tool() -> ToolProxy` beside it, with the function's visibility. The tool is named
/// after the function (no prefix) unless `name = "..."` says otherwise, and `crate = "path"`
/// says where toolkit is when the dependency is renamed (a method takes it from its toolset).
///
/// Keys: `name`, `title` (the name a client shows people), `description`, `icon = "https://..."`
/// (repeated, or a list; `https:` or `data:` URIs), `scopes = ["repo:write", ...]` (the OAuth
/// scopes an MCP caller must hold to see and call it), `task` (MCP clients must run it as a
/// task they poll; `task = "optional"` lets them choose), `strict`, `blocking`, `inline` (a
/// sync body that returns at once: servers run it on their async workers), `needs_approval`
/// (an agent runs each call only once a person approves it), `read_only`, `destructive`,
/// `idempotent`,
/// `open_world`, `timeout_ms`, `max_input_bytes`, `max_output_bytes`, `max_depth` (how deeply
/// arrays and objects may nest in the arguments). Parameters take
/// `#[arg(description = "...", default, default = expr, required)]`, and
/// `#[arg(header = "Region")]`: an MCP 2026-07-28 client mirrors the argument into the HTTP
/// header `Mcp-Param-Region`, for gateways to route on (MCP's schema lists it as
/// `"x-mcp-header": "Region"`, provider schemas do not; the server refuses a call whose header
/// disagrees with the argument). Use it on a string, number or boolean argument.
///
/// A tool (method or function, sync or async) may also take its call's context,
/// `ctx: &ToolContext` (any name, any position): progress, logs, cancellation, the caller, the
/// application's data, and questions to a model or the user (`toolkit::context`). It is not an
/// argument: no schema or provider format shows it, and it takes no `#[arg(...)]`. A second
/// one, one taken by value or `&mut`, or one wrapped in another type is a compile error at the
/// parameter.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::standalone_tool(args.into(), input.into()).into()
}

/// Marks a method of a `#[toolset]` impl block as an MCP resource, or a resource template.
///
/// Keys: `uri` (required; a template when it holds `{name}` variables, each filled by the
/// method's parameter of that name, parsed into its type), `mime_type`, `name` (default: the
/// method's name), `title`, `description` (default: the doc comment) and `icon` (as on a
/// tool). The method takes
/// `&self`, may be async, and returns the contents: a `String` (text), a `Vec<u8>` (a blob),
/// `ResourceContents`, a `Vec<ResourceContents>`, or a `Result` of one of them whose error is
/// `Display`. A template parameter may take `#[arg(complete = ["a", "b"])]` or
/// `#[arg(complete = method)]` (see [`prompt`](macro@prompt)).
///
/// A template variable without its parameter, a parameter the template lacks and a malformed
/// template are compile errors.
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::outside_toolset(symbol::RESOURCE, args.into(), input.into()).into()
}

/// Marks a method of a `#[toolset]` impl block as an MCP prompt.
///
/// Keys: `name` (default: the method's name), `title`, `description` (default: the doc
/// comment) and `icon` (as on a tool). Its parameters are the prompt's arguments, parsed from
/// the strings a client sends into their types: an `Option<T>` or `#[arg(default)]` one may be
/// left out, the others are required. `#[arg(description = "...")]` (or a doc comment)
/// describes one; `#[arg(complete = ["a", "b"])]` completes it from a list,
/// `#[arg(complete = method)]` with a method of the toolset that takes what the user typed so
/// far (`&str`) and returns the values (any `IntoIterator` of strings, sync or async). The
/// method takes `&self`, may be async, and returns a `String` (one user message), a
/// `PromptMessage`, a `Vec<PromptMessage>`, or a `Result` of one of them whose error is
/// `Display`.
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::outside_toolset(symbol::PROMPT, args.into(), input.into()).into()
}

/// Derives `AgentState` for a struct whose fields are the state's keys.
///
/// A `Vec<T>` field concatenates a list written to it and appends a single item; any other field
/// is replaced. `#[state(replace)]` replaces a list instead, and `#[state(merge = path)]` merges
/// with a `fn(&mut T, T)`. `#[state(crate = "path")]` on the struct says where toolkit is when
/// the dependency is renamed. The derive also lists the keys for `#[toolset(state = ...)]`,
/// which checks at compile time that the keys its tools read and write exist, with fitting
/// types.
#[proc_macro_derive(AgentState, attributes(state))]
pub fn derive_agent_state(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as syn::DeriveInput);
    state::derive(input).into()
}
