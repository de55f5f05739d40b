//! A crate that names toolkit `tk` (a renamed dependency): generated code finds the library only
//! through `crate = "tk"`, since `::toolkit` does not exist here.

use tk::prelude::*;

/// Tools whose macros were told where toolkit is.
#[derive(Default)]
pub struct CatalogToolset;

#[toolset(crate = "tk")]
impl CatalogToolset {
    /// Look up an item
    #[tool]
    fn lookup(&self, id: String) -> String {
        format!("item {id}")
    }
}

/// A free function tool says so too.
#[tool(crate = "tk")]
pub fn shout(text: String) -> String {
    text.to_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_of_a_renamed_dependency_are_generated_and_called() {
        let tools = CatalogToolset::to_tools();
        assert_eq!(tools[0].name(), "catalog_lookup");
        assert_eq!(tools[0].dynamic_call(json!({"id": "7"})), json!("item 7"));
        assert_eq!(
            shout_tool().dynamic_call(json!({"text": "hi"})),
            json!("HI")
        );
    }
}
