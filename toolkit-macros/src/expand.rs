//! Code generation: one `ToolProxy` builder per tool, the `Toolset` impl, and the registration.
//!
//! Generated code names everything through `#krate::__private`, never through what the user
//! imported. When the input has mistakes, the user's impl block is still emitted (without our
//! attributes) next to the errors, with a fallback `Toolset` impl, so one mistake does not
//! cascade into "method not found"s.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ItemImpl;
use syn::spanned::Spanned;

use crate::ast::{Arg, ToolFn, Toolset};
use crate::attr;
use crate::ctxt::Ctxt;
use crate::fast::{self, binding, call_args, decoded_type, default_expr};
use crate::{types, valid, wiring};

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
            let fallback = fallback_toolset(&toolset);
            quote!(#item #fallback #errors)
        }
    }
}

/// The `Toolset` impl emitted next to the errors (thiserror's fallback impl): the name and the
/// tool names as far as they parsed, and no tools. Code elsewhere that uses the toolset then
/// compiles, and the build reports only the mistakes themselves.
fn fallback_toolset(toolset: &Toolset) -> Option<TokenStream> {
    let item = &toolset.item;
    // A generic impl may lack the bounds `Toolset` asks of the type (`Send + Sync + 'static`),
    // and the fallback would then add errors of its own.
    if !item.generics.params.is_empty() {
        return None;
    }
    let krate = &toolset.krate;
    let self_ty = &item.self_ty;
    let where_clause = &item.generics.where_clause;
    let name = &toolset.name.value;
    let tool_names = toolset.tools.iter().map(|t| &t.name.value);
    // One import names everything: a wrong `crate = "..."` path is then reported once, at the
    // path, rather than at each use.
    Some(quote! {
        const _: () = {
            use #krate::__private as __toolkit_private;
            impl __toolkit_private::Toolset for #self_ty #where_clause {
                const NAME: &'static str = #name;
                const TOOL_NAMES: &'static [&'static str] = &[#(#tool_names),*];

                fn into_tools(
                    self: __toolkit_private::std::sync::Arc<Self>,
                ) -> __toolkit_private::std::vec::Vec<__toolkit_private::ToolProxy> {
                    __toolkit_private::std::vec::Vec::new()
                }
            }
        };
    })
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
    valid::check_state_wiring(&cx, &tool, false);
    match cx.check() {
        Ok(()) => {
            let p = quote!(::toolkit::__private);
            let vis = &item.vis;
            let function = &item.sig.ident;
            let maker = format_ident!("{}_tool", function);
            let doc = format!(
                "The tool `{}` made by `#[tool]` from [`{function}`]: call it with \
                 `dynamic_call`, or render its definition with `definition_in(format)`.",
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
    let builders = toolset.tools.iter().map(|t| {
        let builder = expand_tool(&p, t, Some(&this));
        wiring::wire(&p, t, builder, toolset.state.as_ref(), &this)
    });
    let state_checks = wiring::checks(&p, toolset);
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
        #state_checks
    }
}

/// One tool's `ToolProxy` expression. `receiver` is the `&Arc<Self>` a method is called on;
/// `None` calls a free function by name.
fn expand_tool(p: &TokenStream, tool: &ToolFn, receiver: Option<&TokenStream>) -> TokenStream {
    let method = &tool.ident;
    let bindings: Vec<_> = tool.args.iter().map(binding).collect();
    let call_args = call_args(tool, &bindings);
    let (convert, _) = convert_output(p, &tool.output);
    let definition = method_tool(p, tool);
    let result = quote!(#p::std::result::Result<#p::serde_json::Value, #p::HandlerError>);
    let (capture, recapture, callee) = receiver_parts(p, receiver, method);
    let args: Vec<&Arg> = tool.args.iter().collect();
    let (_, fields_type, unpack) = fast::fast_path(p, &args, &bindings.iter().collect::<Vec<_>>());
    let readers = fast::readers(p, &fields_type);
    // One body per tool, for both paths: the runtime reads the parameters into `fields_type`
    // from the call's JSON or from validated arguments (a second body, taking each argument
    // by name, cost about a tenth of the crate's compile time).
    if tool.asyncness {
        quote! {{
            #capture
            #definition.asynchronous(#readers, move |__toolkit_fields: #fields_type|
                -> #p::std::option::Option<#p::BoxFuture<'static, #result>>
            {
                #unpack
                #recapture
                #p::std::option::Option::Some(#p::std::boxed::Box::pin(async move {
                    #convert(#callee(#(#call_args),*).await)
                }))
            })
        }}
    } else {
        quote! {{
            #capture
            #definition.sync(#readers, move |__toolkit_fields: #fields_type|
                -> #p::std::option::Option<#result>
            {
                #unpack
                #p::std::option::Option::Some(#convert(#callee(#(#call_args),*)))
            })
        }}
    }
}

