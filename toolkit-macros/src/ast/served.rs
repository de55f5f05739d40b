//! `#[resource]` and `#[prompt]` methods as our own model, and their attributes.

use proc_macro2::Span;

use super::Method;
use crate::attr::{self, Spanned, unknown_key};
use crate::ctxt::Ctxt;
use crate::symbol::*;
use toolkit_syntax::uri_template::{self, Part};

/// The keys of `#[resource(...)]` and `#[prompt(...)]` (a prompt takes no `uri`/`mime_type`).
#[derive(Default)]
pub(crate) struct ItemAttrs {
    pub uri: Option<Spanned<String>>,
    pub name: Option<Spanned<String>>,
    pub title: Option<Spanned<String>>,
    pub description: Option<String>,
    pub mime_type: Option<Spanned<String>>,
    pub icons: Vec<Spanned<String>>,
}

/// A `#[resource(...)]` method: a fixed resource, or a template when its URI has variables.
pub(crate) struct ResourceFn {
    pub method: Method,
    /// The URI or template as written; where it is missing, the attribute's span and "".
    pub uri: Spanned<String>,
    /// The template's parts, or what is wrong with it.
    pub parts: Result<Vec<Part>, String>,
    /// `name = "..."`, else the method's name.
    pub name: String,
    pub title: Option<Spanned<String>>,
    pub description: Option<String>,
    pub mime_type: Option<Spanned<String>>,
    pub icons: Vec<Spanned<String>>,
}

/// A `#[prompt(...)]` method.
pub(crate) struct PromptFn {
    pub method: Method,
    /// `name = "..."`, else the method's name.
    pub name: Spanned<String>,
    pub title: Option<Spanned<String>>,
    pub description: Option<String>,
    pub icons: Vec<Spanned<String>>,
}

impl ResourceFn {
    pub(crate) fn from_method(
        cx: &Ctxt,
        attr: &syn::Attribute,
        fn_attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
    ) -> ResourceFn {
        let attrs = parse_item_attrs(cx, attr, RESOURCE, RESOURCE_KEYS);
        let (method, doc) = Method::from_sig(cx, fn_attrs, sig);
        let uri = attrs.uri.unwrap_or_else(|| {
            cx.error_spanned_by(
                attr,
                "a resource needs its URI: #[resource(uri = \"scheme://path\")], with `{name}` \
                 for each parameter of a template",
            );
            Spanned {
                value: String::new(),
                span: Span::call_site(),
            }
        });
        let parts = uri_template::parse(&uri.value)
            .map_err(|problem| format!("URI template `{}` {problem}", uri.value));
        ResourceFn {
            parts,
            uri,
            name: attrs
                .name
                .map_or_else(|| super::unraw(&method.ident), |name| name.value),
            title: attrs.title,
            description: attrs.description.or(doc),
            mime_type: attrs.mime_type,
            icons: attrs.icons,
            method,
        }
    }

    /// The template's variables, in order; none for a fixed resource (or a broken template).
    pub(crate) fn variables(&self) -> Vec<&str> {
        match &self.parts {
            Ok(parts) => parts
                .iter()
                .filter_map(|part| match part {
                    Part::Param { name, .. } => Some(name.as_str()),
                    Part::Literal(_) => None,
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// Whether the URI has variables: the method then serves a resource template.
    pub(crate) fn is_template(&self) -> bool {
        !self.variables().is_empty()
    }
}

impl PromptFn {
    pub(crate) fn from_method(
        cx: &Ctxt,
        attr: &syn::Attribute,
        fn_attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
    ) -> PromptFn {
        let attrs = parse_item_attrs(cx, attr, PROMPT, PROMPT_KEYS);
        let (method, doc) = Method::from_sig(cx, fn_attrs, sig);
        let name = attrs.name.unwrap_or_else(|| Spanned {
            value: super::unraw(&method.ident),
            span: method.ident.span(),
        });
        PromptFn {
            name,
            title: attrs.title,
            description: attrs.description.or(doc),
            icons: attrs.icons,
            method,
        }
    }
}

/// `#[resource(...)]` or `#[prompt(...)]`: `keys` says which of the keys the attribute takes.
fn parse_item_attrs(
    cx: &Ctxt,
    attr: &syn::Attribute,
    attribute: Symbol,
    keys: &[Symbol],
) -> ItemAttrs {
    let mut attrs = ItemAttrs::default();
    if matches!(attr.meta, syn::Meta::Path(_)) {
        return attrs;
    }
    let result = attr.parse_nested_meta(|meta| {
        let path = &meta.path;
        let known = keys.iter().any(|key| path == *key);
        if known && path == URI {
            attrs.uri = Some(attr::string(&meta, URI)?);
        } else if known && path == NAME {
            attrs.name = Some(attr::string(&meta, NAME)?);
        } else if known && path == TITLE {
            attrs.title = Some(attr::string(&meta, TITLE)?);
        } else if known && path == DESCRIPTION {
            attrs.description = Some(attr::string(&meta, DESCRIPTION)?.value);
        } else if known && path == MIME_TYPE {
            attrs.mime_type = Some(attr::string(&meta, MIME_TYPE)?);
        } else if known && path == ICON {
            attrs.icons.extend(attr::strings(&meta, ICON)?);
        } else {
            return Err(unknown_key(&meta, attribute, keys));
        }
        Ok(())
    });
    if let Err(err) = result {
        cx.syn_error(err);
    }
    attrs
}
