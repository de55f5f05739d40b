//! Checks on `#[resource]` and `#[prompt]` methods, each mistake at its own span.

use std::collections::BTreeSet;

use crate::ast::{Arg, Method, PromptFn, ResourceFn, Toolset};
use crate::attr::Completion;
use crate::ctxt::Ctxt;
use crate::types;
use crate::valid::{check_icon, check_receiver, check_title};

pub(crate) fn check(cx: &Ctxt, toolset: &Toolset) {
    let mut uris = BTreeSet::new();
    for resource in &toolset.resources {
        check_resource(cx, resource);
        if !resource.uri.value.is_empty() && !uris.insert(&resource.uri.value) {
            cx.error_at(
                resource.uri.span,
                format!("two resources have the URI `{}`", resource.uri.value),
            );
        }
    }
    let mut names = BTreeSet::new();
    for prompt in &toolset.prompts {
        check_prompt(cx, prompt);
        if !names.insert(&prompt.name.value) {
            cx.error_at(
                prompt.name.span,
                format!(
                    "two prompts are named `{}`: give one another name with \
                     #[prompt(name = \"...\")]",
                    prompt.name.value
                ),
            );
        }
    }
}

fn check_resource(cx: &Ctxt, resource: &ResourceFn) {
    check_method(cx, &resource.method, "resource");
    if let Some(title) = &resource.title {
        check_title(cx, title);
    }
    for icon in &resource.icons {
        check_icon(cx, icon);
    }
    if let Some(mime) = &resource.mime_type
        && !is_media_type(&mime.value)
    {
        cx.error_at(
            mime.span,
            format!(
                "`{}` is not a media type: write `type/subtype`, e.g. \"text/plain\"",
                mime.value
            ),
        );
    }
    let uri = &resource.uri;
    if uri.value.is_empty() {
        // Reported where the attribute was read, or an empty URI, reported here.
        if uri
            .span
            .source_text()
            .is_some_and(|text| text.starts_with('"'))
        {
            cx.error_at(uri.span, "a resource URI cannot be empty");
        }
        return;
    }
    if !toolkit_syntax::uri_template::has_scheme(&uri.value) {
        cx.error_at(
            uri.span,
            format!(
                "resource URI `{}` has no scheme: write it as `scheme://...`, e.g. `file:///...` \
                 or `app://...`",
                uri.value
            ),
        );
    }
    if let Err(message) = &resource.parts {
        cx.error_at(uri.span, message);
        return;
    }
    check_template(cx, resource);
}

/// A template's variables and the method's parameters are the same names.
fn check_template(cx: &Ctxt, resource: &ResourceFn) {
    let variables = resource.variables();
    let uri = &resource.uri;
    for variable in &variables {
        if !resource
            .method
            .args
            .iter()
            .any(|arg| arg.key() == *variable)
        {
            cx.error_at(
                uri.span,
                format!(
                    "template variable `{{{variable}}}` has no parameter: add \
                     `{variable}: String` (or another type it parses into) to `{}`",
                    resource.method.ident
                ),
            );
        }
    }
    for arg in &resource.method.args {
        let Some(ident) = &arg.ident else { continue };
        let key = arg.key();
        if variables.contains(&key.as_str()) {
            check_template_param(cx, arg);
        } else if variables.is_empty() {
            cx.error_spanned_by(
                ident,
                format!(
                    "a fixed resource takes no parameters: to make `{}` a template, put \
                     `{{{key}}}` in its URI",
                    uri.value
                ),
            );
        } else {
            cx.error_spanned_by(
                ident,
                format!(
                    "parameter `{key}` is not in the URI template `{}`: a template's \
                     parameters are its `{{variables}}`",
                    uri.value
                ),
            );
        }
    }
}