/// How a body reaches the instance: `(capture, recapture, callee)`. A method's body holds its
/// own clone of the shared instance; each async call clones again, since the future outlives the
/// closure's borrow.
fn receiver_parts(
    p: &TokenStream,
    receiver: Option<&TokenStream>,
    method: &syn::Ident,
) -> (TokenStream, TokenStream, TokenStream) {
    match receiver {
        Some(this) => (
            quote!(let __toolkit_this = #p::std::sync::Arc::clone(#this);),
            quote!(let __toolkit_this = #p::std::sync::Arc::clone(&__toolkit_this);),
            quote!(__toolkit_this.#method),
        ),
        None => (quote!(), quote!(), quote!(#method)),
    }
}

/// The tool's `MethodTool`: everything about it but its body.
fn method_tool(p: &TokenStream, tool: &ToolFn) -> TokenStream {
    let name = &tool.name.value;
    let description = tool.description.as_deref().unwrap_or_default();
    let specs = tool.args.iter().map(|arg| param_spec(p, arg));
    let (_, schema_ty) = convert_output(p, &tool.output);
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
    quote! {
        #p::MethodTool {
            name: #name,
            description: #description,
            params: &[#(#specs),*],
            output_schema: #output_schema,
            options: #options,
        }
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

/// The tool's `ToolOptions`: the defaults with only the keys the user gave set on top, so a
/// field added to `ToolOptions` needs no change here until it gets a key.
fn options(p: &TokenStream, tool: &ToolFn) -> TokenStream {
    let attrs = &tool.attrs;
    let some = |value: TokenStream| quote!(#p::std::option::Option::Some(#value));
    // Unsuffixed, as the user wrote them: the field's type decides.
    let number = |n: usize| some(Literal::usize_unsuffixed(n).into_token_stream());
    let mut settings = Vec::new();
    if attrs.strict {
        settings.push((quote!(strict), quote!(true)));
    }
    if attrs.blocking.is_some() {
        settings.push((quote!(blocking), quote!(true)));
    }
    if attrs.inline.is_some() {
        settings.push((quote!(inline), quote!(true)));
    }
    let annotations = [
        (quote!(read_only), attrs.read_only),
        (quote!(destructive), attrs.destructive),
        (quote!(idempotent), attrs.idempotent),
        (quote!(open_world), attrs.open_world),
    ];
    for (field, value) in annotations {
        if let Some(value) = value {
            settings.push((quote!(annotations.#field), some(quote!(#value))));
        }
    }
    if let Some(ms) = attrs.timeout_ms {
        let ms = Literal::u64_unsuffixed(ms);
        let duration = quote!(#p::std::time::Duration::from_millis(#ms));
        settings.push((quote!(timeout), some(duration)));
    }
    let limits = [
        (quote!(max_input_bytes), attrs.max_input_bytes),
        (quote!(max_output_bytes), attrs.max_output_bytes),
        (quote!(max_depth), attrs.max_depth),
    ];
    for (field, value) in limits {
        if let Some(n) = value {
            settings.push((field, number(n)));
        }
    }
    if settings.is_empty() {
        return quote!(<#p::ToolOptions as #p::std::default::Default>::default());
    }
    let (fields, values): (Vec<_>, Vec<_>) = settings.into_iter().unzip();
    quote! {{
        let mut __toolkit_options = <#p::ToolOptions as #p::std::default::Default>::default();
        #(__toolkit_options.#fields = #values;)*
        __toolkit_options
    }}
}
