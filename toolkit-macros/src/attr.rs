//! Parsing `#[toolset(...)]`, `#[tool(...)]` and `#[arg(...)]`, whose keys are in `symbol`.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::{Expr, LitInt, LitStr, Path};

use crate::ctxt::Ctxt;
use crate::symbol::*;

/// A string value and where it was written, for errors about it.
pub(crate) struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

#[derive(Default)]
pub(crate) struct ToolsetAttrs {
    pub name: Option<Spanned<String>>,
    pub krate: Option<Path>,
    /// `register = false`: leave the toolset out of `toolkit::registry`.
    pub register: Option<bool>,
    /// `state = T`: the `#[derive(AgentState)]` type the wiring is checked against.
    pub state: Option<syn::Type>,
}

pub(crate) fn parse_toolset_attrs(cx: &Ctxt, args: TokenStream) -> ToolsetAttrs {
    let mut attrs = ToolsetAttrs::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path == NAME {
            let lit: LitStr = meta.value()?.parse()?;
            attrs.name = Some(Spanned {
                value: lit.value(),
                span: lit.span(),
            });
        } else if meta.path == CRATE {
            let lit: LitStr = meta.value()?.parse()?;
            attrs.krate = Some(lit.parse()?);
        } else if meta.path == REGISTER {
            attrs.register = Some(flag(&meta)?);
        } else if meta.path == STATE {
            attrs.state = Some(meta.value()?.parse()?);
        } else {
            return Err(unknown_key(&meta, TOOLSET, TOOLSET_KEYS));
        }
        Ok(())
    });
    if let Err(err) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(err);
    }
    attrs
}

#[derive(Default)]
pub(crate) struct ToolAttrs {
    pub name: Option<Spanned<String>>,
    pub description: Option<String>,
    pub strict: bool,
    pub blocking: Option<Span>,
    pub inline: Option<Span>,
    pub needs_approval: bool,
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    pub timeout_ms: Option<u64>,
    pub max_input_bytes: Option<usize>,
    pub max_output_bytes: Option<usize>,
    pub max_depth: Option<usize>,
    /// `outputs_to_state(key, key = "field", ...)`.
    pub outputs_to_state: Vec<OutputToState>,
    /// `outputs_to_string = "field"` or `outputs_to_string(with = path)`.
    pub outputs_to_string: Option<Spanned<ShownAs>>,
    /// `crate = "path"`, on a free function only (a method's toolset says where toolkit is).
    pub krate: Option<Path>,
    /// `title = "..."`: the name a client shows people.
    pub title: Option<Spanned<String>>,
    /// `icon = "https://..."`, repeated or a list: checked by `valid`.
    pub icons: Vec<Spanned<String>>,
    /// `scopes = ["repo:write", ...]`: checked by `valid`.
    pub scopes: Vec<Spanned<String>>,
    /// `task` (`"required"`) or `task = "optional"`: the mode as written, checked by `valid`.
    pub task: Option<Spanned<String>>,
}

/// The modes `#[tool(task = "...")]` takes, with the `TaskSupport` variant each sets.
const TASK_MODES: &[(&str, &str)] = &[
    ("optional", "Optional"),
    ("required", "Required"),
    ("forbidden", "Forbidden"),
];

/// The `TaskSupport` variant of a task mode, `None` for a mode we do not know.
pub(crate) fn task_variant(mode: &str) -> Option<&'static str> {
    TASK_MODES
        .iter()
        .find(|(name, _)| *name == mode)
        .map(|(_, variant)| *variant)
}

/// One key of `outputs_to_state(...)`: the whole result (`key`) or one field of it
/// (`key = "field"`).
pub(crate) struct OutputToState {
    pub key: Spanned<String>,
    pub field: Option<String>,
}

/// What the model is shown of a result wired to state.
pub(crate) enum ShownAs {
    /// `outputs_to_string = "field"`.
    Field(String),
    /// `outputs_to_string(with = path)`: a `fn(&T) -> String` of the result type.
    Format(Path),
}

pub(crate) fn parse_tool_attrs(cx: &Ctxt, attr: &syn::Attribute) -> ToolAttrs {
    let mut attrs = ToolAttrs::default();
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return attrs;
    }
    let result = attr.parse_nested_meta(|meta| parse_tool_key(&mut attrs, &meta));
    if let Err(err) = result {
        cx.syn_error(err);
    }
    attrs
}

/// The keys of `#[tool(...)]` on a free function: those of a method, and `crate`, which a method
/// takes from its `#[toolset]`.
pub(crate) fn parse_tool_args(cx: &Ctxt, args: TokenStream) -> ToolAttrs {
    let mut attrs = ToolAttrs::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path == CRATE {
            let lit: LitStr = meta.value()?.parse()?;
            attrs.krate = Some(lit.parse()?);
            Ok(())
        } else {
            parse_tool_key(&mut attrs, &meta)
        }
    });
    if let Err(err) = syn::parse::Parser::parse2(parser, args) {
        cx.syn_error(err);
    }
    attrs
}

