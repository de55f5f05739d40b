//! `examples/approval.rs` run as a user would: a run pauses, its token is saved, and a second
//! process resumes it with a person's decisions. Its results come in the model's call order,
//! the denied call's in its place.

mod common;

use std::process::Command;

#[test]
fn the_approval_example_pauses_saves_and_resumes_in_a_second_process() {
    let example = common::examples::build_example("approval", false);
    let output = Command::new(example).output().expect("the example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "[1] paused at step 1 for approval of:",
            "[1]   files_delete {\"path\":\"draft.txt\"}",
            "[1]   files_delete {\"path\":\"thesis.txt\"}",
            "[1] saved the token (2 messages) to a file",
            "[2] files_delete {\"path\":\"draft.txt\"}: Approve",
            "[2] files_delete {\"path\":\"thesis.txt\"}: Deny(\"the thesis stays\")",
            "[2]   files_delete = deleted draft.txt",
            "[2]   files_delete = Error: the call to files_delete was refused: a person denied \
             it: the thesis stays",
            "[2]   files_read = notes.txt: 3 pages of notes",
            "[2] answer: I deleted draft.txt and kept thesis.txt, as you asked; notes.txt has 3 \
             pages.",
        ]
    );
}
