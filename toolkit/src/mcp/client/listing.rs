//! Bounds on what a server's `tools/list` may cost: tools and bytes per listing, counted as the
//! pages arrive, and bytes per schema, measured before it is inlined.
//!
//! Each page is bounded by the message bound, and the pages by [`MAX_TOOL_PAGES`]; without
//! these, 100 pages of 10,000 tools held 1.74 GB, and one tool whose schema had 100,000 flat
//! `$defs` (7 MB) took 593 MB to inline.

use serde::Serialize;

/// The most pages of `tools/list` read: a server that always answers with another cursor
/// would otherwise be listed forever.
pub(super) const MAX_TOOL_PAGES: usize = 100;

/// The most tools one listing may hold unless told otherwise.
pub const DEFAULT_MAX_TOOLS: usize = 10_000;

/// The most bytes (as compact JSON) the tools of one listing may take unless told otherwise:
/// as much as one message may hold. Parsed, tools take about 15 times their JSON (32 MiB of
/// tools held 480 MB), so this bounds a listing's memory near 290 MB.
pub const DEFAULT_MAX_LISTING_BYTES: usize = 16 << 20;

/// The largest input or output schema of one tool (as compact JSON) unless told otherwise.
pub const DEFAULT_MAX_SCHEMA_BYTES: usize = 1 << 20;

/// What one listing may hold.
#[derive(Debug, Clone, Copy)]
pub(super) struct ListingLimits {
    pub(super) max_tools: usize,
    pub(super) max_bytes: usize,
    pub(super) max_schema_bytes: usize,
}

impl Default for ListingLimits {
    fn default() -> Self {
        ListingLimits {
            max_tools: DEFAULT_MAX_TOOLS,
            max_bytes: DEFAULT_MAX_LISTING_BYTES,
            max_schema_bytes: DEFAULT_MAX_SCHEMA_BYTES,
        }
    }
}

/// Why a listing was refused.
#[derive(Debug, thiserror::Error)]
pub(super) enum ListingError {
    #[error("the server listed more than {limit} tools (`max_tools`)")]
    TooManyTools { limit: usize },
    #[error("the server's tools take more than {limit} bytes (`max_listing_bytes`)")]
    TooManyBytes { limit: usize },
    #[error("the server was still paginating after {MAX_TOOL_PAGES} pages of tools")]
    Endless,
}

/// A running count of one listing's tools and bytes.
#[derive(Debug, Default)]
pub(super) struct Tally {
    tools: usize,
    bytes: usize,
}

impl Tally {
    /// Adds a page's tools, failing once the listing is over `limits`.
    pub(super) fn add(
        &mut self,
        tools: &[rmcp::model::Tool],
        limits: &ListingLimits,
    ) -> Result<(), ListingError> {
        self.tools += tools.len();
        if self.tools > limits.max_tools {
            return Err(ListingError::TooManyTools {
                limit: limits.max_tools,
            });
        }
        let room = limits.max_bytes - self.bytes.min(limits.max_bytes);
        match json_len_within(tools, room) {
            Some(bytes) => {
                self.bytes += bytes;
                Ok(())
            }
            None => Err(ListingError::TooManyBytes {
                limit: limits.max_bytes,
            }),
        }
    }
}

/// The length of `value` as compact JSON if it is at most `max`; counted without building the
/// text, and abandoned as soon as it passes `max`.
pub(super) fn json_len_within<T: Serialize + ?Sized>(value: &T, max: usize) -> Option<usize> {
    struct Count {
        bytes: usize,
        max: usize,
    }
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes += buf.len();
            if self.bytes > self.max {
                return Err(std::io::Error::other("over the bound"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count { bytes: 0, max };
    serde_json::to_writer(&mut count, value).ok()?;
    Some(count.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_length_is_counted_up_to_the_bound_only() {
        let value = json!({"a": [1, 2, 3]});
        assert_eq!(json_len_within(&value, 100), Some(13));
        assert_eq!(json_len_within(&value, 13), Some(13));
        assert_eq!(json_len_within(&value, 12), None);
    }
}
