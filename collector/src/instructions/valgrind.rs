//! valgrind's callgrind: finding it, the command line of a counted process, and reading
//! the count callgrind writes when that process ends.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::window::Window;
use crate::arms::peer::arm::{ask_version, first_line};

/// A valgrind found on PATH, with its version (`valgrind-3.19.0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Valgrind {
    pub path: PathBuf,
    pub version: String,
}

/// Where one counted process's callgrind writes: its count and its own messages.
#[derive(Debug, Clone)]
pub struct Files {
    pub out: PathBuf,
    pub log: PathBuf,
}

impl Files {
    /// `<dir>/<name>.out` and `<dir>/<name>.log`.
    pub fn in_dir(dir: &Path, name: &str) -> Files {
        Files {
            out: dir.join(format!("{name}.out")),
            log: dir.join(format!("{name}.log")),
        }
    }

    /// The `k`-th dump (from 1): what was counted between the `k-1`-th and the `k`-th
    /// return from [`super::window::hlab_arm_done`]. (`out` itself holds what was counted
    /// after the last dump, until the process ended.)
    pub fn dump(&self, k: usize) -> PathBuf {
        let mut name = self.out.clone().into_os_string();
        name.push(format!(".{k}"));
        PathBuf::from(name)
    }
}

impl Valgrind {
    /// `valgrind` on PATH, asked for its version. The error says, in words, why there is
    /// none (the run goes on without counts).
    pub fn find() -> Result<Valgrind, String> {
        let path = crate::peers::which("valgrind").ok_or_else(|| {
            "valgrind is not on PATH (Debian package `valgrind`; `cargo xtask lab` and `cargo xtask test` install it)".to_string()
        })?;
        let (out, _) = ask_version(&path, &["--version"]).map_err(|e| format!("{e:#}"))?;
        let version = first_line(&path, &out).map_err(|e| format!("{e:#}"))?;
        Ok(Valgrind { path, version })
    }

    /// How the counts were made, as the evidence records it.
    pub fn tool(&self) -> String {
        format!("{} --tool=callgrind", self.version)
    }

    /// `program`, to be given its own arguments, under callgrind with collection on only
    /// inside `window`'s function (and what it calls), a dump after every return from
    /// [`super::window::hlab_arm_done`], no cache or branch simulation (instructions are
    /// all that is read), writing to `files`.
    pub fn command(&self, window: Window, files: &Files, program: &Path) -> Command {
        let mut c = Command::new(&self.path);
        c.arg("--tool=callgrind")
            .arg("--collect-atstart=no")
            .arg(format!("--toggle-collect=*::{}", window.function()))
            .arg(format!("--dump-after=*::{}", super::window::ARM_DONE))
            .arg("--cache-sim=no")
            .arg("--branch-sim=no")
            .arg(format!("--callgrind-out-file={}", files.out.display()))
            .arg(format!("--log-file={}", files.log.display()))
            .arg(program);
        c
    }
}

/// Instructions (`Ir`) counted in a callgrind output file's text: its `summary:` line,
/// which its closing `totals:` line must repeat (a file without it was cut short).
pub fn parse_count(text: &str) -> Result<u64> {
    let (summary, totals) = parse_lines(text)?;
    if summary != totals {
        bail!("the callgrind output's summary ({summary}) and totals ({totals}) differ");
    }
    Ok(summary)
}

/// Instructions (`Ir`) counted in a dump made after the counts were zeroed
/// (`callgrind_control --zero`): its `summary:` line. Its `totals:` line must be there
/// (else the file was cut short) but differs: it also holds the inclusive costs of the
/// calls that were under way when the counts were zeroed.
pub fn parse_summary(text: &str) -> Result<u64> {
    Ok(parse_lines(text)?.0)
}

