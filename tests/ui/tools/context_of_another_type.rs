use toolkit::prelude::*;

/// Another framework's context, as a user coming from it might write.
pub struct RequestContext;

#[derive(Default)]
struct Jobs;

#[toolset]
impl Jobs {
    /// Run a job
    #[tool]
    fn run(&self, ctx: &RequestContext, name: String) -> String {
        let _ = ctx;
        name
    }
}

fn main() {}
