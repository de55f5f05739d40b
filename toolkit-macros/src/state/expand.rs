//! The code `#[derive(AgentState)]` writes: the `AgentState` impl (each key read, merged and
//! listed through its field, with no detour through the whole struct), and the keys struct that
//! `#[toolset(state = ...)]` checks its wiring against.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;

use super::ast::{Key, Rule, State};

pub(super) fn state(state: &State) -> TokenStream {
    let alias = format_ident!("__toolkit_private");
    let import = crate::expand::import_private(&state.krate, &alias);
    let p = quote!(#alias);
    let ident = &state.ident;
    let names: Vec<_> = state.keys.iter().map(|key| &key.name).collect();
    let fields: Vec<_> = state.keys.iter().map(|key| &key.field).collect();
    let merges = state.keys.iter().map(|key| merge(&p, key));
    let accepts = state.keys.iter().map(|key| accepts(&p, key));
    let typed_access = typed_access(&p, state);
    let listed = state.keys.iter().map(|key| listed(&p, key));
    let keys_struct = keys_struct(&p, state);
    quote! {
        const _: () = {
            #import

            #[automatically_derived]
            impl #p::AgentState for #ident {
                fn read(
                    &self,
                    key: &#p::std::primitive::str,
                ) -> #p::std::result::Result<
                    #p::std::option::Option<#p::serde_json::Value>,
                    #p::StateError,
                > {
                    match key {
                        #(#names => #p::read_field(key, &self.#fields),)*
                        _ => #p::std::result::Result::Err(#p::undeclared_key(key, &[#(#names),*])),
                    }
                }

                fn merge(
                    &mut self,
                    key: &#p::std::primitive::str,
                    value: #p::serde_json::Value,
                ) -> #p::std::result::Result<(), #p::StateError> {
                    match key {
                        #(#names => #merges,)*
                        _ => #p::std::result::Result::Err(#p::undeclared_key(key, &[#(#names),*])),
                    }
                }

                fn accepts(
                    &self,
                    key: &#p::std::primitive::str,
                    value: &#p::serde_json::Value,
                ) -> #p::std::result::Result<(), #p::StateError> {
                    match key {
                        #(#names => #accepts,)*
                        _ => #p::std::result::Result::Err(#p::undeclared_key(key, &[#(#names),*])),
                    }
                }

                fn keys(&self) -> #p::std::vec::Vec<#p::StateKey> {
                    #[allow(unused_imports)]
                    use #p::{HasOutputSchema as _, NoOutputSchema as _};
                    #p::std::vec![#(#listed),*]
                }

                fn to_json(&self) -> #p::serde_json::Value {
                    let mut __toolkit_map = #p::serde_json::Map::new();
                    #(
                        __toolkit_map.insert(
                            #p::std::string::String::from(#names),
                            #p::serde_json::to_value(&self.#fields)
                                .unwrap_or(#p::serde_json::Value::Null),
                        );
                    )*
                    #p::serde_json::Value::Object(__toolkit_map)
                }

            }

            #typed_access

            #keys_struct
        };
    }
}

/// Merging a JSON value into the key's field under its rule, spanned at the field so that a
/// field type that is not `Deserialize` is reported there.
fn merge(p: &TokenStream, key: &Key) -> TokenStream {
    let field = &key.field;
    let span = key.ty.span();
    match &key.rule {
        Rule::Lists => quote_spanned!(span=> #p::merge_list_into(key, &mut self.#field, value)),
        Rule::Replace => quote_spanned!(span=> #p::replace_field(key, &mut self.#field, value)),
        Rule::Custom(merge) => quote_spanned! {merge.span()=>
            #p::merge_field_with(key, &mut self.#field, value, #merge)
        },
    }
}

/// The `TypedState` impl: each key's field as `Any`, and typed values merged into it (the
/// typed path with state).
fn typed_access(p: &TokenStream, state: &State) -> TokenStream {
    let names = state.keys.iter().map(|key| &key.name);
    let fields = state.keys.iter().map(|key| &key.field);
    let merged_names = names.clone();
    let typed_merges = state.keys.iter().map(|key| typed_merge(p, key));
    let ident = &state.ident;
    quote! {
        #[automatically_derived]
        impl #p::TypedState for #ident {
        fn read_any(
            &self,
            key: &#p::std::primitive::str,
        ) -> #p::std::option::Option<&dyn #p::std::any::Any> {
            match key {
                #(#names => #p::std::option::Option::Some(&self.#fields),)*
                _ => #p::std::option::Option::None,
            }
        }

        fn merge_any(
            &mut self,
            key: &#p::std::primitive::str,
            value: &mut dyn #p::std::any::Any,
        ) -> #p::std::primitive::bool {
            match key {
                #(#merged_names => #typed_merges,)*
                _ => false,
            }
        }
        }
    }
}

