//! `#[derive(AgentState)]`: `ast` reads the struct and its `#[state(...)]` attributes into our
//! model, `expand` writes the `AgentState` impl and the keys struct the toolset macro checks its
//! wiring against.

mod ast;
mod expand;

use proc_macro2::TokenStream;

use crate::ctxt::Ctxt;

pub(crate) fn derive(input: syn::DeriveInput) -> TokenStream {
    let cx = Ctxt::default();
    let state = ast::State::from_input(&cx, &input);
    match (cx.check(), state) {
        (Ok(()), Some(state)) => expand::state(&state),
        (Err(err), _) => err.to_compile_error(),
        // `from_input` gives no state only after reporting why.
        (Ok(()), None) => TokenStream::new(),
    }
}
