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

use crate::ast::{Arg, ToolFn, Toolset};
use crate::attr::{ShownAs, Spanned};
use crate::params::{binding, call_args, decoded_type, read_params};
use crate::types;

/// `builder` wired to state, when the tool reads or writes any key; with the toolset's `state`
/// type, also given its typed body with state where the tool can have one.
pub(crate) fn wire(
    p: &TokenStream,
    tool: &ToolFn,
    builder: TokenStream,
    state: Option<&syn::Type>,
    this: &TokenStream,
) -> TokenStream {
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
    let wired = quote! {
        #p::wire_state(#builder, #p::StateWiring::new() #(#inputs)* #(#outputs)* #shown)
    };
    match state.and_then(|state| typed_state_body(p, tool, state, this)) {
        Some(body) => quote!(#p::wire_state_typed(#wired, #body)),
        None => wired,
    }
}

/// The arguments of `wire_state_typed` after the tool (see the runtime's `call::stateful`): the
/// reader of the parameters the model sends, their names, and the body that clones the others
/// from the state (`TypedState::read_any`), calls the method and merges its result into its
/// key (`TypedState::merge_any`). `None` where the JSON path is the only one: an async or
/// blocking body, a borrowed type, a result field or several keys written (they need the
/// result as JSON), or a required `Option` filled from state (absent and `null` differ there).
///
/// The body names the state type only through a probe, and not its fields: a state of another
/// type, or a type without the derive, is found at run time (the JSON path then decides), and
/// a mistake in the wiring is reported once, by the checks below.
fn typed_state_body(
    p: &TokenStream,
    tool: &ToolFn,
    state: &syn::Type,
    this: &TokenStream,
) -> Option<TokenStream> {
    if !has_typed_state_body(tool) {
        return None;
    }
    let outputs = &tool.attrs.outputs_to_state;
    let result = result_type(tool);
    let bindings: Vec<syn::Ident> = tool.args.iter().map(binding).collect();
    let (sent, filled): (Vec<_>, Vec<_>) = tool
        .args
        .iter()
        .zip(&bindings)
        .partition(|(arg, _)| arg.from_state.is_none());
    let (sent_args, sent_bindings): (Vec<&Arg>, Vec<&syn::Ident>) = sent.into_iter().unzip();
    let names = sent_args.iter().map(|arg| arg.key());
    let (parser, fields_type, unpack) = read_params(p, &sent_args, &sent_bindings);
    let fills = filled.iter().filter_map(|(arg, bind)| fill(p, arg, bind));
    let method = &tool.ident;
    let call_args = call_args(tool, &bindings);
    let unwrap = types::result_err_type(&tool.output).map(|err| {
        quote_spanned! {tool.output.span()=>
            let __toolkit_result = match __toolkit_result {
                #p::std::result::Result::Ok(__toolkit_ok) => __toolkit_ok,
                #p::std::result::Result::Err(__toolkit_err) => return #p::std::option::Option::Some(
                    #p::result_output::<(), #err>(#p::std::result::Result::Err(__toolkit_err)),
                ),
            };
        }
    });
    let key = outputs.first().map(|output| &output.key.value);
    // The key must take the result in its type before the method runs: after, it is too late
    // to leave the call to the JSON path.
    let takes = key.map(|key| {
        quote! {
            if !__toolkit_state.merge_any(#key, &mut #p::std::option::Option::<#result>::None) {
                return #p::std::option::Option::None;
            }
        }
    });
    let merge = key.map(|key| {
        quote! {
            __toolkit_state.merge_any(#key, &mut #p::std::option::Option::Some(__toolkit_result));
        }
    });
    let returned = quote!(#p::std::result::Result<#p::serde_json::Value, #p::HandlerError>);
    Some(quote! {
        #parser,
        &[#(#names),*],
        {
            let __toolkit_this = #p::std::sync::Arc::clone(#this);
            move |__toolkit_state: &mut dyn #p::AgentState, __toolkit_fields: #fields_type|
                -> #p::std::option::Option<#returned>
            {
                let __toolkit_state = {
                    #[allow(unused_imports)]
                    use #p::{NotTypedState as _, ViaTypedState as _};
                    (&&#p::TypedProbe::<#state>::new()).typed(__toolkit_state)?
                };
                #unpack
                #(#fills)*
                #takes
                let __toolkit_result = __toolkit_this.#method(#(#call_args),*);
                #unwrap
                let __toolkit_value = match #p::output_ref::<#result>(&__toolkit_result) {
                    #p::std::result::Result::Ok(__toolkit_value) => __toolkit_value,
                    #p::std::result::Result::Err(__toolkit_err) => {
                        return #p::std::option::Option::Some(#p::std::result::Result::Err(__toolkit_err));
                    }
                };
                #merge
                #p::std::option::Option::Some(#p::std::result::Result::Ok(__toolkit_value))
            }
        }
    })
}

/// Whether the tool can have a typed body with state (see `typed_state_body`). A tool that
/// takes a context has none: the proxy enters the context around the JSON path's body only.
fn has_typed_state_body(tool: &ToolFn) -> bool {
    let attrs = &tool.attrs;
    let outputs = &attrs.outputs_to_state;
    !(tool.asyncness
        || tool.context().is_some()
        || attrs.blocking.is_some()
        || types::may_borrow(result_type(tool))
        || outputs.len() > 1
        || outputs.iter().any(|output| output.field.is_some())
        || tool.args.iter().any(|arg| {
            arg.from_state.is_some()
                && (arg.required.is_some()
                    || types::may_borrow(&arg.ty) && !types::is_str_ref(&arg.ty))
        }))
}

/// The statement that binds a state-filled parameter to a clone of its key's value, or leaves
/// the call to the JSON path.
fn fill(p: &TokenStream, arg: &Arg, bind: &syn::Ident) -> Option<TokenStream> {
    let key = &arg.from_state.as_ref()?.value;
    let ty = decoded_type(p, arg);
    let probe = match types::option_inner(&arg.ty) {
        Some(inner) => quote!(#p::FillAnyOption::<#inner>),
        None => quote!(#p::FillAny::<#ty>),
    };
    Some(quote! {
        let #bind: #ty = {
            #[allow(unused_imports)]
            use #p::{FillByClone as _, FillNever as _};
            (&&#probe::new()).fill(__toolkit_state.read_any(#key)?)?
        };
    })
}

/// The never-called function that checks every tool's wiring against the state type.
pub(crate) fn checks(p: &TokenStream, toolset: &Toolset) -> Option<TokenStream> {
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
        #[allow(dead_code, unused_variables, clippy::all)]
        fn __toolkit_check_state_wiring #impl_generics (__toolkit_keys: #keys) #where_clause {
            #(#checks)*
        }
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
