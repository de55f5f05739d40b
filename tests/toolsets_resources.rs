//! `#[resource]` and `#[prompt]` methods beside `#[tool]`s in a `#[toolset]`: what the proxies
//! the toolset makes list, read and get, their completions, and the same through an MCP server
//! on loopback.

use std::sync::Arc;

use serde_json::{Map, Value};
use toolkit::completion::Completion;
use toolkit::mcp::{CompletionRef, HttpOptions, McpClient, McpServer, McpTransport};
use toolkit::prelude::*;
use toolkit::{Icon, RequestError, ResourceContents};

struct Library {
    books: Vec<(u32, &'static str)>,
}

#[toolset(name = "lib")]
impl Library {
    /// Find a book's id by its title
    #[tool(title = "Find a book")]
    fn find(&self, title: String) -> Option<u32> {
        self.books
            .iter()
            .find(|(_, t)| *t == title)
            .map(|(id, _)| *id)
    }

    /// When the library is open
    #[resource(
        uri = "library://hours",
        mime_type = "text/plain",
        title = "Opening hours",
        icon = "https://example.com/clock.svg"
    )]
    fn hours(&self) -> String {
        "9 to 17".to_owned()
    }

    /// The library's logo
    #[resource(uri = "library://logo.png", mime_type = "image/png", name = "logo")]
    async fn logo(&self) -> Vec<u8> {
        vec![0x89, b'P', b'N', b'G']
    }

    /// A book's summary
    #[resource(uri = "books://{id}/summary", mime_type = "application/json")]
    fn summary(&self, #[arg(complete = book_ids)] id: u32) -> Result<Value, String> {
        let (_, title) = self
            .books
            .iter()
            .find(|(book, _)| *book == id)
            .ok_or_else(|| format!("no book {id}"))?;
        Ok(json!({"id": id, "title": title}))
    }

    /// One page of a book
    #[resource(uri = "books://{id}/pages/{page}")]
    async fn page(
        &self,
        id: u32,
        #[arg(complete = ["1", "2", "10"])] page: u16,
    ) -> ResourceContents {
        ResourceContents {
            uri: format!("books://{id}/pages/{page}"),
            mime_type: Some("text/plain".to_owned()),
            text: Some(format!("page {page} of book {id}")),
            blob: None,
        }
    }

    fn book_ids(&self, typed: &str) -> Vec<String> {
        self.books
            .iter()
            .map(|(id, _)| id.to_string())
            .filter(|id| id.starts_with(typed))
            .collect()
    }

    async fn styles(&self, typed: &str) -> Vec<&'static str> {
        ["brief", "detailed", "playful"]
            .into_iter()
            .filter(|style| style.starts_with(typed))
            .collect()
    }

    /// Ask for a review of a book
    #[prompt(title = "Review a book", icon = ["https://example.com/a.png", "https://example.com/b.png"])]
    fn review(
        &self,
        #[arg(description = "The book's id", complete = book_ids)] id: u32,
        /// How to write it
        #[arg(complete = styles)]
        style: Option<String>,
    ) -> Result<String, String> {
        let (_, title) = self
            .books
            .iter()
            .find(|(book, _)| *book == id)
            .ok_or_else(|| format!("no book {id}"))?;
        Ok(format!(
            "Review {title} ({}).",
            style.as_deref().unwrap_or("any style")
        ))
    }

    /// Compare two books, with the logo
    #[prompt(name = "compare")]
    async fn compare_books(
        &self,
        first: u32,
        #[arg(default = 2)] second: u32,
    ) -> Vec<PromptMessage> {
        vec![
            PromptMessage::user(format!("Compare book {first} with book {second}.")),
            PromptMessage::user(Resource::text(
                format!("books://{first}/summary"),
                "application/json",
                "{}",
            )),
            PromptMessage::assistant(Image::png([1, 2, 3])),
        ]
    }
}

