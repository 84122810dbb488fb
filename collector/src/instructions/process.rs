//! One counted process: `collector count-side …` under callgrind, handed its
//! certificates on stdin, its stdout read line by line, its stderr kept in the run's
//! private folder for the message if it fails, each step with a deadline. Its counts are
//! in callgrind's files once it has ended ([`super::valgrind::read_count`]).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::valgrind::{Files, Valgrind};
use super::window::Window;
use crate::arms::peer::process::Guarded;

/// How long the last lines of a process that has ended may take to arrive.
const OUTPUT_GRACE: Duration = Duration::from_secs(5);

/// What a counted process is: the counter, the window, its files and the program.
pub struct Spec<'a> {
    pub valgrind: &'a Valgrind,
    pub window: Window,
    pub files: Files,
    pub program: &'a Path,
    /// Its `count-side …` arguments.
    pub args: Vec<String>,
    /// What it reads on stdin (then closed).
    pub stdin: String,
    /// A name for messages, e.g. `the server of tls13-full-rsa2048-x25519`.
    pub what: String,
}

/// A counted process that is running.
pub struct Counting {
    child: Guarded,
    lines: Receiver<String>,
    stderr: std::path::PathBuf,
    what: String,
}

impl Counting {
    /// Starts `spec` (from the thread that waits for it: the child dies with that thread).
    pub fn start(spec: Spec<'_>) -> Result<Counting> {
        let stderr = spec.files.out.with_extension("stderr");
        let err_file = std::fs::File::create(&stderr)
            .with_context(|| format!("creating {}", stderr.display()))?;
        let mut cmd: Command = spec
            .valgrind
            .command(spec.window, &spec.files, spec.program);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(err_file));
        let mut child = Guarded::spawn(&mut cmd, &spec.what)?;
        let mut stdin = child.child.stdin.take().context("the child's stdin")?;
        stdin
            .write_all(spec.stdin.as_bytes())
            .with_context(|| format!("handing {} its certificates", spec.what))?;
        drop(stdin);
        let stdout = child.child.stdout.take().context("the child's stdout")?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Counting {
            child,
            lines,
            stderr,
            what: spec.what,
        })
    }

    /// The next line it prints, waiting at most until `deadline`.
    pub fn next_line(&mut self, deadline: Instant) -> Result<String> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                self.child.kill();
                bail!("{} printed nothing in time", self.what)
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = self.child.reap();
                bail!("{} ended early{}", self.what, self.stderr_tail())
            }
        }
    }

    /// Waits for it to end (stopping it at `deadline`, or once `stop` is set); returns
    /// the lines it printed that [`Counting::next_line`] did not take.
    pub fn finish(mut self, deadline: Instant, stop: &AtomicBool) -> Result<Vec<String>> {
        loop {
            if stop.load(Ordering::SeqCst) {
                self.child.kill();
                bail!("{} was stopped by a signal before it was done", self.what);
            }
            match self.child.child.try_wait() {
                Ok(Some(status)) if status.success() => break,
                Ok(Some(status)) => bail!("{} failed ({status}){}", self.what, self.stderr_tail()),
                Ok(None) if Instant::now() >= deadline => {
                    self.child.kill();
                    bail!("{} did not finish in time and was stopped", self.what);
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(e).with_context(|| format!("waiting for {}", self.what)),
            }
        }
        // The reader thread stops at EOF, which has come (or within the grace).
        let until = Instant::now() + OUTPUT_GRACE;
        let mut lines = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(until.saturating_duration_since(Instant::now()))
        {
            lines.push(line);
        }
        Ok(lines)
    }

    /// `: ` and the last lines of its stderr, if it wrote any.
    fn stderr_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        match lines.len() {
            0 => String::new(),
            n => format!(": {}", lines[n.saturating_sub(3)..].join(" / ")),
        }
    }
}
