//! Running a peer script (the Python arm): input on stdin, output read to the end, an
//! overall time limit after which its process group is killed, and its exit status read
//! from the same wait that reaps it.

use std::io::{Read, Write};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::arms::peer::process::Guarded;

/// The longest the script may take in all: two minutes to start, plus 100 ms per
/// connection (a Python handshake on loopback takes a few ms; each connection's own
/// stall is bounded by the io timeout inside the script). A hung interpreter is stopped.
pub fn overall_limit(connections: u64) -> Duration {
    Duration::from_secs(120) + Duration::from_millis(100).saturating_mul(connections as u32)
}

/// Hands `input` to the started script, reads its output, and reaps it; kills the
/// process group after `limit`. An empty output or a failed exit is an error that
/// names the exit status and the end of stderr.
pub fn run_script(mut proc: Guarded, input: &str, limit: Duration) -> Result<String> {
    let mut stdin = proc.child.stdin.take().expect("piped");
    let input = input.to_string();
    // Written from a thread, so a script that never reads cannot block us past the limit.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let mut err_pipe = proc.child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let pid = proc.id() as libc::pid_t;
    let (done, wait_done) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let timed_out = matches!(
            wait_done.recv_timeout(limit),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        );
        if timed_out {
            // SAFETY: the script's group; its leader is not reaped before we are joined.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        timed_out
    });
    let mut out = String::new();
    let read = proc
        .child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut out);
    // Waits for the exit without reaping, so the watchdog's kill cannot reach a reused id.
    wait_exited(pid);
    let _ = done.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    proc.reap()?;
    let status = proc.status();
    let stderr = errors.join().unwrap_or_default();
    let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join(" | ");
    if timed_out {
        bail!("the Python arm script did not finish within {limit:?} and was stopped: {tail}");
    }
    read.context("reading the Python script's output")?;
    let _ = writer.join();
    let status_text = status.map(|s| format!(" ({s})")).unwrap_or_default();
    if !status.is_some_and(|s| s.success()) {
        bail!("the Python arm script failed{status_text}: {tail}");
    }
    if out.trim().is_empty() {
        bail!("the Python arm script printed nothing{status_text}: {tail}");
    }
    Ok(out)
}

/// Blocks until process `pid` (our child) has exited, leaving it to be reaped.
fn wait_exited(pid: libc::pid_t) {
    loop {
        // SAFETY: WNOWAIT only looks; info is plain data.
        let r = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};

    use super::*;
    use crate::arms::peer::private_dir::PrivateDir;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Instant;

    /// A stand-in for the Python interpreter: a shell script with `body`.
    fn fake(dir: &PrivateDir, name: &str, body: &str) -> Guarded {
        let path = dir
            .write(name, format!("#!/bin/sh\n{body}\n").as_bytes())
            .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
        let mut cmd = Command::new(&path);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        Guarded::spawn(&mut cmd, name).unwrap()
    }

    #[test]
    fn a_hung_script_is_stopped_at_the_limit() {
        let dir = PrivateDir::create().unwrap();
        let proc = fake(&dir, "hang", "echo started >&2; exec sleep 60");
        let t0 = Instant::now();
        let err = run_script(proc, "{}", Duration::from_millis(500)).unwrap_err();
        assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
        let err = format!("{err:#}");
        assert!(err.contains("did not finish within 500ms"), "{err}");
        assert!(err.contains("started"), "stderr tail: {err}");
    }

    #[test]
    fn a_failed_script_reports_its_exit_status() {
        let dir = PrivateDir::create().unwrap();
        let proc = fake(
            &dir,
            "fail",
            "echo '{}'; echo 'Traceback: boom' >&2; exit 7",
        );
        let err = format!(
            "{:#}",
            run_script(proc, "{}", Duration::from_secs(30)).unwrap_err()
        );
        assert!(
            err.contains("exit status: 7") && err.contains("boom"),
            "{err}"
        );
        let proc = fake(&dir, "ok", "cat");
        assert_eq!(
            run_script(proc, "{\"x\": 1}", Duration::from_secs(30)).unwrap(),
            "{\"x\": 1}"
        );
    }
}