fn library() -> Arc<Library> {
    Arc::new(Library {
        books: vec![(1, "Dune"), (2, "Emma"), (12, "Ulysses")],
    })
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[tokio::test]
async fn fixed_resources_are_listed_with_their_definitions_and_read() {
    let resources = library().into_resources();
    let uris: Vec<_> = resources.iter().map(|r| r.uri().to_owned()).collect();
    assert_eq!(uris, ["library://hours", "library://logo.png"]);
    let hours = resources[0].definition();
    assert_eq!(hours.name, "hours");
    assert_eq!(hours.title.as_deref(), Some("Opening hours"));
    assert_eq!(
        hours.description.as_deref(),
        Some("When the library is open")
    );
    assert_eq!(hours.icons, [Icon::new("https://example.com/clock.svg")]);
    assert_eq!(resources[1].definition().name, "logo");
    assert!(resources[1].definition().icons.is_empty());

    let text = resources[0].read().await.unwrap();
    assert_eq!(text[0].text.as_deref(), Some("9 to 17"));
    assert_eq!(text[0].mime_type.as_deref(), Some("text/plain"));
    let blob = resources[1].read().await.unwrap();
    assert_eq!(blob[0].blob.as_deref(), Some("iVBORw=="));
    assert_eq!(blob[0].mime_type.as_deref(), Some("image/png"));
}

#[tokio::test]
async fn template_parameters_are_parsed_from_the_uri_into_their_types() {
    let templates = library().into_resource_templates();
    let written: Vec<_> = templates
        .iter()
        .map(|t| t.uri_template().to_string())
        .collect();
    assert_eq!(
        written,
        ["books://{id}/summary", "books://{id}/pages/{page}"]
    );

    let summary = templates[0].read("books://2/summary").await.unwrap();
    assert_eq!(summary[0].uri, "books://2/summary");
    assert_eq!(
        summary[0].text.as_deref(),
        Some(r#"{"id":2,"title":"Emma"}"#)
    );
    let page = templates[1].read("books://12/pages/7").await.unwrap();
    assert_eq!(page[0].text.as_deref(), Some("page 7 of book 12"));
}

#[tokio::test]
async fn a_parameter_that_does_not_parse_and_a_failing_method_are_errors() {
    let templates = library().into_resource_templates();
    let not_a_number = templates[0].read("books://two/summary").await.unwrap_err();
    assert!(
        matches!(&not_a_number, RequestError::InvalidParams { message } if message.starts_with("argument `id`")),
        "{not_a_number:?}"
    );
    let missing = templates[0].read("books://9/summary").await.unwrap_err();
    assert_eq!(missing.to_string(), "no book 9");
    let page_too_big = templates[1]
        .read("books://1/pages/70000")
        .await
        .unwrap_err();
    assert!(
        page_too_big.to_string().contains("`page`"),
        "{page_too_big}"
    );
}

#[tokio::test]
async fn prompts_list_their_arguments_and_fill_them_from_strings() {
    let prompts = library().into_prompts();
    let review = prompts[0].definition();
    assert_eq!(review.name, "review");
    assert_eq!(review.title.as_deref(), Some("Review a book"));
    assert_eq!(review.icons.len(), 2);
    let arguments: Vec<_> = review
        .arguments
        .iter()
        .map(|a| (a.name.as_str(), a.required, a.description.as_deref()))
        .collect();
    assert_eq!(
        arguments,
        [
            ("id", true, Some("The book's id")),
            ("style", false, Some("How to write it"))
        ]
    );

    let messages = prompts[0]
        .get(args(json!({"id": "1", "style": "brief"})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&messages).unwrap(),
        json!([{"role": "user", "content": {"type": "text", "text": "Review Dune (brief)."}}])
    );
    let no_style = prompts[0].get(args(json!({"id": "12"}))).await.unwrap();
    assert_eq!(
        serde_json::to_value(&no_style).unwrap()[0]["content"]["text"],
        "Review Ulysses (any style)."
    );
}

#[tokio::test]
async fn prompt_messages_embed_resources_and_images_and_defaults_fill_gaps() {
    let prompts = library().into_prompts();
    assert_eq!(prompts[1].name(), "compare");
    let second = &prompts[1].definition().arguments[1];
    assert!(!second.required, "a defaulted argument may be left out");
    let messages = prompts[1].get(args(json!({"first": "1"}))).await.unwrap();
    let json = serde_json::to_value(&messages).unwrap();
    assert_eq!(json[0]["content"]["text"], "Compare book 1 with book 2.");
    assert_eq!(json[1]["content"]["type"], "resource");
    assert_eq!(json[1]["content"]["resource"]["uri"], "books://1/summary");
    assert_eq!(json[2]["role"], "assistant");
    assert_eq!(json[2]["content"]["type"], "image");
}

#[tokio::test]
async fn prompt_argument_mistakes_are_errors_naming_the_argument() {
    let prompts = library().into_prompts();
    let missing = prompts[0].get(Map::new()).await.unwrap_err();
    assert!(matches!(&missing, RequestError::MissingArgument { name } if name == "id"));
    let bad = prompts[0]
        .get(args(json!({"id": "one"})))
        .await
        .unwrap_err();
    assert!(bad.to_string().contains("argument `id`"), "{bad}");
    let failed = prompts[0].get(args(json!({"id": "5"}))).await.unwrap_err();
    assert_eq!(failed.to_string(), "no book 5");
}

#[tokio::test]
async fn completion_comes_from_a_list_or_a_method_sync_or_async() {
    let library = library();
    let templates = Arc::clone(&library).into_resource_templates();
    let prompts = library.into_prompts();
    let values = |completion: Completion| completion.values;

    let ids = templates[0].completer("id").expect("id completes");
    assert_eq!(values(ids.complete("1", Map::new()).await), ["1", "12"]);
    let pages = templates[1].completer("page").expect("page completes");
    assert_eq!(values(pages.complete("1", Map::new()).await), ["1", "10"]);
    assert!(templates[1].completer("id").is_none());

    let style = prompts[0].completer("style").expect("style completes");
    assert_eq!(values(style.complete("b", Map::new()).await), ["brief"]);
    let id = prompts[0].completer("id").expect("id completes");
    assert_eq!(values(id.complete("", Map::new()).await), ["1", "2", "12"]);
}

#[tokio::test]
async fn an_mcp_client_reads_gets_and_completes_them_through_the_server_on_loopback() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = McpServer::from_toolset(library());
    let serving = tokio::spawn(server.serve_http(listener, HttpOptions::default(), async {
        let _ = stopped.await;
    }));
    let client = McpClient::connect(McpTransport::http(url))
        .await
        .expect("connect");

    let tools = client.tools();
    assert_eq!(tools[0].name(), "lib_find");
    assert_eq!(tools[0].definition().title.as_deref(), Some("Find a book"));
    let resources = client.list_resources().await.expect("resources/list");
    assert_eq!(resources.len(), 2);
    let templates = client
        .list_resource_templates()
        .await
        .expect("templates/list");
    assert_eq!(templates.len(), 2);
    let summary = client
        .read_resource("books://1/summary")
        .await
        .expect("read");
    assert_eq!(
        summary[0].text.as_deref(),
        Some(r#"{"id":1,"title":"Dune"}"#)
    );
    let prompt = client
        .get_prompt("review", args(json!({"id": "2"})))
        .await
        .expect("prompts/get");
    assert_eq!(
        serde_json::to_value(&prompt).unwrap()[0]["content"]["text"],
        "Review Emma (any style)."
    );
    let completed = client
        .complete(
            CompletionRef::Prompt("review".into()),
            "style",
            "d",
            Map::new(),
        )
        .await
        .expect("completion/complete");
    assert_eq!(completed.values, ["detailed"]);
    let unknown = client.read_resource("books://8/summary").await.unwrap_err();
    assert!(unknown.to_string().contains("no book 8"), "{unknown}");

    let _ = stop.send(());
    let _ = serving.await;
}

/// A toolset of resources and prompts only, with borrowed and raw-named parameters.
#[derive(Default)]
struct Notes;

#[toolset]
impl Notes {
    /// A note by kind
    #[resource(uri = "notes://{type}/{name}")]
    fn note(&self, r#type: String, name: &str) -> String {
        format!("{type} note {name}")
    }

    /// A note file by its path under the notes' root
    #[resource(uri = "notes:///files/{+path}")]
    fn file(&self, path: String) -> String {
        format!("file {path}")
    }

    /// Repeat a text
    #[prompt]
    async fn echo(&self, text: &str, #[arg(default)] times: usize) -> String {
        text.repeat(times.max(1))
    }

    /// Greet someone
    #[prompt]
    fn greet(
        &self,
        #[arg(name = "for", complete = ["Ada", "Alan"])] recipient: String,
        #[arg(name = "with-title", default)] with_title: bool,
    ) -> String {
        let title = if with_title { "Dr. " } else { "" };
        format!("Hello {title}{recipient}")
    }
}

#[tokio::test]
async fn raw_and_borrowed_parameters_are_filled_and_a_toolset_may_have_no_tools() {
    let notes = Arc::new(Notes);
    assert!(Arc::clone(&notes).into_tools().is_empty());
    assert!(Arc::clone(&notes).into_resources().is_empty());
    let templates = Arc::clone(&notes).into_resource_templates();
    let read = templates[0].read("notes://todo/milk").await.unwrap();
    assert_eq!(read[0].text.as_deref(), Some("todo note milk"));
    let prompts = notes.into_prompts();
    let once = prompts[0].get(args(json!({"text": "hi"}))).await.unwrap();
    assert_eq!(
        serde_json::to_value(&once).unwrap()[0]["content"]["text"],
        "hi"
    );
    let twice = prompts[0]
        .get(args(json!({"text": "hi", "times": "2"})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&twice).unwrap()[0]["content"]["text"],
        "hihi"
    );
}

#[tokio::test]
async fn a_path_parameter_of_a_resource_method_takes_slashes_but_never_climbs() {
    let templates = Arc::new(Notes).into_resource_templates();
    assert_eq!(templates[1].uri_template().params(), ["path"]);
    let read = templates[1]
        .read("notes:///files/2026/./todo.md")
        .await
        .unwrap();
    assert_eq!(read[0].text.as_deref(), Some("file 2026/todo.md"));
    let err = templates[1]
        .read("notes:///files/2026/..%2F..%2F..%2Fetc/passwd")
        .await
        .unwrap_err();
    assert_eq!(err.code(), -32602);
    assert_eq!(
        err.to_string(),
        "Invalid params: template parameter `path` climbs above its root (`..`)"
    );
    let err = templates[0]
        .read("notes://todo/..%2Fsecret")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Invalid params: template parameter `name` may not contain `/` (a template takes a \
         path as `{+name}`)"
    );
}

#[tokio::test]
async fn a_prompt_argument_is_renamed_with_arg_name_in_its_definition_its_reads_and_completion() {
    let prompts = Arc::new(Notes).into_prompts();
    let greet = &prompts[1];
    let names: Vec<(&str, bool)> = greet
        .definition()
        .arguments
        .iter()
        .map(|arg| (arg.name.as_str(), arg.required))
        .collect();
    assert_eq!(names, [("for", true), ("with-title", false)]);
    let got = greet
        .get(args(json!({"for": "Ada", "with-title": "true"})))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&got).unwrap()[0]["content"]["text"],
        "Hello Dr. Ada"
    );
    let err = greet
        .get(args(json!({"recipient": "Ada"})))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "Missing required argument: for");
    assert!(greet.completer("for").is_some());
    assert!(greet.completer("recipient").is_none());
}
