//! State wiring of a `#[toolset(state = T)]`: the `StateWiring` each wired tool is built with,
//! and a function, never called, whose type checks prove that every key exists on `T` and that
//! its type fits the parameter it fills or the result merged into it.
//!
//! The checks name the fields of the keys struct `#[derive(AgentState)]` writes for `T`
//! (`toolkit_runtime::state::typed`): an unknown key is then rustc's own "no field" error at
//! the key, with its suggestion of a similar name, and a type that does not fit is an unmet
//! bound whose message names the key and both types, at the parameter's type or the key.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::ast::{ToolFn, Toolset};
use crate::attr::{ShownAs, Spanned};
use crate::fast::decoded_type;
use crate::types;

/// `builder` wired to state, when the tool reads or writes any key.
pub fn wire(p: &TokenStream, tool: &ToolFn, builder: TokenStream) -> TokenStream {
    let attrs = &tool.attrs;
    let inputs: Vec<_> = tool
        .args
        .iter()
        .filter_map(|arg| {
            let key = &arg.from_state.as_ref()?.value;
            let parameter = arg.key();
            Some(quote!(.input_from(#key, #parameter)))
        })
        .collect();
    if inputs.is_empty() && attrs.outputs_to_state.is_empty() && attrs.outputs_to_string.is_none() {
        return builder;
    }
    let outputs = attrs.outputs_to_state.iter().map(|output| {
        let key = &output.key.value;
        match &output.field {
            None => quote!(.output(#key)),
            Some(field) => quote!(.output_field(#field, #key)),
        }
    });
    let shown = attrs
        .outputs_to_string
        .as_ref()
        .map(|shown| match &shown.value {
            ShownAs::Field(field) => quote!(.output_to_string(#field)),
            ShownAs::Format(format) => {
                let result = result_type(tool);
                quote_spanned! {format.span()=>
                    .output_to_string_with(|__toolkit_result: &#p::serde_json::Value| {
                        #p::format_result::<#result>(__toolkit_result, #format)
                    })
                }
            }
        });
    quote! {
        #p::wire_state(#builder, #p::StateWiring::new() #(#inputs)* #(#outputs)* #shown)
    }
}

/// The never-called function that checks every tool's wiring against the state type.
pub fn checks(p: &TokenStream, toolset: &Toolset) -> Option<TokenStream> {
    let state = toolset.state.as_ref()?;
    let mut checks = Vec::new();
    for tool in &toolset.tools {
        for arg in &tool.args {
            let Some(key) = &arg.from_state else { continue };
            let field = key_field(key);
            let ty = decoded_type(p, arg);
            checks.push(quote_spanned! {arg.ty.span()=>
                #p::check_input::<#ty, _, _, _>(&__toolkit_keys.#field);
            });
        }
        // A field of the result has a type only rustc knows: checked when the call runs.
        let whole = tool
            .attrs
            .outputs_to_state
            .iter()
            .filter(|o| o.field.is_none());
        let result = result_type(tool);
        for output in whole {
            let field = key_field(&output.key);
            checks.push(if types::contains_impl_trait(result) {
                quote!(let _ = &__toolkit_keys.#field;)
            } else {
                quote_spanned! {output.key.span=>
                    #p::check_output::<#result, _, _, _>(&__toolkit_keys.#field);
                }
            });
        }
    }
    let (impl_generics, _, where_clause) = toolset.item.generics.split_for_impl();
    let keys = quote_spanned!(state.span()=> <#state as #p::StateKeys>::Keys);
    Some(quote! {
        const _: () = {
            #[allow(dead_code, unused_variables, clippy::all)]
            fn __toolkit_check_state_wiring #impl_generics (__toolkit_keys: #keys) #where_clause {
                #(#checks)*
            }
        };
    })
}

/// The keys struct's field for a key (already checked to be an identifier), at the key's span.
fn key_field(key: &Spanned<String>) -> syn::Ident {
    format_ident!("{}", key.value, span = key.span)
}

/// What the method returns on success: `T` of `Result<T, E>`, else the return type.
fn result_type(tool: &ToolFn) -> &syn::Type {
    types::result_ok_type(&tool.output).unwrap_or(&tool.output)
}