/// A template parameter is filled from the URI: nothing else can default or require it.
fn check_template_param(cx: &Ctxt, arg: &Arg) {
    let others = [
        arg.default.as_ref().map(|d| d.span),
        arg.required,
        arg.from_state.as_ref().map(|s| s.span),
        arg.rename.as_ref().map(|n| n.span),
    ];
    for span in others.into_iter().flatten() {
        cx.error_at(
            span,
            "a template parameter is filled from the URI: of #[arg(...)] it takes only \
             `complete`",
        );
    }
    check_completion(cx, arg);
}

fn check_prompt(cx: &Ctxt, prompt: &PromptFn) {
    check_method(cx, &prompt.method, "prompt");
    if let Some(title) = &prompt.title {
        check_title(cx, title);
    }
    for icon in &prompt.icons {
        check_icon(cx, icon);
    }
    if prompt.name.value.trim().is_empty() {
        cx.error_at(prompt.name.span, "a prompt name cannot be empty");
    }
    for arg in &prompt.method.args {
        let others = [arg.required, arg.from_state.as_ref().map(|s| s.span)];
        for span in others.into_iter().flatten() {
            cx.error_at(
                span,
                "a prompt argument takes `description`, `default` and `complete`: an \
                 `Option<T>` one may be left out, the others are required",
            );
        }
        check_completion(cx, arg);
    }
    check_argument_names(cx, prompt);
}

/// A renamed argument has a name, and no two arguments share one.
fn check_argument_names(cx: &Ctxt, prompt: &PromptFn) {
    let mut seen = BTreeSet::new();
    for arg in &prompt.method.args {
        let Some(name) = &arg.rename else {
            seen.insert(arg.key());
            continue;
        };
        if name.value.trim().is_empty() {
            cx.error_at(name.span, "a prompt argument's `name` cannot be empty");
        }
    }
    for arg in &prompt.method.args {
        if let Some(name) = &arg.rename
            && !seen.insert(name.value.clone())
        {
            cx.error_at(
                name.span,
                format!(
                    "prompt `{}` has two arguments named `{}`",
                    prompt.name.value, name.value
                ),
            );
        }
    }
}

fn check_completion(cx: &Ctxt, arg: &Arg) {
    if let Some(complete) = &arg.complete
        && let Completion::Values(values) = &complete.value
        && values.is_empty()
    {
        cx.error_at(
            complete.span,
            "`complete = []` completes nothing: list the values, or leave `complete` out",
        );
    }
}

/// What resources and prompts share with tools: `&self`, no generics, plain named parameters
/// of owned types, and (for now) no context.
fn check_method(cx: &Ctxt, method: &Method, what: &str) {
    check_receiver(cx, &method.receiver, what);
    if let Some(generics) = &method.generics {
        cx.error_spanned_by(
            generics,
            format!("a {what} method cannot be generic: its parameters are parsed into one type"),
        );
    }
    for context in &method.contexts {
        cx.error_spanned_by(
            &context.param,
            format!("a {what} takes no `&ToolContext`: only tools have a call's context"),
        );
    }
    for arg in &method.args {
        if let Some(header) = &arg.header {
            cx.error_at(
                header.span,
                format!(
                    "`header` is for tool arguments: a {what}'s arguments are not mirrored \
                     into HTTP headers"
                ),
            );
        }
        if arg.ident.is_none() {
            cx.error_at(
                arg.pat_span,
                format!("a {what} parameter is a plain name, not a pattern: the client names it"),
            );
        }
        let borrowed = matches!(arg.ty, syn::Type::Reference(_)) && !types::is_str_ref(&arg.ty);
        if borrowed || types::contains_impl_trait(&arg.ty) {
            cx.error_spanned_by(
                &arg.ty,
                format!(
                    "a {what} parameter is an owned, concrete type (or `&str`): it is parsed \
                     from the string the client sends"
                ),
            );
        }
    }
}

/// `type/subtype`, with parameters allowed after `;`.
fn is_media_type(text: &str) -> bool {
    let essence = text.split(';').next().unwrap_or_default().trim();
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    matches!(essence.split_once('/'), Some((kind, sub)) if token(kind) && token(sub))
}
