//! A fake `gh` (tests/fixtures/fake_gh.py) in a directory of its own: the files it answers from,
//! the toolset that runs it, and the record of every run.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use toolkit::builtin::GithubCliToolset;
use toolkit::prelude::*;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A directory holding the fake, named `gh`, and the files it answers from.
pub struct FakeGh {
    pub dir: PathBuf,
}

impl FakeGh {
    /// A fresh fake for one test, in a directory of its own under `group`.
    pub fn new(group: &str, test: &str) -> FakeGh {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(group)
            .join(test);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let program = dir.join("gh");
        std::fs::copy(fixtures().join("fake_gh.py"), &program).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        FakeGh { dir }
    }

    pub fn answering(self, canned: &str) -> FakeGh {
        let json = std::fs::read_to_string(fixtures().join("builtin/gh").join(canned)).unwrap();
        self.set("stdout", &json)
    }

    pub fn set(self, file: &str, contents: &str) -> FakeGh {
        std::fs::write(self.dir.join(file), contents).unwrap();
        self
    }

    pub fn program(&self) -> PathBuf {
        self.dir.join("gh")
    }

    pub fn tools(&self) -> Vec<ToolProxy> {
        self.tools_of(GithubCliToolset::new())
    }

    pub fn tools_of(&self, toolset: GithubCliToolset) -> Vec<ToolProxy> {
        Arc::new(toolset.with_program(self.program())).into_tools()
    }

    pub fn call(&self, name: &str, args: Value) -> Value {
        let tools = self.tools();
        let tool = tools.iter().find(|t| t.name() == name).unwrap();
        tool.dynamic_call(args)
    }

    /// Every run's record: `{"argv": [...], "GH_REPO": ..., "GH_PROMPT_DISABLED": ...}`.
    pub fn runs(&self) -> Vec<Value> {
        match std::fs::read_to_string(self.dir.join("argv.jsonl")) {
            Ok(log) => log
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    pub fn only_argv(&self) -> Value {
        let runs = self.runs();
        assert_eq!(runs.len(), 1, "expected one gh run, got {runs:?}");
        runs[0]["argv"].clone()
    }

    /// The tool `name` of `toolset`, running the fake.
    pub fn tool(&self, toolset: GithubCliToolset, name: &str) -> ToolProxy {
        Arc::new(toolset.with_program(self.dir.join("gh")))
            .into_tools()
            .into_iter()
            .find(|t| t.name() == name)
            .unwrap()
    }

    pub fn exists(&self, file: &str) -> bool {
        self.dir.join(file).exists()
    }

    /// The background child's pid, once it has written it.
    pub fn background_pid(&self) -> String {
        let path = self.dir.join("background.pid");
        for _ in 0..200 {
            if let Ok(pid) = std::fs::read_to_string(&path)
                && !pid.is_empty()
            {
                return pid;
            }
            thread::sleep(Duration::from_millis(10));
        }
        panic!("the background child wrote no pid");
    }
}
