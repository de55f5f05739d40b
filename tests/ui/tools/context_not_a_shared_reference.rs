use toolkit::prelude::*;

#[derive(Default)]
struct Jobs;

#[toolset]
impl Jobs {
    /// Run a job, taking the context by value
    #[tool]
    fn owned(&self, ctx: ToolContext) -> bool {
        ctx.is_cancelled()
    }

    /// Run a job, taking the context mutably
    #[tool]
    async fn mutable(&self, ctx: &mut ToolContext) -> bool {
        ctx.is_cancelled()
    }

    /// Run a job, the context wrapped
    #[tool]
    fn wrapped(&self, ctx: Option<&ToolContext>) -> bool {
        ctx.is_some()
    }
}

fn main() {}
