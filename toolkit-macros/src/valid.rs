//! Checks on the model. Each mistake is reported at its own span, and all of them at once.

use std::collections::BTreeMap;

use crate::ast::{Arg, ContextParam, Receiver, ToolFn, Toolset};
use crate::attr::Spanned;
use crate::ctxt::Ctxt;
use crate::types::{self, ContextUse};

/// Whether model providers accept `name` as a tool name: `^[a-zA-Z0-9_-]{1,64}$`.
fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

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
    if toolset.tools.is_empty() {
        cx.error_spanned_by(
            &toolset.item.self_ty,
            "this toolset exports no tools: mark the methods to export with #[tool]",
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
        check_receiver(cx, &tool.receiver);
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
    check_contexts(cx, &tool.contexts);
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

/// A method tool takes `&self`: tools are called concurrently on one shared instance.
fn check_receiver(cx: &Ctxt, receiver: &Receiver) {
    match receiver {
        Receiver::Ref => {}
        Receiver::RefMut(tokens) => cx.error_spanned_by(
            tokens,
            "a tool method takes `&self`, not `&mut self`: tools may be called concurrently; \
             keep mutable state behind a Mutex or an atomic",
        ),
        Receiver::Value(tokens) => cx.error_spanned_by(
            tokens,
            "a tool method takes `&self`, not `self`: every call shares one instance",
        ),
        Receiver::Missing(span) => cx.error_at(
            *span,
            "a tool method takes `&self`: an associated function without a receiver cannot be \
             a method tool",
        ),
    }
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
    use super::{is_usable_prefix, is_valid_tool_name};

    /// The names the runtime's rule is tested against too, one `valid <name>` or
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
    fn tool_names_follow_the_providers_rule() {
        let wrong: Vec<_> = cases()
            .filter(|&(valid, name)| is_valid_tool_name(name) != valid)
            .collect();
        assert_eq!(wrong, [], "judged wrongly: (expected verdict, name)");
    }

    #[test]
    fn a_toolset_name_follows_the_same_rule_but_for_its_length() {
        for (valid, name) in cases().filter(|(_, name)| name.len() <= 64) {
            assert_eq!(is_usable_prefix(name), valid, "{name:?}");
        }
        assert!(is_usable_prefix(&"a".repeat(65)));
    }
}
