//! Running a program to completion with a deadline: both outputs captured up to a limit, and
//! the child killed when the deadline passes. Nothing here knows about `gh`.

use std::io::{self, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How a finished child exited and what it printed.
pub(super) struct Finished {
    pub(super) status: ExitStatus,
    /// Stdout, up to its limit.
    pub(super) stdout: Vec<u8>,
    /// Whether the child printed more than the limit on stdout.
    pub(super) stdout_overflowed: bool,
    /// Stderr, up to its limit.
    pub(super) stderr: Vec<u8>,
}

/// How much of each output is kept.
#[derive(Debug, Clone, Copy)]
pub(super) struct OutputLimits {
    pub(super) stdout: usize,
    pub(super) stderr: usize,
}

/// Runs `command` with stdin closed and both outputs captured, and waits for it up to
/// `timeout`. `Ok(None)` means it ran past the deadline and was killed; an error means it could
/// not be started or waited for.
pub(super) fn run_with_deadline(
    command: &mut Command,
    timeout: Duration,
    limits: OutputLimits,
) -> io::Result<Option<Finished>> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Both pipes are drained on their own threads so a chatty child never blocks on a full
    // pipe while we wait for it to exit.
    let stdout = child.stdout.take().map(|pipe| drain(pipe, limits.stdout));
    let stderr = child.stderr.take().map(|pipe| drain(pipe, limits.stderr));
    let Some(status) = wait_until(&mut child, Instant::now() + timeout)? else {
        return Ok(None);
    };
    let (stdout, stdout_overflowed) = collect(stdout);
    let (stderr, _) = collect(stderr);
    Ok(Some(Finished {
        status,
        stdout,
        stdout_overflowed,
        stderr,
    }))
}

/// Polls the child until it exits or the deadline passes; at the deadline it is killed and
/// reaped, and the result is `None`.
fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            // The child may exit between try_wait and kill; either way it is gone after wait.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Reads a pipe to its end, keeping at most `limit` bytes; the flag says whether more came.
fn drain(mut pipe: impl Read + Send + 'static, limit: usize) -> JoinHandle<(Vec<u8>, bool)> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut overflowed = false;
        let mut buffer = [0u8; 8192];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    let room = limit.saturating_sub(kept.len());
                    overflowed |= n > room;
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        (kept, overflowed)
    })
}

fn collect(reader: Option<JoinHandle<(Vec<u8>, bool)>>) -> (Vec<u8>, bool) {
    reader
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default()
}
