//! Running a program to completion with a deadline: both outputs captured up to a limit, and
//! the program and what it started killed when it exits or the deadline passes. Nothing here
//! knows about `gh`.

use std::io::{self, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
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

/// Runs `command` with stdin closed and both outputs captured, in a process group of its own,
/// and gives it until `timeout` to exit and close its outputs. `Ok(None)` means it ran past the
/// deadline and its group was killed; an error means it could not be started or waited for.
///
/// When the program exits, its group is killed too, so a background child it left behind can
/// neither keep running nor hold the pipes open. A descendant that left the group (`setsid`)
/// cannot be reached: the deadline still bounds the wait for its pipes, and the reader threads
/// are left to finish when it closes them.
pub(super) fn run_with_deadline(
    command: &mut Command,
    timeout: Duration,
    limits: OutputLimits,
) -> io::Result<Option<Finished>> {
    let deadline = Instant::now() + timeout;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    group::isolate(command);
    let mut child = command.spawn()?;
    // Both pipes are drained on their own threads so a chatty child never blocks on a full
    // pipe while we wait for it to exit.
    let stdout = child.stdout.take().map(|pipe| drain(pipe, limits.stdout));
    let stderr = child.stderr.take().map(|pipe| drain(pipe, limits.stderr));
    let Some(status) = wait_until(&mut child, deadline)? else {
        return Ok(None);
    };
    let Some((stdout, stdout_overflowed)) = collect(stdout, deadline) else {
        return Ok(None);
    };
    let Some((stderr, _)) = collect(stderr, deadline) else {
        return Ok(None);
    };
    Ok(Some(Finished {
        status,
        stdout,
        stdout_overflowed,
        stderr,
    }))
}

/// Polls the child until it exits or the deadline passes; either way its process group is
/// killed. At the deadline the child itself is killed and reaped too, and the result is `None`.
fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    let mut pause = Duration::from_millis(1);
    loop {
        let exited = child.try_wait().inspect_err(|_| stop(child))?;
        if let Some(status) = exited {
            group::kill(child);
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            stop(child);
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Kills the child's group and the child, and reaps it.
fn stop(child: &mut Child) {
    group::kill(child);
    // The child may exit between try_wait and kill; either way it is gone after wait.
    let _ = child.kill();
    let _ = child.wait();
}

type Output = (Vec<u8>, bool);

/// Reads a pipe to its end on a thread of its own, keeping at most `limit` bytes; the flag says
/// whether more came. The result arrives on the channel.
fn drain(mut pipe: impl Read + Send + 'static, limit: usize) -> Receiver<Output> {
    let (sender, receiver) = mpsc::channel();
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
        // The receiver is gone when the run gave up at the deadline; nobody needs the output.
        let _ = sender.send((kept, overflowed));
    });
    receiver
}

/// A reader's output, or `None` if the pipe is still open at the deadline.
fn collect(reader: Option<Receiver<Output>>, deadline: Instant) -> Option<Output> {
    let Some(reader) = reader else {
        return Some(Output::default());
    };
    match reader.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(output) => Some(output),
        Err(RecvTimeoutError::Timeout) => None,
        // The reader thread ended without sending: it panicked, so nothing was kept.
        Err(RecvTimeoutError::Disconnected) => Some(Output::default()),
    }
}

/// The child's own process group: everything it starts can be killed with it.
#[cfg(unix)]
mod group {
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};

    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;

    pub(super) fn isolate(command: &mut Command) {
        command.process_group(0);
    }

    /// Sends SIGKILL to the child's group (whose id is the child's pid). Called after the child
    /// exited, the group id cannot name another group: it stays reserved while any member lives,
    /// and a recycled pid leads a group only if it is that process's own choice, in the
    /// microseconds between.
    pub(super) fn kill(child: &Child) {
        let Ok(pgid) = i32::try_from(child.id()) else {
            return;
        };
        // The group is ours (process_group(0) above); one already gone gives ESRCH, ignored.
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// No process groups: only the child itself is killed at the deadline.
#[cfg(not(unix))]
mod group {
    use std::process::{Child, Command};

    pub(super) fn isolate(_command: &mut Command) {}

    pub(super) fn kill(_child: &Child) {}
}
