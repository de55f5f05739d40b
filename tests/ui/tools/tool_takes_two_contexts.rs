use toolkit::prelude::*;

#[derive(Default)]
struct Jobs;

#[toolset]
impl Jobs {
    /// Run a job
    #[tool]
    fn run(&self, ctx: &ToolContext, name: String, again: &ToolContext) -> String {
        let _ = (ctx, again);
        name
    }
}

fn main() {}
