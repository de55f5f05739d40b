//! Golden files: a value compared with a file under `tests/fixtures/`; `TOOLKIT_BLESS=1`
//! rewrites the file.
// Each test file that includes `common` uses its own part of it.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// Compares `actual` with the JSON file at `relative` (under `tests/fixtures/`).
pub fn assert_golden_json(relative: &str, actual: &Value) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(relative);
    if std::env::var_os("TOOLKIT_BLESS").is_some() {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create the fixture folder");
        }
        let pretty = serde_json::to_string_pretty(actual).expect("JSON");
        std::fs::write(&path, pretty + "\n").expect("write the golden file");
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "cannot read {} (TOOLKIT_BLESS=1 writes it): {err}",
            path.display()
        )
    });
    let expected: Value = serde_json::from_str(&text).expect("the golden file is JSON");
    assert_eq!(actual, &expected, "output differs from {}", path.display());
}
