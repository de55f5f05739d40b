//! The input as our own model: a toolset, its tools, resources and prompts (`served`), their
//! arguments. Parsing also strips the attributes only we understand (`#[tool]`, `#[resource]`,
//! `#[prompt]`, `#[arg]`, doc comments on parameters) from the impl block that is emitted back.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned as _;
use syn::{FnArg, Ident, ImplItem, ItemImpl, Pat, ReturnType, Type};

use crate::attr::{self, ArgAttrs, ArgDefault, Spanned, ToolAttrs};
use crate::case;
use crate::ctxt::Ctxt;
use crate::docs;
use crate::symbol::{ARG, DOC, PROMPT, RESOURCE, TOOL, TOOLKIT};
use crate::types::{self, ContextUse};

mod served;

pub(crate) use served::{PromptFn, ResourceFn};

pub(crate) struct Toolset {
    /// The path generated code names toolkit by (`::toolkit` unless `crate = "..."`).
    pub krate: syn::Path,
    /// Whether to submit the toolset to `toolkit::registry` (`register = false` opts out).
    pub register: bool,
    pub name: Spanned<String>,
    /// `state = T`: the `#[derive(AgentState)]` type the tools' state wiring is checked against.
    pub state: Option<Type>,
    /// The impl block with our attributes removed, emitted unchanged otherwise.
    pub item: ItemImpl,
    pub tools: Vec<ToolFn>,
    /// The `#[resource]` methods, fixed and templated.
    pub resources: Vec<ResourceFn>,
    pub prompts: Vec<PromptFn>,
}

pub(crate) struct ToolFn {
    pub ident: Ident,
    pub name: Spanned<String>,
    pub description: Option<String>,
    pub receiver: Receiver,
    pub asyncness: bool,
    pub generics: Option<TokenStream>,
    pub args: Vec<Arg>,
    pub output: Type,
    pub attrs: ToolAttrs,
    /// The parameters whose type names `ToolContext`, in order: `valid` accepts exactly one
    /// `&ToolContext` without attributes, and only that one is then expanded.
    pub contexts: Vec<ContextParam>,
}

/// A parameter that takes the tool's context. It is not an [`Arg`]: the model never sends it,
/// so it has no schema, no description and no place in any provider format.
pub(crate) struct ContextParam {
    /// How many of the tool's arguments come before it: where the call passes it.
    pub position: usize,
    /// The whole parameter (`ctx: &ToolContext`), where a second one is reported.
    pub param: TokenStream,
    /// Its type, where a wrong one is reported.
    pub ty: Type,
    pub kind: ContextUse,
    /// The `#[arg(...)]` it was given, which has nothing to say about it.
    pub arg_attr: Option<TokenStream>,
}

/// How a method takes `self`; the tokens are kept to point errors at the whole receiver.
pub(crate) enum Receiver {
    Ref,
    RefMut(TokenStream),
    Value(TokenStream),
    Missing(Span),
}

pub(crate) struct Arg {
    /// `None` when the parameter is a pattern rather than a plain name.
    pub ident: Option<Ident>,
    pub pat_span: Span,
    pub ty: Type,
    pub description: Option<String>,
    pub default: Option<Spanned<ArgDefault>>,
    pub required: Option<Span>,
    /// The state key the parameter is filled from, written where the key is named (the
    /// `from_state = "key"` literal, or the parameter's name for a bare `from_state`).
    pub from_state: Option<Spanned<String>>,
    /// `#[arg(complete = ...)]`: for prompt arguments and template parameters only.
    pub complete: Option<Spanned<attr::Completion>>,
    /// `#[arg(name = "...")]`: a prompt argument's name, when not its parameter's.
    pub rename: Option<Spanned<String>>,
    /// `#[arg(header = "...")]`: the HTTP header a tool's argument is mirrored into (MCP
    /// 2026-07-28, SEP-2243).
    pub header: Option<Spanned<String>>,
}

