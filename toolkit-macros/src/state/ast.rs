//! A `#[derive(AgentState)]` struct as our own model: its keys (the fields), their types and
//! merge rules.

use syn::{Data, DeriveInput, Fields, Ident, Path, Type};

use crate::ast::unraw;
use crate::attr::unknown_key;
use crate::ctxt::Ctxt;
use crate::symbol::{CRATE, MERGE, REPLACE, STATE, STATE_CONTAINER_KEYS, STATE_KEYS};
use crate::types;

pub(super) struct State {
    pub ident: Ident,
    /// The path generated code names toolkit by (`::toolkit` unless `#[state(crate = "...")]`).
    pub krate: Path,
    pub keys: Vec<Key>,
}

/// One field: a key named after it.
pub(super) struct Key {
    pub field: Ident,
    /// The key's name: the field's, without `r#`.
    pub name: String,
    pub ty: Type,
    pub rule: Rule,
}

pub(super) enum Rule {
    /// `Vec<T>` by default: a list is concatenated, a single item appended.
    Lists,
    /// Other types by default, and `#[state(replace)]`.
    Replace,
    /// `#[state(merge = path)]`: `fn(&mut T, T)`.
    Custom(Path),
}

impl State {
    /// The model, or `None` after reporting why the input cannot be a state.
    pub(super) fn from_input(cx: &Ctxt, input: &DeriveInput) -> Option<State> {
        let krate = container_crate(cx, input);
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "AgentState cannot be derived for a generic struct: its keys need concrete types",
            );
        }
        let fields = match &input.data {
            Data::Struct(syn::DataStruct {
                fields: Fields::Named(fields),
                ..
            }) => &fields.named,
            _ => {
                cx.error_spanned_by(
                    &input.ident,
                    "AgentState is derived for a struct with named fields: the names are the \
                     state's keys",
                );
                return None;
            }
        };
        let keys = fields
            .iter()
            .filter_map(|field| {
                let ident = field.ident.clone()?;
                Some(Key {
                    name: unraw(&ident),
                    rule: field_rule(cx, field),
                    field: ident,
                    ty: field.ty.clone(),
                })
            })
            .collect();
        Some(State {
            ident: input.ident.clone(),
            krate: krate.unwrap_or_else(|| syn::parse_quote!(::toolkit)),
            keys,
        })
    }
}

/// `#[state(crate = "...")]` on the struct.
fn container_crate(cx: &Ctxt, input: &DeriveInput) -> Option<Path> {
    let mut krate = None;
    for attr in input.attrs.iter().filter(|a| a.path() == STATE) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path == CRATE {
                let lit: syn::LitStr = meta.value()?.parse()?;
                krate = Some(lit.parse()?);
                Ok(())
            } else {
                Err(unknown_key(&meta, STATE, STATE_CONTAINER_KEYS))
            }
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    krate
}

/// The field's merge rule: `#[state(replace)]`, `#[state(merge = path)]`, or its type's default.
fn field_rule(cx: &Ctxt, field: &syn::Field) -> Rule {
    let mut rule = None;
    for attr in field.attrs.iter().filter(|a| a.path() == STATE) {
        let result = attr.parse_nested_meta(|meta| {
            let given = if meta.path == REPLACE {
                Rule::Replace
            } else if meta.path == MERGE {
                Rule::Custom(meta.value()?.parse()?)
            } else {
                return Err(unknown_key(&meta, STATE, STATE_KEYS));
            };
            if rule.replace(given).is_some() {
                return Err(meta.error("a key has one merge rule: `replace` or `merge = path`"));
            }
            Ok(())
        });
        if let Err(err) = result {
            cx.syn_error(err);
        }
    }
    rule.unwrap_or_else(|| {
        if types::vec_item(&field.ty).is_some() {
            Rule::Lists
        } else {
            Rule::Replace
        }
    })
}
