//! Where a call comes from, as the context of a tool that takes one needs it.

use crate::context::Data;

/// Where a call comes from, for the context of a tool that takes one: the call's id and the
/// caller's data (a toolbox's), under the scope's own.
#[derive(Clone, Copy)]
pub(crate) struct CallOrigin<'a> {
    pub(crate) call_id: Option<&'a str>,
    pub(crate) data: &'a Data,
}

impl CallOrigin<'_> {
    /// A call made on a proxy itself: no id, no data.
    pub(crate) fn direct() -> Self {
        CallOrigin {
            call_id: None,
            data: Data::none(),
        }
    }
}