/// Merging a typed value (behind `Any`) into the key's field under its rule, for the typed path
/// with state; the types it takes are those `merge` reads from JSON.
fn typed_merge(p: &TokenStream, key: &Key) -> TokenStream {
    let field = &key.field;
    match &key.rule {
        Rule::Lists => quote!(#p::merge_list_any(&mut self.#field, value)),
        Rule::Replace if crate::types::is_option(&key.ty) => {
            quote!(#p::replace_option_any(&mut self.#field, value))
        }
        Rule::Replace => quote!(#p::replace_any(&mut self.#field, value)),
        Rule::Custom(merge) => quote!(#p::merge_any_with(&mut self.#field, value, #merge)),
    }
}

/// Whether a JSON value would merge into the key: it reads as what the key's rule takes.
fn accepts(p: &TokenStream, key: &Key) -> TokenStream {
    let ty = &key.ty;
    match (&key.rule, crate::types::vec_item(ty)) {
        (Rule::Lists, Some(item)) => quote!(#p::accepts_list::<#item>(key, value)),
        _ => quote!(#p::accepts_value::<#ty>(key, value)),
    }
}

/// The key as `AgentState::keys` lists it: its name, the JSON Schema of its type (`{}` when the
/// type is not `JsonSchema`) and its rule.
fn listed(p: &TokenStream, key: &Key) -> TokenStream {
    let (name, ty) = (&key.name, &key.ty);
    let rule = match &key.rule {
        Rule::Lists => quote!(#p::MergeRule::Lists),
        Rule::Replace => quote!(#p::MergeRule::Replace),
        Rule::Custom(merge) => quote! {
            #p::MergeRule::Custom({
                fn __toolkit_merge(
                    current: &mut #p::serde_json::Value,
                    new: #p::serde_json::Value,
                ) -> #p::std::result::Result<(), #p::std::string::String> {
                    #p::merge_json_with::<#ty>(current, new, #merge)
                }
                __toolkit_merge
            })
        },
    };
    quote! {
        #p::StateKey {
            name: #p::std::string::String::from(#name),
            schema: (&&#p::OutputSchemaProbe::<#ty>::new())
                .output_schema()
                .unwrap_or_else(|| #p::serde_json::Value::Object(#p::serde_json::Map::new())),
            rule: #rule,
        }
    }
}

/// `<State as StateKeys>::Keys`: one field per key, typed with the key's type, its rule and a
/// marker named after it (`{Key}` in the check traits' messages).
fn keys_struct(p: &TokenStream, state: &State) -> TokenStream {
    let ident = &state.ident;
    let keys_ident = format_ident!("{}StateKeys", ident);
    let fields = state.keys.iter().map(|key| {
        let (field, ty) = (&key.field, &key.ty);
        let rule = match key.rule {
            Rule::Lists => quote!(#p::Lists),
            Rule::Replace => quote!(#p::Replace),
            Rule::Custom(_) => quote!(#p::Custom),
        };
        quote!(pub #field: #p::StateField<#ty, #rule, __toolkit_keys::#field>)
    });
    let markers = state.keys.iter().map(|key| &key.field);
    quote! {
        #[doc(hidden)]
        pub struct #keys_ident {
            #(#fields,)*
        }

        #[doc(hidden)]
        mod __toolkit_keys {
            #(
                #[allow(non_camel_case_types)]
                pub struct #markers;
            )*
        }

        impl #p::StateKeys for #ident {
            type Keys = #keys_ident;
        }
    }
}