fn parse_tool_key(attrs: &mut ToolAttrs, meta: &ParseNestedMeta) -> syn::Result<()> {
    let path = &meta.path;
    if parse_mcp_tool_key(attrs, meta)? {
        return Ok(());
    }
    if path == NAME {
        let lit: LitStr = meta.value()?.parse()?;
        attrs.name = Some(Spanned {
            value: lit.value(),
            span: lit.span(),
        });
    } else if path == DESCRIPTION {
        let lit: LitStr = meta.value()?.parse()?;
        attrs.description = Some(lit.value());
    } else if path == STRICT {
        attrs.strict = flag(meta)?;
    } else if path == BLOCKING {
        attrs.blocking = flag(meta)?.then(|| path.segments[0].ident.span());
    } else if path == INLINE {
        attrs.inline = flag(meta)?.then(|| path.segments[0].ident.span());
    } else if path == NEEDS_APPROVAL {
        attrs.needs_approval = flag(meta)?;
    } else if path == READ_ONLY {
        attrs.read_only = Some(flag(meta)?);
    } else if path == DESTRUCTIVE {
        attrs.destructive = Some(flag(meta)?);
    } else if path == IDEMPOTENT {
        attrs.idempotent = Some(flag(meta)?);
    } else if path == OPEN_WORLD {
        attrs.open_world = Some(flag(meta)?);
    } else if path == TIMEOUT_MS {
        attrs.timeout_ms = Some(number(meta)?);
    } else if path == MAX_INPUT_BYTES {
        attrs.max_input_bytes = Some(number(meta)?);
    } else if path == MAX_OUTPUT_BYTES {
        attrs.max_output_bytes = Some(number(meta)?);
    } else if path == MAX_DEPTH {
        attrs.max_depth = Some(number(meta)?);
    } else if path == OUTPUTS_TO_STATE {
        meta.parse_nested_meta(|output| {
            let key = output.path.require_ident()?;
            let field = if output.input.peek(syn::Token![=]) {
                Some(output.value()?.parse::<LitStr>()?.value())
            } else {
                None
            };
            attrs.outputs_to_state.push(OutputToState {
                key: Spanned {
                    value: key.to_string(),
                    span: key.span(),
                },
                field,
            });
            Ok(())
        })?;
    } else if path == OUTPUTS_TO_STRING {
        let span = path.segments[0].ident.span();
        let shown = if meta.input.peek(syn::Token![=]) {
            ShownAs::Field(meta.value()?.parse::<LitStr>()?.value())
        } else {
            let mut format = None;
            meta.parse_nested_meta(|inner| {
                if inner.path == WITH {
                    format = Some(inner.value()?.parse::<Path>()?);
                    Ok(())
                } else {
                    Err(inner.error("expected `with = path::to::function`"))
                }
            })?;
            ShownAs::Format(format.ok_or_else(|| {
                meta.error("expected `outputs_to_string = \"field\"` or `outputs_to_string(with = function)`")
            })?)
        };
        attrs.outputs_to_string = Some(Spanned { value: shown, span });
    } else {
        return Err(unknown_key(meta, TOOL, TOOL_KEYS));
    }
    Ok(())
}

/// `key = "text"`; anything else is an error at the value that names the key.
pub(crate) fn string(meta: &ParseNestedMeta, key: Symbol) -> syn::Result<Spanned<String>> {
    let value: Expr = meta.value()?.parse()?;
    literal_string(&value).ok_or_else(|| {
        syn::Error::new_spanned(&value, format!("expected a string: `{key} = \"...\"`"))
    })
}

/// `key = "text"` or `key = ["text", ...]`, each string with its span.
pub(crate) fn strings(meta: &ParseNestedMeta, key: Symbol) -> syn::Result<Vec<Spanned<String>>> {
    let value: Expr = meta.value()?.parse()?;
    let expected = || format!("expected a string or a list of strings: `{key} = [\"...\", ...]`");
    match &value {
        Expr::Array(array) => array
            .elems
            .iter()
            .map(|elem| {
                literal_string(elem).ok_or_else(|| syn::Error::new_spanned(elem, expected()))
            })
            .collect(),
        other => match literal_string(other) {
            Some(one) => Ok(vec![one]),
            None => Err(syn::Error::new_spanned(other, expected())),
        },
    }
}

fn literal_string(expr: &Expr) -> Option<Spanned<String>> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Some(Spanned {
            value: lit.value(),
            span: lit.span(),
        }),
        Expr::Group(group) => literal_string(&group.expr),
        _ => None,
    }
}

