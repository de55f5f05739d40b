//! A URL's `user:password@`, which the model clients and the MCP client must never print.

#[cfg(any(feature = "mcp", test))]
use std::borrow::Cow;

/// Where a URL's `user:password@` lies: from after `://` to the `@` before the host.
pub(crate) fn userinfo_span(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let authority_end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |end| start + end);
    let at = url[start..authority_end].rfind('@')? + start;
    Some((start, at))
}

/// `url` with its `user:password@` shown as `***@`, for `Debug`, `Display` and messages.
#[cfg(any(feature = "mcp", test))]
pub(crate) fn hide_userinfo(url: &str) -> Cow<'_, str> {
    match userinfo_span(url) {
        Some((start, at)) => Cow::Owned(format!("{}***{}", &url[..start], &url[at..])),
        None => Cow::Borrowed(url),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_userinfo_before_the_host_is_hidden() {
        assert_eq!(
            hide_userinfo("http://alice:secret@127.0.0.1:9/mcp?q=a@b"),
            "http://***@127.0.0.1:9/mcp?q=a@b"
        );
        assert_eq!(
            hide_userinfo("https://example.com/v1?q=a@b"),
            "https://example.com/v1?q=a@b"
        );
        assert_eq!(hide_userinfo("not a url"), "not a url");
    }
}
