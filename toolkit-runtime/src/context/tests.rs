//! The context's cancellation, made lazily: the flag is the truth, and a token made before or
//! after the call ends follows it.

use super::{CallScope, CancellationToken, ToolContext};

#[test]
fn a_token_made_after_the_call_ended_is_cancelled_already() {
    let ctx = ToolContext::detached("late");
    assert!(!ctx.is_cancelled());
    ctx.cancel();
    assert!(ctx.is_cancelled());
    assert!(ctx.cancellation().is_cancelled());
}

#[test]
fn a_token_made_during_the_call_is_cancelled_when_it_ends() {
    let ctx = ToolContext::detached("early");
    let token = ctx.cancellation().clone();
    assert!(!token.is_cancelled());
    ctx.clone().cancel();
    assert!(token.is_cancelled() && ctx.is_cancelled());
}

#[test]
fn a_cancelled_scope_cancels_its_calls_with_or_without_a_token() {
    let parent = CancellationToken::new();
    let scope = CallScope::new().cancellation(parent.clone());
    let (without, with) = (
        scope.context_for("a", None),
        scope.context_for("b", Some("id")),
    );
    let token = with.cancellation().clone();
    parent.cancel();
    assert!(without.is_cancelled() && with.is_cancelled() && token.is_cancelled());
    assert_eq!(with.call_id(), Some("id"));
}

#[test]
fn a_long_call_id_is_kept_whole() {
    let id = "x".repeat(200);
    let ctx = CallScope::new().context_for("t", Some(&id));
    assert_eq!(ctx.call_id(), Some(id.as_str()));
    let short = CallScope::new().context_for("t", Some("call_é"));
    assert_eq!(short.call_id(), Some("call_é"));
}
