//! A peer server's whole process under callgrind: the counter the peer phase is lent
//! ([`crate::arms::peer::ProcessCounter`]). The server runs under valgrind with collection
//! on from its start; `callgrind_control --zero` drops what it executed so far and
//! `callgrind_control --dump` writes what it executed since, to a numbered file read here
//! (see [`crate::arms::peer::counted`] for what is counted between the two).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use shared::{CountOutcome, CountScope, Instructions};

use super::valgrind::{parse_summary, read_with, Files, Valgrind};
use crate::arms::peer::launch::Under;
use crate::arms::peer::ProcessCounter;

/// What each peer server's count holds and leaves out (recorded per arm).
pub const WINDOW: &str = "the peer server's whole process under valgrind's callgrind (collection on from its start), started again after its timed arms with the same setup; for each arm the rustls client (not counted) makes the warm-up handshakes, the counts are zeroed (callgrind_control --zero), the counted handshakes are made, each with its request (GET /x and the 1-byte answer) and checked like a timed one, and the counts are dumped (callgrind_control --dump), each batch 0.15 s after the last connection; then the server is left idle for 0.5 s and what it executed idle per second, times the arm's time, is taken off. Counted: every user-space instruction of the server process (its TLS library, event loop, request handling and logging). Not counted: the kernel's work, the client, the server's start-up and configuration";

/// Longest a `callgrind_control` command may take (it reaches a process blocked in a
/// system call through vgdb, which waits for it to wake or interrupts it).
const CONTROL_TIMEOUT: Duration = Duration::from_secs(20);

/// callgrind with `callgrind_control` beside it, and the phase's plan.
pub struct WholeCounter {
    valgrind: Valgrind,
    handshakes: u64,
    warmup: u64,
}

impl WholeCounter {
    pub fn new(valgrind: &Valgrind, handshakes: u64, warmup: u64) -> WholeCounter {
        WholeCounter {
            valgrind: valgrind.clone(),
            handshakes,
            warmup,
        }
    }

    /// `callgrind_control`, installed beside valgrind by its package.
    fn control(&self) -> Result<PathBuf> {
        let beside = self.valgrind.path.with_file_name("callgrind_control");
        if beside.exists() {
            return Ok(beside);
        }
        crate::peers::which("callgrind_control").context(
            "callgrind_control (Debian package `valgrind`, beside valgrind) is not on PATH",
        )
    }

    /// Runs `callgrind_control <flag> <pid>`, which must say `OK.`.
    fn command(&self, flag: &str, pid: u32) -> Result<()> {
        let program = self.control()?;
        let mut child = Command::new(&program)
            .arg(flag)
            .arg(pid.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("running {}", program.display()))?;
        let deadline = Instant::now() + CONTROL_TIMEOUT;
        loop {
            if child.try_wait()?.is_some() {
                break;
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                bail!("callgrind_control {flag} {pid} did not answer in {CONTROL_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let out = child.wait_with_output()?;
        let said = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !said.lines().any(|l| l.trim() == "OK.") {
            bail!(
                "callgrind_control {flag} {pid} failed ({}): {} {}",
                out.status,
                said.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    }
}

impl ProcessCounter for WholeCounter {
    fn under(&self, dir: &Path, name: &str) -> Under {
        let files = Files::in_dir(dir, name);
        Under {
            program: self.valgrind.path.clone(),
            args: [
                "--tool=callgrind".to_string(),
                "--cache-sim=no".into(),
                "--branch-sim=no".into(),
                format!("--callgrind-out-file={}", files.out.display()),
                format!("--log-file={}", files.log.display()),
            ]
            .map(Into::into)
            .into(),
        }
    }

    fn handshakes(&self) -> u64 {
        self.handshakes
    }

    fn warmup(&self) -> u64 {
        self.warmup
    }

    fn zero(&self, pid: u32) -> Result<()> {
        self.command("--zero", pid)
    }

    fn dump(&self, pid: u32, dir: &Path, name: &str, k: usize) -> Result<u64> {
        self.command("--dump", pid)?;
        let file = Files::in_dir(dir, name).dump(k);
        read_with(&file, Instant::now() + CONTROL_TIMEOUT, parse_summary)
    }

    fn record(&self, outcome: CountOutcome) -> Instructions {
        Instructions {
            tool: self.valgrind.tool(),
            // The peers are the distribution's builds, not this collector's.
            build_profile: shared::BuildProfile::Release,
            scope: CountScope::WholeProcess,
            window: WINDOW.into(),
            warmup_handshakes: self.warmup,
            outcome,
        }
    }
}
