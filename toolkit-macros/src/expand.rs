//! Code generation: one `ToolProxy` builder per tool, the `Toolset` impl, and the registration.
//!
//! Generated code names everything through `#krate::__private`, never through what the user
//! imported. When the input has mistakes, the user's impl block is still emitted (without our
//! attributes) next to the errors, so one mistake does not cascade into "method not found"s.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::ItemImpl;
use syn::spanned::Spanned;

use crate::ast::{Arg, ToolFn, Toolset};
use crate::attr::{self, ArgDefault};
use crate::ctxt::Ctxt;
use crate::{types, valid};

pub fn toolset(args: TokenStream, item: ItemImpl) -> TokenStream {
    let cx = Ctxt::default();
    let toolset = Toolset::from_impl(&cx, args, item);
    valid::check_toolset(&cx, &toolset);
    let item = &toolset.item;
    match cx.check() {
        Ok(()) => {
            let generated = expand_toolset(&toolset);
            quote!(#item #generated)
        }
        Err(err) => {
            let errors = err.to_compile_error();
            quote!(#item #errors)
        }
    }
}

/// `#[tool]` outside a `#[toolset]` impl block: on a free function, it makes the function a
/// tool and generates `<fn>_tool() -> ToolProxy` next to it.
pub fn standalone_tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let cx = Ctxt::default();
    let attrs = attr::parse_tool_args(&cx, args);
    let mut item = match syn::parse2::<syn::ItemFn>(input.clone()) {
        Ok(item) if item.sig.receiver().is_none() => item,
        Ok(method) => {
            // Point at `self`: the receiver is what makes this a method.
            if let Some(receiver) = method.sig.receiver() {
                cx.error_spanned_by(
                    receiver,
                    "#[tool] on a method needs #[toolset] on its impl block",
                );
            }
            let errors = cx.check().err().map(|e| e.to_compile_error());
            return quote!(#input #errors);
        }
        Err(_) => {
            cx.error_spanned_by(
                &input,
                "#[tool] goes on a function, or on a method of a #[toolset] impl block",
            );
            let errors = cx.check().err().map(|e| e.to_compile_error());
            return quote!(#input #errors);
        }
    };
    let tool = ToolFn::from_sig(&cx, "", &item.attrs, &mut item.sig, attrs);
    valid::check_tool(&cx, &tool, false);
    match cx.check() {
        Ok(()) => {
            let p = quote!(::toolkit::__private);
            let vis = &item.vis;
            let function = &item.sig.ident;
            let maker = format_ident!("{}_tool", function);
            let doc = format!(
                "The tool `{}` made by `#[tool]` from [`{function}`]: call it with \
                 `dynamic_call`, or convert it with `to_openai()` and friends.",
                tool.name.value
            );
            let builder = expand_tool(&p, &tool, None);
            quote! {
                #item
                #[doc = #doc]
                #[allow(dead_code)]
                #vis fn #maker() -> #p::ToolProxy {
                    #builder
                }
            }
        }
        Err(err) => {
            let errors = err.to_compile_error();
            quote!(#item #errors)
        }
    }
}

fn expand_toolset(toolset: &Toolset) -> TokenStream {
    let krate = &toolset.krate;
    let p = quote!(#krate::__private);
    let item = &toolset.item;
    let self_ty = &item.self_ty;
    let (impl_generics, _, where_clause) = item.generics.split_for_impl();
    let name = &toolset.name.value;
    let tool_names = toolset.tools.iter().map(|t| &t.name.value);
    let this = quote!(&self);
    let builders = toolset
        .tools
        .iter()
        .map(|t| expand_tool(&p, t, Some(&this)));
    // A generic impl block has no one type to register.
    let registration = (toolset.register && item.generics.params.is_empty()).then(|| {
        quote! {
            const _: () = {
                fn __toolkit_make_tools() -> #p::std::option::Option<#p::std::vec::Vec<#p::ToolProxy>> {
                    #[allow(unused_imports)]
                    use #p::{NoDefault as _, ViaDefault as _};
                    (&&#p::DefaultProbe::<#self_ty>::new()).make_tools()
                }
                #p::inventory::submit! {
                    #p::ToolsetRegistration {
                        name: #name,
                        type_name: #p::std::concat!(#p::std::module_path!(), "::", #p::std::stringify!(#self_ty)),
                        tool_names: <#self_ty as #p::Toolset>::TOOL_NAMES,
                        make_tools: __toolkit_make_tools,
                    }
                }
            };
        }
    });
    quote! {
        impl #impl_generics #p::Toolset for #self_ty #where_clause {
            const NAME: &'static str = #name;
            const TOOL_NAMES: &'static [&'static str] = &[#(#tool_names),*];

            fn into_tools(self: #p::std::sync::Arc<Self>) -> #p::std::vec::Vec<#p::ToolProxy> {
                #p::std::vec![#(#builders),*]
            }
        }
        #registration
    }
}

/// One tool's `ToolProxy` expression. `receiver` is the `&Arc<Self>` a method is called on;
/// `None` calls a free function by name.
fn expand_tool(p: &TokenStream, tool: &ToolFn, receiver: Option<&TokenStream>) -> TokenStream {
    let name = &tool.name.value;
    let description = tool.description.as_deref().unwrap_or_default();
    let method = &tool.ident;
    let specs = tool.args.iter().map(|arg| param_spec(p, arg));
    let bindings: Vec<_> = tool.args.iter().map(binding).collect();
    let takes = tool
        .args
        .iter()
        .zip(&bindings)
        .map(|(arg, bind)| take_argument(p, arg, bind));
    let call_args = tool.args.iter().zip(&bindings).map(|(arg, bind)| {
        if types::is_str_ref(&arg.ty) {
            quote!(&#bind)
        } else {
            quote!(#bind)
        }
    });
    let output_ty = &tool.output;
    let (convert, schema_ty) = convert_output(p, output_ty);
    let output_schema = if types::contains_impl_trait(schema_ty) {
        quote!(|| #p::std::option::Option::None)
    } else {
        quote! {
            || {
                #[allow(unused_imports)]
                use #p::{HasOutputSchema as _, NoOutputSchema as _};
                (&&#p::OutputSchemaProbe::<#schema_ty>::new()).output_schema()
            }
        }
    };
    let options = options(p, tool);
    let definition = quote! {
        #p::MethodTool {
            name: #name,
            description: #description,
            params: #p::std::vec![#(#specs),*],
            output_schema: #output_schema,
            options: #options,
        }
    };
    let result = quote!(#p::std::result::Result<#p::serde_json::Value, #p::HandlerError>);
    // A method's body holds its own clone of the shared instance; each async call clones again,
    // since the future outlives the closure's borrow.
    let (capture, recapture, callee) = match receiver {
        Some(this) => (
            quote!(let __toolkit_this = #p::std::sync::Arc::clone(#this);),
            quote!(let __toolkit_this = #p::std::sync::Arc::clone(&__toolkit_this);),
            quote!(__toolkit_this.#method),
        ),
        None => (quote!(), quote!(), quote!(#method)),
    };
    if tool.asyncness {
        quote! {{
            #capture
            #definition.asynchronous(move |mut __toolkit_args: #p::Arguments| {
                #recapture
                let __toolkit_future: #p::BoxFuture<#result> = #p::std::boxed::Box::pin(async move {
                    let __toolkit_args = &mut __toolkit_args;
                    #(#takes)*
                    #convert(#callee(#(#call_args),*).await)
                });
                __toolkit_future
            })
        }}
    } else {
        quote! {{
            #capture
            #definition.sync(move |__toolkit_args: &mut #p::Arguments| -> #result {
                #(#takes)*
                #convert(#callee(#(#call_args),*))
            })
        }}
    }
}

/// The function that turns the method's return value into JSON, with its type arguments
/// written out: an unmet bound (`ToolOutput`, `ToolErrorMessage`) is then reported at the user's
/// return type (or the `Result`'s error type), not at the `#[toolset]` attribute. `impl Trait`
/// cannot be written there, so such returns are left to inference.
fn convert_output<'a>(p: &TokenStream, output_ty: &'a syn::Type) -> (TokenStream, &'a syn::Type) {
    let span = output_ty.span();
    let inferred = types::contains_impl_trait(output_ty);
    match types::result_ok_type(output_ty) {
        Some(ok) if inferred => (quote_spanned!(span=> #p::result_output), ok),
        Some(ok) => {
            let err = match types::result_err_type(output_ty) {
                Some(err) => quote!(#err),
                None => quote_spanned!(span=> _),
            };
            (quote_spanned!(span=> #p::result_output::<#ok, #err>), ok)
        }
        None if inferred => (quote_spanned!(span=> #p::output), output_ty),
        None => (quote_spanned!(span=> #p::output::<#output_ty>), output_ty),
    }
}

fn binding(arg: &Arg) -> syn::Ident {
    format_ident!("__toolkit_arg_{}", arg.key())
}

/// The type the argument is decoded as: `String` for a `&str` parameter.
fn decoded_type(p: &TokenStream, arg: &Arg) -> TokenStream {
    let ty = &arg.ty;
    if types::is_str_ref(ty) {
        quote_spanned!(ty.span()=> #p::std::string::String)
    } else {
        quote!(#ty)
    }
}

fn param_spec(p: &TokenStream, arg: &Arg) -> TokenStream {
    let key = arg.key();
    let ty = decoded_type(p, arg);
    let description = match &arg.description {
        Some(text) => quote!(#p::std::option::Option::Some(#text)),
        None => quote!(#p::std::option::Option::None),
    };
    let required = arg.default.is_none() && (arg.required.is_some() || !types::is_option(&arg.ty));
    let default = match &arg.default {
        None => quote!(#p::std::option::Option::None),
        Some(default) => {
            let value = default_expr(p, arg, &ty, &default.value);
            quote! {
                #p::std::option::Option::Some(
                    (|| {
                        #[allow(unused_imports)]
                        use #p::{DefaultShown as _, DefaultHidden as _};
                        let __toolkit_default: #ty = #value;
                        (&&#p::DefaultValue(__toolkit_default)).to_json()
                    }) as fn() -> #p::std::option::Option<#p::serde_json::Value>
                )
            }
        }
    };
    // For `Option<T>` the bound is put on `T` itself: a `T` that is not a tool type is then
    // reported with our message at `T`, instead of rustc's generic one about `Option<T>`.
    let schema = match types::option_inner(&arg.ty) {
        Some(inner) => quote_spanned!(inner.span()=> #p::param_schema_option::<#inner>),
        None => quote_spanned!(arg.ty.span()=> #p::param_schema::<#ty>),
    };
    quote! {
        #p::ParamSpec {
            name: #key,
            description: #description,
            schema: #schema,
            required: #required,
            default: #default,
        }
    }
}

fn default_expr(p: &TokenStream, arg: &Arg, ty: &TokenStream, default: &ArgDefault) -> TokenStream {
    match default {
        ArgDefault::Trait => quote!(<#ty as ::core::default::Default>::default()),
        // A `&str` parameter is decoded as a `String`: `#[arg(default = "x")]` must become one.
        ArgDefault::Expr(expr) if types::is_str_ref(&arg.ty) => {
            quote!(#p::std::string::String::from(#expr))
        }
        ArgDefault::Expr(expr) => quote!(#expr),
    }
}

fn take_argument(p: &TokenStream, arg: &Arg, bind: &syn::Ident) -> TokenStream {
    let key = arg.key();
    let ty = decoded_type(p, arg);
    // Spanned at the parameter's type, like `param_schema::<T>`: rustc then reports the unmet
    // `Deserialize` bound once, under `param_schema`'s `ToolArgument` message, which implies it.
    let span = arg.ty.span();
    let take = match (&arg.default, arg.required) {
        (Some(default), _) => {
            let value = default_expr(p, arg, &ty, &default.value);
            quote_spanned!(span=> __toolkit_args.take_or_else::<#ty>(#key, || #value))
        }
        (None, required) => match types::option_inner(&arg.ty) {
            // The same bound at the same span as `param_schema_option::<T>`: reported once.
            Some(inner) if required.is_some() => {
                quote_spanned!(inner.span()=> __toolkit_args.take_present_option::<#inner>(#key))
            }
            Some(inner) => {
                quote_spanned!(inner.span()=> __toolkit_args.take_option::<#inner>(#key))
            }
            None if required.is_some() => {
                quote_spanned!(span=> __toolkit_args.take_present::<#ty>(#key))
            }
            None => quote_spanned!(span=> __toolkit_args.take::<#ty>(#key)),
        },
    };
    quote!(let #bind: #ty = #take?;)
}

fn options(p: &TokenStream, tool: &ToolFn) -> TokenStream {
    let attrs = &tool.attrs;
    let strict = attrs.strict;
    let blocking = attrs.blocking.is_some();
    let opt_bool = |value: Option<bool>| match value {
        Some(b) => quote!(#p::std::option::Option::Some(#b)),
        None => quote!(#p::std::option::Option::None),
    };
    let read_only = opt_bool(attrs.read_only);
    let destructive = opt_bool(attrs.destructive);
    let idempotent = opt_bool(attrs.idempotent);
    let open_world = opt_bool(attrs.open_world);
    let opt_num = |value: Option<u64>| match value {
        Some(n) => quote!(#p::std::option::Option::Some(#n as _)),
        None => quote!(#p::std::option::Option::None),
    };
    let timeout = opt_num(attrs.timeout_ms);
    let max_in = opt_num(attrs.max_input_bytes.map(|n| n as u64));
    let max_out = opt_num(attrs.max_output_bytes.map(|n| n as u64));
    quote! {
        #p::options(
            #strict,
            #blocking,
            #p::ToolAnnotations {
                read_only: #read_only,
                destructive: #destructive,
                idempotent: #idempotent,
                open_world: #open_world,
            },
            #timeout,
            #max_in,
            #max_out,
        )
    }
}
