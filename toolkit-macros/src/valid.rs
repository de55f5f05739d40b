//! Checks on the model. Each mistake is reported at its own span, and all of them at once.

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::{Arg, ContextParam, Receiver, ToolFn, Toolset};
use crate::attr::{self, Spanned, ToolAttrs};
use crate::ctxt::Ctxt;
use crate::types::{self, ContextUse};
use toolkit_syntax::is_valid_tool_name;

/// Whether a toolset name can prefix tool names: its characters follow the tool-name rule, one
/// by one. Its length is left to the tool names, since tools named explicitly do not use it.
fn is_usable_prefix(prefix: &str) -> bool {
    !prefix.is_empty()
        && prefix
            .chars()
            .all(|c| is_valid_tool_name(c.encode_utf8(&mut [0; 4])))
}

pub(crate) fn check_toolset(cx: &Ctxt, toolset: &Toolset) {
    let prefix = &toolset.name;
    if !is_usable_prefix(&prefix.value) {
        cx.error_at(
            prefix.span,
            format!(
                "toolset name `{}` is not usable in tool names: use letters, digits, `_` and `-`",
                prefix.value
            ),
        );
    }
    if toolset.tools.is_empty() && toolset.resources.is_empty() && toolset.prompts.is_empty() {
        cx.error_spanned_by(
            &toolset.item.self_ty,
            "this toolset exports nothing: mark the methods to export with #[tool], \
             #[resource] or #[prompt]",
        );
    }
    let mut seen: BTreeMap<&str, ()> = BTreeMap::new();
    for tool in &toolset.tools {
        check_tool(cx, tool, true);
        check_state_wiring(cx, tool, toolset.state.is_some());
        if seen.insert(&tool.name.value, ()).is_some() {
            cx.error_at(
                tool.name.span,
                format!(
                    "two tools are named `{}`: give one another name with #[tool(name = \"...\")]",
                    tool.name.value
                ),
            );
        }
    }
}

/// State wiring names keys of the toolset's state type, so it needs one, and keys are its field
/// names. Free functions (`is_method` false at `check_tool`) have no state type at all.
pub(crate) fn check_state_wiring(cx: &Ctxt, tool: &ToolFn, has_state: bool) {
    let missing_state = |span, what: &str| {
        cx.error_at(
            span,
            format!(
                "`{what}` needs the state type the keys belong to: write \
                 #[toolset(state = YourState)] on the impl block (YourState derives AgentState)"
            ),
        );
    };
    let check_key = |key: &Spanned<String>| {
        if syn::parse_str::<syn::Ident>(&key.value).is_err() {
            cx.error_at(
                key.span,
                format!(
                    "state key `{}` is not a field name: the keys of a state are its fields",
                    key.value
                ),
            );
        }
    };
    for arg in &tool.args {
        let Some(key) = &arg.from_state else { continue };
        if has_state {
            check_key(key);
        } else {
            missing_state(key.span, "from_state");
        }
    }
    for output in &tool.attrs.outputs_to_state {
        if has_state {
            check_key(&output.key);
        } else {
            missing_state(output.key.span, "outputs_to_state");
        }
    }
    if let (Some(shown), false) = (&tool.attrs.outputs_to_string, has_state) {
        missing_state(shown.span, "outputs_to_string");
    }
}

pub(crate) fn check_tool(cx: &Ctxt, tool: &ToolFn, is_method: bool) {
    let name = &tool.name.value;
    if !is_valid_tool_name(name) {
        cx.error_at(
            tool.name.span,
            format!(
                "tool name `{name}` is rejected by model providers: it must be 1 to 64 letters, \
                 digits, `_` or `-` (^[a-zA-Z0-9_-]{{1,64}}$)"
            ),
        );
    }
    if tool.description.is_none() {
        cx.error_spanned_by(
            &tool.ident,
            format!(
                "tool `{name}` has no description: add a doc comment or \
                 #[tool(description = \"...\")], the model reads it to decide when to call the tool"
            ),
        );
    }
    if is_method {
        check_receiver(cx, &tool.receiver, "tool");
    }
    if let Some(generics) = &tool.generics {
        cx.error_spanned_by(
            generics,
            "a tool cannot be generic: the model needs one concrete schema; use concrete types",
        );
    }
    if let (Some(span), true) = (tool.attrs.blocking, tool.asyncness) {
        cx.error_at(
            span,
            "`blocking` is for sync tools: an async tool already yields to the runtime",
        );
    }
    if let (Some(span), true) = (tool.attrs.inline, tool.asyncness) {
        cx.error_at(
            span,
            "`inline` is for sync tools: an async tool already yields to the runtime",
        );
    }
    if let (Some(span), Some(_)) = (tool.attrs.inline, tool.attrs.blocking) {
        cx.error_at(
            span,
            "a tool is `inline` (it returns at once) or `blocking` (it may not), not both",
        );
    }
    for arg in &tool.args {
        check_arg(cx, arg);
    }
    check_headers(cx, &tool.args);
    check_contexts(cx, &tool.contexts);
    check_mcp_keys(cx, &tool.attrs);
}