/// The keys that say what an MCP client shows of a tool and requires to call it: `title`,
/// `icon`, `scopes`, `task`. `false` for any other key.
fn parse_mcp_tool_key(attrs: &mut ToolAttrs, meta: &ParseNestedMeta) -> syn::Result<bool> {
    let path = &meta.path;
    if path == TITLE {
        attrs.title = Some(string(meta, TITLE)?);
    } else if path == ICON {
        attrs.icons.extend(strings(meta, ICON)?);
    } else if path == SCOPES {
        attrs.scopes.extend(strings(meta, SCOPES)?);
    } else if path == TASK {
        attrs.task = Some(if meta.input.peek(syn::Token![=]) {
            string(meta, TASK)?
        } else {
            Spanned {
                value: "required".to_owned(),
                span: path.segments[0].ident.span(),
            }
        });
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// `strict` or `strict = true`.
fn flag(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse()?;
        Ok(lit.value)
    } else {
        Ok(true)
    }
}

/// `timeout_ms = 500`.
fn number<N>(meta: &ParseNestedMeta) -> syn::Result<N>
where
    N: std::str::FromStr,
    N::Err: std::fmt::Display,
{
    meta.value()?.parse::<LitInt>()?.base10_parse()
}

pub(crate) enum ArgDefault {
    /// `#[arg(default)]`: `Default::default()`.
    Trait,
    /// `#[arg(default = expr)]`.
    Expr(Box<Expr>),
}

#[derive(Default)]
pub(crate) struct ArgAttrs {
    pub description: Option<String>,
    pub default: Option<Spanned<ArgDefault>>,
    pub required: Option<Span>,
    /// `from_state` (`None` inside: the key is the parameter's name) or `from_state = "key"`.
    pub from_state: Option<Spanned<Option<String>>>,
    /// `complete = ["a", ...]` or `complete = method`, at the key.
    pub complete: Option<Spanned<Completion>>,
    /// `name = "..."`: a prompt argument's name, at the literal.
    pub name: Option<Spanned<String>>,
    /// `header = "..."`: the HTTP header (`Mcp-Param-<header>`) an MCP client mirrors a tool's
    /// argument into, at the literal.
    pub header: Option<Spanned<String>>,
}

/// How a prompt argument or a template parameter is completed (MCP `completion/complete`).
pub(crate) enum Completion {
    /// `complete = ["a", "b"]`: the values that start with what the user typed.
    Values(Vec<Spanned<String>>),
    /// `complete = method`: a method of the toolset, given what the user typed.
    Method(Path),
}

pub(crate) fn parse_arg_attrs(cx: &Ctxt, attr: &syn::Attribute, into: &mut ArgAttrs) {
    let result = attr.parse_nested_meta(|meta| {
        let span = meta.path.segments[0].ident.span();
        if meta.path == DESCRIPTION {
            let lit: LitStr = meta.value()?.parse()?;
            into.description = Some(lit.value());
        } else if meta.path == DEFAULT {
            let default = if meta.input.peek(syn::Token![=]) {
                ArgDefault::Expr(Box::new(meta.value()?.parse()?))
            } else {
                ArgDefault::Trait
            };
            into.default = Some(Spanned {
                value: default,
                span,
            });
        } else if meta.path == REQUIRED {
            into.required = Some(span);
        } else if meta.path == COMPLETE {
            into.complete = Some(Spanned {
                value: completion(&meta)?,
                span,
            });
        } else if meta.path == NAME {
            let lit: LitStr = meta.value()?.parse()?;
            into.name = Some(Spanned {
                value: lit.value(),
                span: lit.span(),
            });
        } else if meta.path == HEADER {
            let lit: LitStr = meta.value()?.parse()?;
            into.header = Some(Spanned {
                value: lit.value(),
                span: lit.span(),
            });
        } else if meta.path == FROM_STATE {
            into.from_state = Some(if meta.input.peek(syn::Token![=]) {
                let lit: LitStr = meta.value()?.parse()?;
                Spanned {
                    value: Some(lit.value()),
                    span: lit.span(),
                }
            } else {
                Spanned { value: None, span }
            });
        } else {
            return Err(unknown_key(&meta, ARG, ARG_KEYS));
        }
        Ok(())
    });
    if let Err(err) = result {
        cx.syn_error(err);
    }
}

/// `complete = ["a", "b"]` or `complete = method_name`.
fn completion(meta: &ParseNestedMeta) -> syn::Result<Completion> {
    let value: Expr = meta.value()?.parse()?;
    let expected = "expected a list of values, `complete = [\"a\", \"b\"]`, or a method of the \
                    toolset, `complete = method_name`";
    match &value {
        Expr::Array(array) => array
            .elems
            .iter()
            .map(|elem| literal_string(elem).ok_or_else(|| syn::Error::new_spanned(elem, expected)))
            .collect::<syn::Result<_>>()
            .map(Completion::Values),
        Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
            Ok(Completion::Method(path.path.clone()))
        }
        other => Err(syn::Error::new_spanned(other, expected)),
    }
}

pub(crate) fn unknown_key(
    meta: &ParseNestedMeta,
    attribute: Symbol,
    keys: &[Symbol],
) -> syn::Error {
    let key = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| quote::ToTokens::to_token_stream(&meta.path).to_string());
    let expected = keys
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    meta.error(format!(
        "unknown #[{attribute}] key `{key}`; expected one of: {expected}"
    ))
}
