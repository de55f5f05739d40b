//! How a tool's one body gets its parameters: the tuple of `Field`s the runtime's `call::typed`
//! reads them into (from the call's JSON or from validated arguments), the readers, the
//! unpacking into the parameters' own types, and the arguments the function is called with.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Arg, ToolFn};
use crate::attr::ArgDefault;
use crate::types;

/// The parameters `args`, bound to `bindings`, as the runtime's `call::typed` reads them:
/// `(parser, fields_type, unpack)`.
/// `parser` is `Some` only when every parameter type can be read, so a type that cannot is
/// reported once, by its `param_schema`; `unpack` turns the `Field`s read into the parameters
/// as `Arguments::take*` would, or returns `None` where only the full pipeline can word the
/// error.
pub(crate) fn read_params(
    p: &TokenStream,
    args: &[&Arg],
    bindings: &[&syn::Ident],
) -> (TokenStream, TokenStream, TokenStream) {
    let types = args.iter().map(|arg| decoded_type(p, arg));
    let fields_type = quote!((#(#p::Field<#types>,)*));
    let parser = quote! {{
        #[allow(unused_imports)]
        use #p::{HasFields as _, NoFields as _};
        (&&#p::FieldsProbe::<#fields_type>::new()).parser()
    }};
    let values = args.iter().zip(bindings).map(|(arg, bind)| {
        let ty = decoded_type(p, arg);
        let value = match (&arg.default, types::option_inner(&arg.ty)) {
            (Some(default), _) => {
                let value = default_expr(p, arg, &ty, &default.value);
                quote!(#bind.or_else(|| #value))
            }
            (None, Some(_)) if arg.required.is_none() => quote!(#bind.optional()),
            (None, _) => quote!(#bind.required()?),
        };
        quote!(let #bind: #ty = #value;)
    });
    let unpack = quote! {
        let (#(#bindings,)*) = __toolkit_fields;
        #(#values)*
    };
    (parser, fields_type, unpack)
}

/// Both readers of a method's parameters (see the runtime's `FieldReaders`): from the call's
/// JSON and from validated arguments, so that one body serves both paths. `None` when a
/// parameter type cannot be read, which its `param_schema` reports.
pub(crate) fn readers(p: &TokenStream, fields_type: &TokenStream) -> TokenStream {
    quote! {{
        #[allow(unused_imports)]
        use #p::{HasFields as _, NoFields as _};
        (&&#p::FieldsProbe::<#fields_type>::new()).readers()
    }}
}

/// The type the argument is decoded as: `String` for a `&str` parameter.
pub(crate) fn decoded_type(p: &TokenStream, arg: &Arg) -> TokenStream {
    let ty = &arg.ty;
    if types::is_str_ref(ty) {
        quote_spanned!(ty.span()=> #p::std::string::String)
    } else {
        quote!(#ty)
    }
}

pub(crate) fn default_expr(
    p: &TokenStream,
    arg: &Arg,
    ty: &TokenStream,
    default: &ArgDefault,
) -> TokenStream {
    match default {
        ArgDefault::Trait => quote!(<#ty as ::core::default::Default>::default()),
        // A `&str` parameter is decoded as a `String`: `#[arg(default = "x")]` must become one.
        ArgDefault::Expr(expr) if types::is_str_ref(&arg.ty) => {
            quote!(#p::std::string::String::from(#expr))
        }
        ArgDefault::Expr(expr) => quote!(#expr),
    }
}

/// The name a parameter is bound to in generated code.
pub(crate) fn binding(arg: &Arg) -> syn::Ident {
    format_ident!("__toolkit_arg_{}", arg.key())
}

/// The arguments the method is called with: a `&str` parameter is passed a borrowed `String`,
/// and the context, where the method takes one, is passed in its place as `&` the binding
/// [`context`] makes.
pub(crate) fn call_args(tool: &ToolFn, bindings: &[syn::Ident]) -> Vec<TokenStream> {
    let mut call_args: Vec<TokenStream> = tool
        .args
        .iter()
        .zip(bindings)
        .map(|(arg, bind)| {
            if types::is_str_ref(&arg.ty) {
                quote!(&#bind)
            } else {
                quote!(#bind)
            }
        })
        .collect();
    if let Some(context) = tool.context() {
        let ctx = context_binding();
        call_args.insert(context.position.min(call_args.len()), quote!(&#ctx));
    }
    call_args
}

/// The statement that binds the call's context, for a method that takes one: read from the
/// proxy that runs the call, in the body's closure itself and not in the future an async body
/// returns, since the proxy sets it only around that closure (a future may be polled
/// anywhere). The future owns it and lends it to the method.
pub(crate) fn context(p: &TokenStream, tool: &ToolFn) -> Option<TokenStream> {
    tool.context()?;
    let ctx = context_binding();
    let name = &tool.name.value;
    Some(quote!(let #ctx = #p::ToolContext::current(#name);))
}

fn context_binding() -> syn::Ident {
    format_ident!("__toolkit_ctx")
}