/// `title`, `icon`, `scopes` and `task`: what an MCP client is shown or must do.
fn check_mcp_keys(cx: &Ctxt, attrs: &ToolAttrs) {
    if let Some(title) = &attrs.title {
        check_title(cx, title);
    }
    for icon in &attrs.icons {
        check_icon(cx, icon);
    }
    let mut seen = BTreeSet::new();
    for scope in &attrs.scopes {
        if scope.value.is_empty() {
            cx.error_at(scope.span, "a scope cannot be empty");
        } else if !is_scope_token(&scope.value) {
            cx.error_at(
                scope.span,
                format!(
                    "scope `{}` is not an OAuth scope: printable ASCII characters without \
                     spaces, `\"` or `\\` (RFC 6749, section 3.3)",
                    scope.value
                ),
            );
        } else if !seen.insert(&scope.value) {
            cx.error_at(
                scope.span,
                format!("scope `{}` is listed twice", scope.value),
            );
        }
    }
    if let Some(task) = &attrs.task
        && attr::task_variant(&task.value).is_none()
    {
        cx.error_at(
            task.span,
            format!(
                "unknown task mode `{}`: write `task = \"optional\"` (the client chooses), \
                 `task` or `task = \"required\"` (it must run as a task), or \
                 `task = \"forbidden\"`",
                task.value
            ),
        );
    }
}

/// A title is shown to people in place of the name, so it has to say something.
pub(crate) fn check_title(cx: &Ctxt, title: &Spanned<String>) {
    if title.value.trim().is_empty() {
        cx.error_at(
            title.span,
            "a title is shown in place of the name: it cannot be empty",
        );
    }
}

/// Icons are images a client fetches or decodes: `https:` or `data:` URIs only (MCP's advice,
/// since other schemes let a server make a client reach arbitrary places).
pub(crate) fn check_icon(cx: &Ctxt, icon: &Spanned<String>) {
    let src = &icon.value;
    let usable = (src.starts_with("https://") && src.len() > "https://".len())
        || (src.starts_with("data:") && src.contains(','));
    if !usable || src.chars().any(char::is_whitespace) {
        cx.error_at(
            icon.span,
            format!("icon `{src}` is not an `https://` or `data:` URI: clients load icons only from those"),
        );
    }
}

/// RFC 6749's `scope-token`: `1*( %x21 / %x23-5B / %x5D-7E )`.
fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// A tool takes its context once, as `&ToolContext`, and says nothing about it with `#[arg]`.
fn check_contexts(cx: &Ctxt, contexts: &[ContextParam]) {
    for (index, context) in contexts.iter().enumerate() {
        let message = match context.kind {
            ContextUse::Shared => None,
            ContextUse::ByValue => Some(
                "a tool takes its context by reference: write `ctx: &ToolContext` (the call \
                 keeps the context, a tool that needs one of its own can clone it)",
            ),
            ContextUse::Mutable => Some(
                "a tool takes its context as a shared reference, `&ToolContext`, not \
                 `&mut ToolContext`: everything on it takes `&self`",
            ),
            ContextUse::Wrapped => {
                Some("a tool takes its context as `ctx: &ToolContext`, not wrapped in another type")
            }
        };
        if let Some(message) = message {
            cx.error_spanned_by(&context.ty, message);
        }
        if index > 0 {
            cx.error_spanned_by(
                &context.param,
                "a tool takes one context parameter: every `&ToolContext` of a call is the same \
                 context, so one is enough",
            );
        }
        if let Some(attr) = &context.arg_attr {
            cx.error_spanned_by(
                attr,
                "the context parameter takes no #[arg(...)]: it is not an argument the model \
                 sends, and no schema shows it",
            );
        }
    }
}

/// An exported method takes `&self`: tools (and resources, prompts) are called concurrently
/// on one shared instance. `what` is the kind of method, `tool`, `resource` or `prompt`.
pub(crate) fn check_receiver(cx: &Ctxt, receiver: &Receiver, what: &str) {
    match receiver {
        Receiver::Ref => {}
        Receiver::RefMut(tokens) => cx.error_spanned_by(
            tokens,
            format!(
                "a {what} method takes `&self`, not `&mut self`: {what}s may be called \
                 concurrently; keep mutable state behind a Mutex or an atomic"
            ),
        ),
        Receiver::Value(tokens) => cx.error_spanned_by(
            tokens,
            format!("a {what} method takes `&self`, not `self`: every call shares one instance"),
        ),
        Receiver::Missing(span) => cx.error_at(
            *span,
            format!(
                "a {what} method takes `&self`: an associated function without a receiver \
                 cannot be a method {what}"
            ),
        ),
    }
}

