//! `cargo xtask fuzz [--seconds N] [--target NAME]`: runs the fuzz targets in `fuzz/`
//! (libFuzzer through cargo-fuzz) for N seconds each, from the committed seed corpus.
//!
//! The only xtask command that uses unstable compiler features. The project's toolchain
//! is the pinned stable one (rust-toolchain.toml); cargo-fuzz needs nightly features
//! (`-Z` flags) and no nightly toolchain can be installed on these machines (they reach
//! package registries only), so this build, and only this one, runs with
//! `RUSTC_BOOTSTRAP=1`, and without a sanitizer (`-s none`: stable ships no sanitizer
//! runtimes) but with debug assertions and overflow checks (`-a`), so an
//! overflow is a crash. The committed corpus is only read: `fuzz/corpus/seeds` (real
//! evidence of small runs, both targets) and `fuzz/corpus/<target>` (inputs a run found
//! worth keeping); new inputs go to `target/fuzz/corpus/<target>`, crashing inputs to
//! `fuzz/artifacts/<target>` (git-ignored).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::tools::{cargo, describe, root, step};

/// Every fuzz target (`fuzz/fuzz_targets/<name>.rs`).
const TARGETS: [&str; 2] = ["evidence", "viewer"];

/// Seconds per target without `--seconds`.
const DEFAULT_SECONDS: u64 = 60;

/// What one target's run did.
struct Outcome {
    target: &'static str,
    inputs: Option<u64>,
    seconds: f64,
    corpus: usize,
    /// The failure libFuzzer reported and the file it saved, if any.
    found: Option<String>,
}

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut seconds = DEFAULT_SECONDS;
    let mut only: Option<String> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => {
                let v = it.next().context("--seconds needs a number")?;
                seconds = v
                    .parse()
                    .ok()
                    .filter(|s| (1..=86_400).contains(s))
                    .with_context(|| format!("--seconds {v}: give whole seconds, 1 to 86400"))?;
            }
            "--target" => only = Some(it.next().context("--target needs a name")?.clone()),
            other => bail!(
                "unknown fuzz flag `{other}` (usage: cargo xtask fuzz [--seconds N] [--target {}])",
                TARGETS.join("|")
            ),
        }
    }
    let targets: Vec<&'static str> = match &only {
        Some(t) => match TARGETS.iter().find(|x| **x == t) {
            Some(x) => vec![*x],
            None => bail!("no fuzz target `{t}` (targets: {})", TARGETS.join(", ")),
        },
        None => TARGETS.to_vec(),
    };
    ensure_cargo_fuzz()?;
    let mut outcomes = Vec::new();
    for target in targets {
        outcomes.push(fuzz(target, seconds)?);
    }
    step("fuzzing summary");
    let mut crashed = false;
    for o in &outcomes {
        let inputs = o
            .inputs
            .map_or("an unknown number of".to_string(), |n| n.to_string());
        match &o.found {
            None => eprintln!(
                "    {}: {inputs} inputs in {:.0} s, nothing found (corpus: {} inputs)",
                o.target, o.seconds, o.corpus
            ),
            Some(what) => {
                crashed = true;
                eprintln!(
                    "    {}: FOUND after {inputs} inputs in {:.0} s: {what}",
                    o.target, o.seconds
                );
            }
        }
    }
    Ok(if crashed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Installs cargo-fuzz unless `cargo fuzz` already runs.
fn ensure_cargo_fuzz() -> Result<()> {
    let works = cargo()
        .args(["fuzz", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if works {
        return Ok(());
    }
    step("cargo-fuzz is missing: installing it (cargo install cargo-fuzz --locked)");
    crate::tools::run(cargo().args(["install", "cargo-fuzz", "--locked"]))
}

/// The target dir for fuzz builds: `$CARGO_TARGET_DIR/fuzz`, else `target/fuzz`.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
        .join("fuzz")
}

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

/// Runs one target for `seconds`, echoing libFuzzer's output, and reads the outcome.
fn fuzz(target: &'static str, seconds: u64) -> Result<Outcome> {
    let fuzz_dir = root().join("fuzz");
    // Seeds both targets read (real evidence, shrunk), and what this target found.
    let seeds: Vec<PathBuf> = [
        fuzz_dir.join("corpus").join("seeds"),
        fuzz_dir.join("corpus").join(target),
    ]
    .into_iter()
    .filter(|d| d.is_dir())
    .collect();
    let work = target_dir().join("corpus").join(target);
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    // cargo-fuzz saves crashing inputs here (git-ignored).
    let artifacts = fuzz_dir.join("artifacts").join(target);
    step(format!(
        "fuzzing `{target}` for {seconds} s: seeds from {}, new inputs into {}, crashes into {}",
        seeds
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(" and "),
        work.display(),
        artifacts.display()
    ));
    let mut cmd = cargo();
    cmd.env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "run", "--sanitizer", "none", "--debug-assertions"])
        .arg("--fuzz-dir")
        .arg(&fuzz_dir)
        .arg("--target-dir")
        .arg(target_dir())
        .arg(target)
        .arg(&work)
        .args(&seeds)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!(
            "-dict={}",
            fuzz_dir.join("evidence.dict").display()
        ))
        // An input that takes over 10 s is a hang (a quadratic blow-up), not a slow input.
        .arg("-timeout=10")
        .arg("-print_final_stats=1")
        .stderr(Stdio::piped());
    step(format!(
        "running RUSTC_BOOTSTRAP=1 {} (cargo-fuzz needs nightly features and no nightly \
         toolchain can be installed here: this fuzz build alone takes them on stable)",
        describe(&cmd)
    ));
    let started = Instant::now();
    let mut fuzzed_seconds = None;
    let mut child = cmd
        .spawn()
        .with_context(|| format!("could not start {}", describe(&cmd)))?;
    let mut inputs = None;
    let mut found: Option<String> = None;
    let mut saved = None;
    if let Some(err) = child.stderr.take() {
        for line in BufReader::new(err).lines() {
            let line = line.unwrap_or_default();
            eprintln!("{line}");
            if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
                inputs = n.trim().parse().ok();
            }
            // libFuzzer's last line: "Done N runs in S second(s)".
            if let Some(rest) = line.strip_prefix("Done ") {
                fuzzed_seconds = rest
                    .split(" runs in ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.parse::<f64>().ok());
            }
            let failure = line.contains("==ERROR: libFuzzer")
                || line.contains("panicked at")
                || line.contains("ALARM: working on the last Unit for");
            if failure && found.is_none() {
                found = Some(line.trim().to_string());
            }
            if let Some(rest) = line.split("Test unit written to ").nth(1) {
                saved = Some(rest.trim().to_string());
            }
        }
    }
    let status = child.wait()?;
    // The fuzzing time libFuzzer reports; the wall time (with the build) if it said none.
    let seconds = fuzzed_seconds.unwrap_or_else(|| started.elapsed().as_secs_f64());
    if !status.success() && found.is_none() {
        found = Some(format!("cargo fuzz exited with {status}"));
    }
    if let (Some(f), Some(s)) = (&mut found, saved) {
        f.push_str(&format!(" (input saved as {s})"));
    }
    Ok(Outcome {
        target,
        inputs,
        seconds,
        corpus: files_in(&work) + seeds.iter().map(|d| files_in(d)).sum::<usize>(),
        found,
    })
}
