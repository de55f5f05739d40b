//! The project's examples, built as `cargo test --workspace` builds them and run as a user would.

use std::path::PathBuf;
use std::process::Command;

use super::mcp::{root, run};

/// The named example, built once with the workspace's features; returns its path.
pub fn build_example(name: &str, release: bool) -> String {
    // `--workspace` resolves features as `cargo test --workspace` does, so the example that run
    // already built is reused; `-p toolkit-suite` would build toolkit once more.
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(root())
        .args(["build", "--quiet", "--workspace", "--example", name]);
    if release {
        command.arg("--release");
    }
    run(&mut command);
    target_dir()
        .join(if release { "release" } else { "debug" })
        .join("examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}