/// Each `#[arg(header = "...")]` names an HTTP header token, once per tool (header names are
/// case-insensitive), on an argument the model sends (not one filled from state).
fn check_headers(cx: &Ctxt, args: &[Arg]) {
    let mut seen: Vec<String> = Vec::new();
    for arg in args {
        let Some(header) = &arg.header else { continue };
        let name = &header.value;
        if name.is_empty() {
            let problem = "`header` needs a name: the client sends the argument as the header \
                           `Mcp-Param-<name>`";
            cx.error_at(header.span, problem);
        } else if !is_header_token(name) {
            let problem = format!(
                "`{name}` is not an HTTP header name: the client sends it as `Mcp-Param-{name}`, \
                 so it must be letters, digits or `!#$%&'*+-.^_`|~`"
            );
            cx.error_at(header.span, problem);
        } else if seen.contains(&name.to_ascii_lowercase()) {
            let problem = format!(
                "two arguments of this tool name the header `{name}` (header names ignore \
                 case): each argument needs its own"
            );
            cx.error_at(header.span, problem);
        }
        seen.push(name.to_ascii_lowercase());
        if let Some(from_state) = &arg.from_state {
            let problem = "an argument filled `from_state` is not sent by the client, so it \
             has no header to mirror it into: drop `header` or `from_state`";
            cx.error_at(from_state.span, problem);
        }
    }
}

/// Whether `name` (not empty) is an HTTP header name: a `token` of RFC 9110.
fn is_header_token(name: &str) -> bool {
    (name.bytes()).all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A parameter is a plain name with an owned, concrete type, and its attributes agree.
fn check_arg(cx: &Ctxt, arg: &Arg) {
    if arg.ident.is_none() {
        cx.error_at(
            arg.pat_span,
            "a tool parameter must be a plain name (`text: String`), not a pattern: the name \
             is the argument the model sends",
        );
    }
    if types::contains_impl_trait(&arg.ty) {
        cx.error_spanned_by(
            &arg.ty,
            "a tool parameter cannot be `impl Trait`: the model needs a concrete type to build \
             a schema from",
        );
    } else if let Some(name) = types::referenced_context_like(&arg.ty) {
        cx.error_spanned_by(
            &arg.ty,
            format!(
                "`{name}` is not toolkit's tool context: a tool takes its context as \
                 `ctx: &ToolContext` (`toolkit::context::ToolContext`, in the prelude)"
            ),
        );
    } else if matches!(arg.ty, syn::Type::Reference(_)) && !types::is_str_ref(&arg.ty) {
        cx.error_spanned_by(
            &arg.ty,
            "a tool parameter must be an owned type (or `&str`): arguments are decoded from JSON \
             for each call",
        );
    }
    if let Some(complete) = &arg.complete {
        cx.error_at(
            complete.span,
            "`complete` is for prompt arguments and resource template parameters: the model \
             writes a tool's arguments, nobody completes them",
        );
    }
    if let Some(name) = &arg.rename {
        cx.error_at(
            name.span,
            "`name` renames a prompt argument only: a tool's argument is named by its parameter \
             (`r#type` for a keyword)",
        );
    }
    if let (Some(default), Some(_)) = (&arg.default, arg.required) {
        cx.error_at(
            default.span,
            "a parameter cannot be both `default` and `required`",
        );
    }
    if let Some(span) = arg.required
        && !types::is_option(&arg.ty)
    {
        cx.error_at(
            span,
            "`required` is for `Option<T>` parameters (nullable but present): other \
                 parameters are required already",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::is_usable_prefix;

    /// The names toolkit_syntax's tool-name rule is tested against, one `valid <name>` or
    /// `invalid <name>` a line.
    const TOOL_NAMES: &str = include_str!("../../tests/fixtures/tool_names.txt");

    fn cases() -> impl Iterator<Item = (bool, &'static str)> {
        TOOL_NAMES.lines().map(|line| match line.split_once(' ') {
            Some(("valid", name)) => (true, name),
            Some(("invalid", name)) => (false, name),
            _ => panic!("not `valid <name>` or `invalid <name>`: {line:?}"),
        })
    }

    #[test]
    fn a_toolset_name_follows_the_same_rule_but_for_its_length() {
        for (valid, name) in cases().filter(|(_, name)| name.len() <= 64) {
            assert_eq!(is_usable_prefix(name), valid, "{name:?}");
        }
        assert!(is_usable_prefix(&"a".repeat(65)));
    }
}