/// The `Ir` of a callgrind output's `summary:` and `totals:` lines.
fn parse_lines(text: &str) -> Result<(u64, u64)> {
    let mut events = None;
    let (mut summary, mut totals) = (None, None);
    for line in text.lines() {
        if let Some(names) = line.strip_prefix("events:") {
            let names: Vec<&str> = names.split_whitespace().collect();
            events = Some(
                names
                    .iter()
                    .position(|n| *n == "Ir")
                    .with_context(|| format!("no `Ir` among the events {names:?}"))?,
            );
        } else if let Some(v) = line.strip_prefix("summary:") {
            summary.get_or_insert(v);
        } else if let Some(v) = line.strip_prefix("totals:") {
            totals = Some(v);
        }
    }
    let at = events.context("no `events:` line: not a callgrind output file")?;
    let read = |what: &str, v: &str| -> Result<u64> {
        let field = v
            .split_whitespace()
            .nth(at)
            .with_context(|| format!("the `{what}:` line has no `Ir` column"))?;
        field
            .parse()
            .with_context(|| format!("`{field}` on the `{what}:` line is not a count"))
    };
    let summary = read(
        "summary",
        summary.context("no `summary:` line in the callgrind output")?,
    )?;
    let totals = read(
        "totals",
        totals.context("no `totals:` line: the callgrind output was cut short")?,
    )?;
    Ok((summary, totals))
}

/// The count in the callgrind output file at `path`, waiting for it to be complete
/// until `deadline` (callgrind writes it as its process ends).
pub fn read_count(path: &Path, deadline: Instant) -> Result<u64> {
    read_with(path, deadline, parse_count)
}

/// `parse` of the callgrind output at `path` once it is complete (or at `deadline`).
pub fn read_with(path: &Path, deadline: Instant, parse: fn(&str) -> Result<u64>) -> Result<u64> {
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.lines().any(|l| l.starts_with("totals:")) || Instant::now() >= deadline {
            return parse(&text)
                .with_context(|| format!("reading the callgrind output {}", path.display()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As callgrind 3.19 writes it (`--cache-sim=no`), shortened.
    const WRITTEN: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 14297
cmd:  ./collector count-side server
part: 1

desc: I1 cache: 
desc: Timerange: Basic block 0 - 1075028
desc: Trigger: Program termination

positions: line
events: Ir
summary: 90160


ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
fn=(0) 0x000000000001ab70
0 90160

totals: 90160
";

    #[test]
    fn the_count_is_the_summary_that_the_totals_repeat() {
        assert_eq!(parse_count(WRITTEN).unwrap(), 90160);
    }

    #[test]
    fn a_dump_after_a_zero_is_read_by_its_summary_alone() {
        // As callgrind 3.19 wrote a dump of `openssl s_server` after
        // `callgrind_control --zero` (10 handshakes), shortened: the totals also hold the
        // call that was under way when the counts were zeroed.
        let dump = WRITTEN
            .replace("summary: 90160", "summary: 42169146")
            .replace("totals: 90160", "totals: 45729593");
        assert_eq!(parse_summary(&dump).unwrap(), 42_169_146);
        assert!(parse_count(&dump).is_err());
        let cut = dump.replace("totals: 45729593\n", "");
        assert!(format!("{:#}", parse_summary(&cut).unwrap_err()).contains("cut short"));
    }

    #[test]
    fn the_ir_column_is_found_among_other_events() {
        let text = "events: Dr Ir Dw\nsummary: 5 7 9\ntotals: 5 7 9\n";
        assert_eq!(parse_count(text).unwrap(), 7);
    }

    #[test]
    fn a_file_cut_short_or_foreign_is_an_error_that_says_so() {
        let cut = WRITTEN.replace("totals: 90160\n", "");
        let err = |t: &str| format!("{:#}", parse_count(t).unwrap_err());
        assert!(err(&cut).contains("cut short"), "{}", err(&cut));
        assert!(err("").contains("not a callgrind output"));
        assert!(err("events: Dr\nsummary: 1\ntotals: 1\n").contains("no `Ir`"));
        assert!(err("events: Ir\nsummary: lots\ntotals: 1\n").contains("not a count"));
        assert!(err("events: Ir\nsummary: 2\ntotals: 3\n").contains("differ"));
        assert!(err("events: Dr Ir\nsummary: 2\ntotals: 2 1\n").contains("no `Ir` column"));
    }

    #[test]
    fn a_file_never_written_is_given_up_on_at_the_deadline() {
        let missing = std::env::temp_dir().join(format!("hlab-no-such-{}", std::process::id()));
        let err = read_count(&missing, Instant::now()).unwrap_err();
        assert!(
            format!("{err:#}").contains("not a callgrind output"),
            "{err:#}"
        );
    }
}