impl Toolset {
    pub(crate) fn from_impl(cx: &Ctxt, args: TokenStream, mut item: ItemImpl) -> Toolset {
        let attrs = attr::parse_toolset_attrs(cx, args);
        let krate = attrs.krate.unwrap_or_else(|| syn::parse_quote!(::toolkit));
        let name = attrs.name.unwrap_or_else(|| Spanned {
            value: case::toolset_name_from_type(&type_ident(&item.self_ty)),
            span: item.self_ty.span(),
        });
        let (mut tools, mut resources, mut prompts) = (Vec::new(), Vec::new(), Vec::new());
        for impl_item in &mut item.items {
            let ImplItem::Fn(method) = impl_item else {
                continue;
            };
            let mut marks = Vec::new();
            method.attrs.retain(|a| match Marker::of(a) {
                Some(marker) => {
                    marks.push((marker, a.clone()));
                    false
                }
                None => true,
            });
            let Some((marker, attr)) = marks.first() else {
                continue;
            };
            for (_, second) in &marks[1..] {
                cx.error_spanned_by(
                    second,
                    "a method exports one thing, a tool, a resource or a prompt: write a \
                     method for each",
                );
            }
            let (fn_attrs, sig) = (&method.attrs, &mut method.sig);
            match marker {
                Marker::Tool => {
                    let tool_attrs = attr::parse_tool_attrs(cx, attr);
                    tools.push(ToolFn::from_sig(cx, &name.value, fn_attrs, sig, tool_attrs));
                }
                Marker::Resource => {
                    resources.push(ResourceFn::from_method(cx, attr, fn_attrs, sig));
                }
                Marker::Prompt => prompts.push(PromptFn::from_method(cx, attr, fn_attrs, sig)),
            }
        }
        Toolset {
            krate,
            register: attrs.register.unwrap_or(true),
            name,
            state: attrs.state,
            item,
            tools,
            resources,
            prompts,
        }
    }
}

impl ToolFn {
    pub(crate) fn from_sig(
        cx: &Ctxt,
        prefix: &str,
        fn_attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        attrs: ToolAttrs,
    ) -> ToolFn {
        let name = tool_name(prefix, &sig.ident, &attrs);
        let (method, doc_description) = Method::from_sig(cx, fn_attrs, sig);
        ToolFn {
            ident: method.ident,
            name,
            description: attrs.description.clone().or(doc_description),
            receiver: method.receiver,
            asyncness: method.asyncness,
            generics: method.generics,
            args: method.args,
            output: method.output,
            attrs,
            contexts: method.contexts,
        }
    }
}

/// What every exported method has, whatever it exports: a tool, a resource or a prompt.
pub(crate) struct Method {
    pub ident: Ident,
    pub receiver: Receiver,
    pub asyncness: bool,
    pub generics: Option<TokenStream>,
    pub args: Vec<Arg>,
    pub output: Type,
    pub contexts: Vec<ContextParam>,
}

