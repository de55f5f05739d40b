//! Collects errors so a user sees every mistake in one build (serde_derive's `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use quote::ToTokens;

/// The errors of one expansion. `check()` must be called before it is dropped: as in serde, a
/// `Ctxt` dropped unchecked panics, so a forgotten `check()` fails every build that reaches it
/// instead of losing the user's errors silently.
pub(crate) struct Ctxt {
    /// `None` once `check()` has taken them.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Default for Ctxt {
    fn default() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }
}

impl Ctxt {
    pub(crate) fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, message: M) {
        self.syn_error(syn::Error::new_spanned(tokens, message));
    }

    pub(crate) fn error_at<M: Display>(&self, span: proc_macro2::Span, message: M) {
        self.syn_error(syn::Error::new(span, message));
    }

    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            // `check()` consumes the context, so no error can arrive after it.
            .expect("an error was reported after Ctxt::check")
            .push(error);
    }

    /// All errors combined into one, or `Ok` if there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // While unwinding, a second panic would abort and hide the first.
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("Ctxt dropped without check(): its errors would be lost");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_context_combines_every_error() {
        let cx = Ctxt::default();
        cx.error_at(proc_macro2::Span::call_site(), "first");
        cx.error_at(proc_macro2::Span::call_site(), "second");
        let combined = cx.check().unwrap_err();
        assert_eq!(combined.into_iter().count(), 2);
    }

    #[test]
    #[should_panic(expected = "Ctxt dropped without check()")]
    fn context_dropped_without_check_panics() {
        let cx = Ctxt::default();
        cx.error_at(proc_macro2::Span::call_site(), "lost");
        drop(cx);
    }
}
