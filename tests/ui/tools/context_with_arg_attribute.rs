use toolkit::prelude::*;

/// Run a job
#[tool]
fn run(#[arg(description = "the call's context")] ctx: &ToolContext, name: String) -> String {
    let _ = ctx;
    name
}

fn main() {}
