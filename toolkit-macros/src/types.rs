//! Syntactic questions about types, answered the way serde_derive and clap answer them: by the
//! last path segment, so `std::option::Option<T>` counts and a type alias does not.

use syn::{GenericArgument, PathArguments, Type};

fn last_segment_args<'a>(ty: &'a Type, ident: &str) -> Option<Vec<&'a Type>> {
    let Type::Path(path) = ty else { return None };
    if path.qself.is_some() {
        return None;
    }
    let segment = path.path.segments.last()?;
    if segment.ident != ident {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    Some(
        args.args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
    )
}

pub(crate) fn is_option(ty: &Type) -> bool {
    option_inner(ty).is_some()
}

/// The `T` of `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    match last_segment_args(ty, "Option")?.as_slice() {
        [inner] => Some(inner),
        _ => None,
    }
}

/// The `T` of `Vec<T>`.
pub(crate) fn vec_item(ty: &Type) -> Option<&Type> {
    match last_segment_args(ty, "Vec")?.as_slice() {
        [item] => Some(item),
        _ => None,
    }
}

/// The `T` of `Result<T, E>` (also `io::Result<T>` and `anyhow::Result<T>`).
pub(crate) fn result_ok_type(ty: &Type) -> Option<&Type> {
    last_segment_args(ty, "Result").and_then(|args| args.first().copied())
}

/// The `E` of `Result<T, E>`; `None` for `io::Result<T>`-style aliases that fix it.
pub(crate) fn result_err_type(ty: &Type) -> Option<&Type> {
    last_segment_args(ty, "Result").and_then(|args| args.get(1).copied())
}

pub(crate) fn is_str_ref(ty: &Type) -> bool {
    match ty {
        Type::Reference(reference) => {
            reference.mutability.is_none()
                && matches!(&*reference.elem, Type::Path(p) if p.qself.is_none() && p.path.is_ident("str"))
        }
        _ => false,
    }
}

pub(crate) fn contains_impl_trait(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Reference(r) => contains_impl_trait(&r.elem),
        Type::Paren(p) => contains_impl_trait(&p.elem),
        Type::Group(g) => contains_impl_trait(&g.elem),
        Type::Slice(s) => contains_impl_trait(&s.elem),
        Type::Array(a) => contains_impl_trait(&a.elem),
        Type::Tuple(t) => t.elems.iter().any(contains_impl_trait),
        Type::Path(p) => p
            .path
            .segments
            .iter()
            .any(|segment| match &segment.arguments {
                PathArguments::AngleBracketed(args) => args.args.iter().any(|arg| match arg {
                    GenericArgument::Type(ty) => contains_impl_trait(ty),
                    _ => false,
                }),
                _ => false,
            }),
        _ => false,
    }
}

/// Whether the type may borrow: it holds a reference, a lifetime or `impl Trait` anywhere (only
/// `'static` types can go behind `Any`).
pub(crate) fn may_borrow(ty: &Type) -> bool {
    fn scan(tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Punct(punct) => matches!(punct.as_char(), '&' | '\''),
            proc_macro2::TokenTree::Ident(ident) => ident == "impl" || ident == "dyn",
            proc_macro2::TokenTree::Group(group) => scan(group.stream()),
            proc_macro2::TokenTree::Literal(_) => false,
        })
    }
    scan(quote::ToTokens::to_token_stream(ty))
}

/// How a parameter's type names the tool's context, judged by the last path segment
/// (`ToolContext`, `toolkit::context::ToolContext`), as the other questions here are.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContextUse {
    /// `&ToolContext`: the one way to take it.
    Shared,
    /// `ToolContext`: owned.
    ByValue,
    /// `&mut ToolContext`.
    Mutable,
    /// `ToolContext` inside another type (`Option<&ToolContext>`, `Arc<ToolContext>`, `&&ToolContext`).
    Wrapped,
}

const TOOL_CONTEXT: &str = "ToolContext";

/// How `ty` takes the tool's context, or `None` when it does not name `ToolContext` at all.
pub(crate) fn context_use(ty: &Type) -> Option<ContextUse> {
    match ty {
        Type::Paren(paren) => context_use(&paren.elem),
        Type::Group(group) => context_use(&group.elem),
        Type::Reference(reference) if is_tool_context(&reference.elem) => {
            Some(match reference.mutability {
                Some(_) => ContextUse::Mutable,
                None => ContextUse::Shared,
            })
        }
        _ if is_tool_context(ty) => Some(ContextUse::ByValue),
        _ => mentions(quote::ToTokens::to_token_stream(ty), TOOL_CONTEXT)
            .then_some(ContextUse::Wrapped),
    }
}

/// Whether `ty` is the path `..::ToolContext`, without generic arguments.
fn is_tool_context(ty: &Type) -> bool {
    match ty {
        Type::Paren(paren) => is_tool_context(&paren.elem),
        Type::Group(group) => is_tool_context(&group.elem),
        Type::Path(path) if path.qself.is_none() => path
            .path
            .segments
            .last()
            .is_some_and(|last| last.ident == TOOL_CONTEXT && last.arguments.is_none()),
        _ => false,
    }
}

/// Whether `tokens` hold the identifier `ident` anywhere.
fn mentions(tokens: proc_macro2::TokenStream, ident: &str) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(found) => found == ident,
        proc_macro2::TokenTree::Group(group) => mentions(group.stream(), ident),
        _ => false,
    })
}

/// The name of the type a reference points to when it reads like another context type
/// (`&Context`, `&RequestContext`): what a user coming from another framework writes.
pub(crate) fn referenced_context_like(ty: &Type) -> Option<String> {
    let Type::Reference(reference) = ty else {
        return None;
    };
    let Type::Path(path) = &*reference.elem else {
        return None;
    };
    let name = path.path.segments.last()?.ident.to_string();
    (name.ends_with("Context") || name == "Ctx").then_some(name)
}
