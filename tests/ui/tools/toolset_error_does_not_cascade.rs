// A toolset with a mistake still implements `Toolset` (with no tools), so the code that uses it
// adds no errors of its own: the build reports only the mistake.
use toolkit::prelude::*;

#[derive(Default)]
struct Catalog;

#[toolset]
impl Catalog {
    #[tool]
    fn lookup(&self, id: String) -> String {
        id
    }
}

fn main() {
    let tools: Vec<ToolProxy> = Catalog::to_tools();
    let names: &[&str] = Catalog::TOOL_NAMES;
    let _ = (tools, names, Catalog::NAME);
    let _ = Toolbox::builder().toolset::<Catalog>().build();
}