impl Method {
    /// The method, and the description its doc comment gives (without a `# Arguments`
    /// section, whose entries describe the parameters instead). Our attributes are stripped
    /// from its parameters.
    pub(crate) fn from_sig(
        cx: &Ctxt,
        fn_attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
    ) -> (Method, Option<String>) {
        let doc = docs::doc_text(fn_attrs).map(|d| docs::split_arguments_section(&d));
        let (doc_description, doc_arguments) = match doc {
            Some(split) => (split.description, split.arguments),
            None => (None, Vec::new()),
        };
        let generics = (!sig.generics.params.is_empty() || sig.generics.where_clause.is_some())
            .then(|| {
                let generics = &sig.generics;
                quote::quote!(#generics)
            });
        let mut receiver = Receiver::Missing(sig.ident.span());
        let (mut args, mut contexts) = (Vec::new(), Vec::new());
        for input in &mut sig.inputs {
            match input {
                FnArg::Receiver(r) => receiver = Receiver::of(r),
                FnArg::Typed(typed) => match types::context_use(&typed.ty) {
                    Some(kind) => contexts.push(ContextParam::from_param(typed, kind, args.len())),
                    None => args.push(Arg::from_param(cx, typed, &doc_arguments)),
                },
            }
        }
        let output = match &sig.output {
            ReturnType::Default => syn::parse_quote!(()),
            ReturnType::Type(_, ty) => (**ty).clone(),
        };
        let method = Method {
            ident: sig.ident.clone(),
            receiver,
            asyncness: sig.asyncness.is_some(),
            generics,
            args,
            output,
            contexts,
        };
        (method, doc_description)
    }
}

impl ToolFn {
    /// The context parameter the expansion passes, once `valid` has accepted the tool.
    pub(crate) fn context(&self) -> Option<&ContextParam> {
        self.contexts.first()
    }
}

impl ContextParam {
    /// The parameter, with our attributes stripped (an `#[arg]` is only remembered, for
    /// `valid` to refuse; a doc comment is allowed and dropped, as on any parameter).
    fn from_param(typed: &mut syn::PatType, kind: ContextUse, position: usize) -> ContextParam {
        let mut arg_attr = None;
        typed.attrs.retain(|a| {
            if a.path() == ARG {
                arg_attr.get_or_insert_with(|| quote::ToTokens::to_token_stream(a));
                false
            } else {
                a.path() != DOC
            }
        });
        ContextParam {
            position,
            param: quote::ToTokens::to_token_stream(&*typed),
            ty: (*typed.ty).clone(),
            kind,
            arg_attr,
        }
    }
}

/// `#[tool(name = "...")]`, else `<prefix>_<method>`, else (a free function) the function's name.
fn tool_name(prefix: &str, ident: &Ident, attrs: &ToolAttrs) -> Spanned<String> {
    match &attrs.name {
        Some(explicit) => Spanned {
            value: explicit.value.clone(),
            span: explicit.span,
        },
        None if prefix.is_empty() => Spanned {
            value: ident.to_string(),
            span: ident.span(),
        },
        None => Spanned {
            value: format!("{prefix}_{ident}"),
            span: ident.span(),
        },
    }
}

impl Receiver {
    fn of(receiver: &syn::Receiver) -> Receiver {
        if receiver.reference.is_none() {
            Receiver::Value(quote::ToTokens::to_token_stream(receiver))
        } else if receiver.mutability.is_some() {
            Receiver::RefMut(quote::ToTokens::to_token_stream(receiver))
        } else {
            Receiver::Ref
        }
    }
}

impl Arg {
    /// One parameter, its description from `#[arg(description)]`, its doc comment or the
    /// function's `# Arguments` section, in that order; our attributes are stripped from it.
    fn from_param(cx: &Ctxt, typed: &mut syn::PatType, doc_arguments: &[(String, String)]) -> Arg {
        let mut arg_attrs = ArgAttrs::default();
        let param_doc = docs::doc_text(&typed.attrs);
        typed.attrs.retain(|a| {
            if a.path() == ARG {
                attr::parse_arg_attrs(cx, a, &mut arg_attrs);
                false
            } else {
                a.path() != DOC
            }
        });
        let ident = match &*typed.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(p.ident.clone()),
            _ => None,
        };
        let from_section = ident.as_ref().and_then(|ident| {
            let key = unraw(ident);
            doc_arguments
                .iter()
                .find(|(n, _)| *n == key)
                .map(|(_, d)| d.clone())
        });
        let from_state = arg_attrs.from_state.map(|from| match from.value {
            Some(key) => Spanned {
                value: key,
                span: from.span,
            },
            None => Spanned {
                value: ident.as_ref().map(unraw).unwrap_or_default(),
                span: typed.pat.span(),
            },
        });
        Arg {
            ident,
            pat_span: typed.pat.span(),
            ty: (*typed.ty).clone(),
            description: arg_attrs.description.or(param_doc).or(from_section),
            default: arg_attrs.default,
            required: arg_attrs.required,
            from_state,
            complete: arg_attrs.complete,
            rename: arg_attrs.name,
            header: arg_attrs.header,
        }
    }

    /// The argument's name as the model sends it (`r#type` -> `type`).
    pub(crate) fn key(&self) -> String {
        self.ident.as_ref().map(unraw).unwrap_or_default()
    }

    /// A prompt argument's name as a client sends it: its `#[arg(name = "...")]`, else
    /// [`key`](Self::key). Only prompts take a `name`; `valid` refuses it elsewhere.
    pub(crate) fn wire_name(&self) -> String {
        match &self.rename {
            Some(name) => name.value.clone(),
            None => self.key(),
        }
    }
}

/// An identifier as written without `r#` (`r#type` -> `type`).
pub(crate) fn unraw(ident: &Ident) -> String {
    let ident = ident.to_string();
    ident.strip_prefix("r#").map(str::to_owned).unwrap_or(ident)
}

/// The attributes that export a method from a `#[toolset]` impl block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Tool,
    Resource,
    Prompt,
}

impl Marker {
    /// Which of them `attr` is, also spelled `#[toolkit::tool]` and so on.
    fn of(attr: &syn::Attribute) -> Option<Marker> {
        let path = attr.path();
        let last = match path.segments.len() {
            1 => &path.segments[0].ident,
            2 if path.segments[0].ident == TOOLKIT => &path.segments[1].ident,
            _ => return None,
        };
        [
            (TOOL, Marker::Tool),
            (RESOURCE, Marker::Resource),
            (PROMPT, Marker::Prompt),
        ]
        .into_iter()
        .find(|(symbol, _)| last == symbol)
        .map(|(_, marker)| marker)
    }
}

fn type_ident(ty: &Type) -> String {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        Type::Group(group) => type_ident(&group.elem),
        Type::Paren(paren) => type_ident(&paren.elem),
        _ => String::new(),
    }
}
