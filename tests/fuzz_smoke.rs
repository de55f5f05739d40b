//! The fuzz targets' smoke run: every seed in `fuzz/seeds/<target>/` through its target, in
//! process, with the targets' own invariants (see `fuzz/src/targets/`). AFL++ runs the same
//! targets for millions of inputs (`python3 fuzz/run afl <target>`); this keeps them compiling
//! and their seeds passing in CI, in a few seconds.

#[allow(dead_code)]
#[path = "../fuzz/src/targets/mod.rs"]
mod targets;

use std::path::PathBuf;

/// Replays every seed of `name`, and checks the target has seeds at all.
fn replay_seeds(name: &str) {
    let target = targets::target(name).unwrap_or_else(|| panic!("no fuzz target {name}"));
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(name);
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|err| panic!("{}: {err}", folder.display()))
        .map(|entry| entry.map(|e| e.path()).unwrap())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 8, "{name} has only {} seeds", seeds.len());
    for seed in seeds {
        let data = std::fs::read(&seed).unwrap();
        eprintln!("{name}: {}", seed.display());
        target(&data);
    }
}

#[test]
fn every_parse_seed_keeps_the_parse_invariants() {
    replay_seeds("parse");
}

#[test]
fn every_dynamic_call_seed_keeps_the_call_invariants() {
    replay_seeds("dynamic_call");
}

#[test]
fn every_coerce_seed_keeps_the_coercion_invariants() {
    replay_seeds("coerce");
}

#[test]
fn every_text_seed_keeps_the_text_toolset_invariants() {
    replay_seeds("text");
}

#[test]
fn every_mcp_server_seed_gets_one_answer_per_request() {
    replay_seeds("mcp_server");
}

#[test]
fn every_sse_seed_reads_the_same_in_any_chunking() {
    replay_seeds("sse");
}

#[test]
fn the_smoke_run_covers_every_target() {
    let names: Vec<&str> = targets::TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        [
            "parse",
            "dynamic_call",
            "coerce",
            "text",
            "mcp_server",
            "sse"
        ]
    );
}
