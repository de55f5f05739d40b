//! What a `#[toolset]` with `#[resource]` and `#[prompt]` methods adds to its `Toolset` impl:
//! `into_resources`, `into_resource_templates` and `into_prompts`, each proxy calling its method
//! on the shared instance with the parameters parsed from the strings the client sent
//! (`__private::arg`), and the completers of `#[arg(complete = ...)]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;

use crate::ast::{Arg, Method, PromptFn, ResourceFn, Toolset};
use crate::attr::{Completion, Spanned};
use crate::params::{binding, decoded_type, default_expr};
use crate::types;

/// The `Toolset` methods to override, and the functions their bodies check return types with;
/// nothing for a toolset of tools only.
pub(crate) fn overrides(p: &TokenStream, toolset: &Toolset) -> (TokenStream, TokenStream) {
    if toolset.resources.is_empty() && toolset.prompts.is_empty() {
        return (TokenStream::new(), TokenStream::new());
    }
    let (templates, fixed): (Vec<_>, Vec<_>) =
        toolset.resources.iter().partition(|r| r.is_template());
    let arc = quote!(#p::std::sync::Arc<Self>);
    let mut methods = TokenStream::new();
    if !fixed.is_empty() {
        let fixed = fixed.iter().map(|r| fixed_resource(p, r));
        methods.extend(quote! {
            fn into_resources(self: #arc) -> #p::std::vec::Vec<#p::ResourceProxy> {
                #p::std::vec![#(#fixed),*]
            }
        });
    }
    if !templates.is_empty() {
        let templates = templates.iter().map(|r| template(p, toolset, r));
        methods.extend(quote! {
            fn into_resource_templates(self: #arc) -> #p::std::vec::Vec<#p::ResourceTemplateProxy> {
                let mut __toolkit_templates = #p::std::vec::Vec::new();
                #(__toolkit_templates.extend(#templates);)*
                __toolkit_templates
            }
        });
    }
    if !toolset.prompts.is_empty() {
        let prompts = toolset.prompts.iter().map(|r| prompt(p, toolset, r));
        methods.extend(quote! {
            fn into_prompts(self: #arc) -> #p::std::vec::Vec<#p::PromptProxy> {
                #p::std::vec![#(#prompts),*]
            }
        });
    }
    (methods, return_checks(p, toolset))
}

/// Where a method's return type meets its bound, once, at the user's type: past them the
/// proxies see types that fit whatever the method returns, so an unfit one is not reported a
/// second time at the attribute.
fn return_checks(p: &TokenStream, toolset: &Toolset) -> TokenStream {
    let resource_checks = quote! {
        #[doc(hidden)]
        struct __ToolkitResource(
            #p::std::boxed::Box<
                dyn #p::std::ops::FnOnce(
                    &str,
                    #p::std::option::Option<&str>,
                ) -> #p::std::result::Result<
                    #p::std::vec::Vec<#p::ResourceContents>,
                    #p::RequestError,
                >,
            >,
        );
        #[diagnostic::do_not_recommend]
        impl #p::ResourceReturn for __ToolkitResource {
            fn into_contents(
                self,
                uri: &str,
                mime_type: #p::std::option::Option<&str>,
            ) -> #p::std::result::Result<#p::std::vec::Vec<#p::ResourceContents>, #p::RequestError> {
                (self.0)(uri, mime_type)
            }
        }
        #[doc(hidden)]
        fn __toolkit_resource_return<R: #p::ResourceReturn + 'static>(returned: R) -> __ToolkitResource {
            __ToolkitResource(#p::std::boxed::Box::new(move |uri, mime_type| {
                #p::ResourceReturn::into_contents(returned, uri, mime_type)
            }))
        }
    };
    let prompt_checks = quote! {
        #[doc(hidden)]
        struct __ToolkitPrompt(
            #p::std::result::Result<#p::std::vec::Vec<#p::PromptMessage>, #p::RequestError>,
        );
        #[diagnostic::do_not_recommend]
        impl #p::PromptReturn for __ToolkitPrompt {
            fn into_messages(
                self,
            ) -> #p::std::result::Result<#p::std::vec::Vec<#p::PromptMessage>, #p::RequestError> {
                self.0
            }
        }
        #[doc(hidden)]
        fn __toolkit_prompt_return<R: #p::PromptReturn>(returned: R) -> __ToolkitPrompt {
            __ToolkitPrompt(#p::PromptReturn::into_messages(returned))
        }
    };
    let resource_checks = (!toolset.resources.is_empty()).then_some(resource_checks);
    let prompt_checks = (!toolset.prompts.is_empty()).then_some(prompt_checks);
    quote!(#resource_checks #prompt_checks)
}

