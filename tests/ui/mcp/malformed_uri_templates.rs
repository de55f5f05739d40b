use toolkit::prelude::*;

#[derive(Default)]
struct Files;

#[toolset]
impl Files {
    #[resource(uri = "files://{path")]
    fn unclosed(&self, path: String) -> String {
        path
    }

    #[resource(uri = "files://{}/x")]
    fn empty(&self) -> String {
        String::new()
    }

    #[resource(uri = "files://{?q}")]
    fn query(&self, q: String) -> String {
        q
    }

    #[resource(uri = "files://{a}/{a}")]
    fn twice(&self, a: String) -> String {
        a
    }

    #[resource(uri = "/no/scheme")]
    fn relative(&self) -> String {
        String::new()
    }

    #[resource(uri = "")]
    fn nothing(&self) -> String {
        String::new()
    }
}

fn main() {}
