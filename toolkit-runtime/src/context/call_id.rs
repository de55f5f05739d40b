//! A call's id as its context keeps it.

/// A call's id, kept inline when it is short, as model providers' ids are (`call_...`,
/// `toolu_...`): copying it into the context then allocates nothing.
pub(super) enum CallId {
    None,
    Inline {
        len: usize,
        bytes: [u8; CallId::INLINE],
    },
    Heap(Box<str>),
}

impl CallId {
    const INLINE: usize = 48;

    pub(super) fn new(id: Option<&str>) -> Self {
        match id {
            None => CallId::None,
            Some(id) if id.len() <= Self::INLINE => {
                let mut bytes = [0; Self::INLINE];
                bytes[..id.len()].copy_from_slice(id.as_bytes());
                CallId::Inline {
                    len: id.len(),
                    bytes,
                }
            }
            Some(id) => CallId::Heap(id.into()),
        }
    }

    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            CallId::None => None,
            // The bytes are a copy of a `str`'s: always UTF-8.
            CallId::Inline { len, bytes } => std::str::from_utf8(&bytes[..*len]).ok(),
            CallId::Heap(id) => Some(id),
        }
    }
}
