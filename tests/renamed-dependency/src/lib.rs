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

    /// An item's record
    #[resource(uri = "catalog://{id}", mime_type = "text/plain")]
    fn record(&self, #[arg(complete = ["7", "8"])] id: u32) -> String {
        format!("record {id}")
    }

    /// Describe an item
    #[prompt]
    async fn describe(&self, id: u32) -> String {
        format!("Describe item {id}.")
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

    #[test]
    fn resources_and_prompts_of_a_renamed_dependency_are_generated() {
        let catalog = std::sync::Arc::new(CatalogToolset);
        let templates = std::sync::Arc::clone(&catalog).into_resource_templates();
        assert_eq!(templates[0].uri_template().to_string(), "catalog://{id}");
        assert!(templates[0].completer("id").is_some());
        assert_eq!(catalog.into_prompts()[0].name(), "describe");
    }
}