fn fixed_resource(p: &TokenStream, resource: &ResourceFn) -> TokenStream {
    let definition = {
        let (uri, name) = (&resource.uri.value, &resource.name);
        let setters = setters(p, resource);
        quote!(#p::ResourceDefinition::new(#uri, #name) #setters)
    };
    let body = body(
        p,
        &resource.method,
        "__toolkit_resource_return",
        Params::None,
    );
    let make = constructor(p, &resource.method, quote!(ResourceProxy));
    quote!(#make(#definition, #body))
}

fn template(p: &TokenStream, toolset: &Toolset, resource: &ResourceFn) -> TokenStream {
    let (uri, name) = (&resource.uri.value, &resource.name);
    let setters = setters(p, resource);
    let body = body(
        p,
        &resource.method,
        "__toolkit_resource_return",
        Params::Map,
    );
    let make = constructor(p, &resource.method, quote!(ResourceTemplateProxy));
    let completers = completers(p, toolset, &resource.method);
    quote! {
        #p::resource_template(#uri, #name, |__toolkit_definition| {
            #make(__toolkit_definition #setters, #body) #(#completers)*
        })
    }
}

fn prompt(p: &TokenStream, toolset: &Toolset, prompt: &PromptFn) -> TokenStream {
    let name = &prompt.name.value;
    let title = prompt.title.as_ref().map(|t| {
        let t = &t.value;
        quote!(.title(#t))
    });
    let description = prompt
        .description
        .as_ref()
        .map(|d| quote!(.description(#d)));
    let icons = icons(p, &prompt.icons);
    let arguments = prompt.method.args.iter().map(|arg| {
        let key = arg.wire_name();
        let kind = if is_optional(arg) {
            quote!(optional)
        } else {
            quote!(required)
        };
        let description = arg.description.as_ref().map(|d| quote!(.description(#d)));
        quote!(.argument(#p::PromptArgument::#kind(#key) #description))
    });
    let definition =
        quote!(#p::PromptDefinition::new(#name) #title #description #icons #(#arguments)*);
    let body = body(p, &prompt.method, "__toolkit_prompt_return", Params::Map);
    let make = constructor(p, &prompt.method, quote!(PromptProxy));
    let completers = completers(p, toolset, &prompt.method);
    quote!(#make(#definition, #body) #(#completers)*)
}

/// A prompt argument a client may leave out: an `Option<T>`, or one with a default.
fn is_optional(arg: &Arg) -> bool {
    arg.default.is_some() || types::is_option(&arg.ty)
}

/// `.icon(Icon::new(..))` for each icon.
fn icons(p: &TokenStream, icons: &[Spanned<String>]) -> TokenStream {
    let icons = icons.iter().map(|icon| &icon.value);
    quote!(#(.icon(#p::Icon::new(#icons)))*)
}

/// `.title(..)`, `.description(..)`, `.mime_type(..)` and icons of a resource's definition.
fn setters(p: &TokenStream, resource: &ResourceFn) -> TokenStream {
    let title = resource.title.as_ref().map(|t| {
        let t = &t.value;
        quote!(.title(#t))
    });
    let description = resource
        .description
        .as_ref()
        .map(|d| quote!(.description(#d)));
    let mime = resource.mime_type.as_ref().map(|m| {
        let m = &m.value;
        quote!(.mime_type(#m))
    });
    let icons = icons(p, &resource.icons);
    quote!(#title #description #mime #icons)
}

/// `Proxy::from_fn` or `Proxy::from_async_fn`, as the method is.
fn constructor(p: &TokenStream, method: &Method, proxy: TokenStream) -> TokenStream {
    if method.asyncness {
        quote!(#p::#proxy::from_async_fn)
    } else {
        quote!(#p::#proxy::from_fn)
    }
}

/// What a body is given: nothing (a fixed resource) or the parameters by name.
#[derive(Clone, Copy)]
enum Params {
    None,
    Map,
}

/// The closure that calls the method on a clone of the shared instance. With `Params::Map`,
/// it parses each parameter first and returns `Result<R, RequestError>`, so a parameter that
/// does not parse is an invalid-params error naming it.
fn body(p: &TokenStream, method: &Method, check: &str, params: Params) -> TokenStream {
    let ident = &method.ident;
    let arc = quote!(#p::std::sync::Arc);
    let map = format_ident!("__toolkit_params");
    let reads: Vec<_> = method.args.iter().map(|arg| read(p, arg, &map)).collect();
    let args = method.args.iter().map(|arg| {
        let bind = binding(arg);
        if types::is_str_ref(&arg.ty) {
            quote!(&#bind)
        } else {
            quote!(#bind)
        }
    });
    let wait = method.asyncness.then(|| quote!(.await));
    let output = &method.output;
    let check = format_ident!("{check}");
    let checked = if types::contains_impl_trait(output) {
        quote!(#check)
    } else {
        quote_spanned!(output.span()=> #check::<#output>)
    };
    let called = quote!(#checked(__toolkit_this.#ident(#(#args),*)#wait));
    let (input, result) = match params {
        Params::None => (quote!(), called),
        Params::Map => (
            quote!(#map: #p::serde_json::Map<#p::std::string::String, #p::serde_json::Value>),
            quote! {
                #(#reads)*
                #p::std::result::Result::Ok::<_, #p::RequestError>(#called)
            },
        ),
    };
    if method.asyncness {
        quote! {{
            let __toolkit_this = #arc::clone(&self);
            move |#input| {
                let __toolkit_this = #arc::clone(&__toolkit_this);
                async move { #result }
            }
        }}
    } else {
        quote! {{
            let __toolkit_this = #arc::clone(&self);
            move |#input| { #result }
        }}
    }
}

/// The statement that parses one parameter from the client's strings, or returns the error.
fn read(p: &TokenStream, arg: &Arg, map: &syn::Ident) -> TokenStream {
    let bind = binding(arg);
    let key = arg.wire_name();
    let ty = decoded_type(p, arg);
    let fail = quote!(#p::std::result::Result::Err(__toolkit_err) => return #p::std::result::Result::Err(__toolkit_err));
    match &arg.default {
        None => {
            let parse = quote_spanned!(arg.ty.span()=> #p::arg::<#ty>);
            quote! {
                let #bind: #ty = match #parse(&#map, #key) {
                    #p::std::result::Result::Ok(__toolkit_value) => __toolkit_value,
                    #fail,
                };
            }
        }
        Some(default) => {
            let parse = quote_spanned!(arg.ty.span()=> #p::arg::<#p::std::option::Option<#ty>>);
            let value = default_expr(p, arg, &ty, &default.value);
            quote! {
                let #bind: #ty = match #parse(&#map, #key) {
                    #p::std::result::Result::Ok(#p::std::option::Option::Some(__toolkit_value)) => __toolkit_value,
                    #p::std::result::Result::Ok(#p::std::option::Option::None) => #value,
                    #fail,
                };
            }
        }
    }
}

/// `.with_completer(name, completer)` for each parameter with `#[arg(complete = ...)]`.
fn completers(p: &TokenStream, toolset: &Toolset, method: &Method) -> Vec<TokenStream> {
    let arc = quote!(#p::std::sync::Arc);
    let map = quote!(#p::serde_json::Map<#p::std::string::String, #p::serde_json::Value>);
    method
        .args
        .iter()
        .filter_map(|arg| {
            let complete = arg.complete.as_ref()?;
            let key = arg.wire_name();
            let completer = match &complete.value {
                Completion::Values(values) => {
                    let values = values.iter().map(|v| &v.value);
                    quote!(#p::Completer::values([#(#values),*]))
                }
                Completion::Method(path) if is_async_method(toolset, path) => quote! {{
                    let __toolkit_this = #arc::clone(&self);
                    #p::Completer::from_async_fn(move |__toolkit_typed: #p::std::string::String, _: #map| {
                        let __toolkit_this = #arc::clone(&__toolkit_this);
                        async move { __toolkit_this.#path(&__toolkit_typed).await }
                    })
                }},
                Completion::Method(path) => quote! {{
                    let __toolkit_this = #arc::clone(&self);
                    #p::Completer::from_fn(move |__toolkit_typed: &str, _: &#map| {
                        __toolkit_this.#path(__toolkit_typed)
                    })
                }},
            };
            Some(quote!(.with_completer(#key, #completer)))
        })
        .collect()
}

/// Whether the completion method named `path` is an `async fn` of the impl block. One defined
/// elsewhere is taken as sync; rustc reports it if it is not.
fn is_async_method(toolset: &Toolset, path: &syn::Path) -> bool {
    toolset.item.items.iter().any(|item| match item {
        syn::ImplItem::Fn(f) => path.is_ident(&f.sig.ident) && f.sig.asyncness.is_some(),
        _ => false,
    })
}
