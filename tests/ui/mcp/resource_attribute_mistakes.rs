use toolkit::prelude::*;

#[derive(Default)]
struct Docs;

#[toolset]
impl Docs {
    /// No URI
    #[resource(mime_type = "text/plain")]
    fn missing(&self) -> String {
        String::new()
    }

    /// A media type without a subtype, and an empty title
    #[resource(uri = "docs://a", mime_type = "text", title = "")]
    fn bad_mime(&self) -> String {
        String::new()
    }

    /// Same URI twice
    #[resource(uri = "docs://a")]
    fn again(&self) -> String {
        String::new()
    }

    /// A tool key on a resource
    #[resource(uri = "docs://b", scopes = ["read"])]
    fn scoped(&self) -> String {
        String::new()
    }

    /// An icon a client should not load
    #[resource(uri = "docs://c", icon = "http://example.com/c.png")]
    fn insecure_icon(&self) -> String {
        String::new()
    }

    /// A receiver by value and a context
    #[resource(uri = "docs://{id}")]
    fn owned(self, id: u32, ctx: &ToolContext) -> String {
        let _ = ctx;
        id.to_string()
    }

    /// A template parameter with a default
    #[resource(uri = "docs://x/{id}")]
    fn defaulted(&self, #[arg(default = 3)] id: u32) -> String {
        id.to_string()
    }
}

fn main() {}
