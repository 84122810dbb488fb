//! `collector compare` and `collector export`, end to end: a real run's evidence against itself and against a
//! copy with every sample 20% slower; and files it must refuse.

use std::path::Path;
use std::process::Output;

use e2e::{collector, only_evidence_file, run_ok, scratch};
use serde_json::Value;
use shared::{conditions, Evidence, Verdict};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn compare(old: &Path, new: &Path, extra: &[&str]) -> Output {
    collector()
        .arg("compare")
        .arg(old)
        .arg(new)
        .args(extra)
        .output()
        .expect("collector runs")
}

fn nearest_rank(samples: &[f64], p: f64) -> f64 {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    s[((p / 100.0 * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1]
}

/// `e` with every sample × 1.2, and everything validation checks recomputed here from
/// the scaled samples (not by the collector's code).
fn slowed(e: &Evidence) -> Evidence {
    let mut s = e.clone();
    s.run.id = format!("{}-slowed", e.run.id);
    for a in s.arms.iter_mut() {
        a.samples_us.iter_mut().for_each(|x| *x *= 1.2);
        let Some(l) = a.latency_us.as_mut() else {
            continue;
        };
        let n = a.samples_us.len() as f64;
        l.min = nearest_rank(&a.samples_us, 0.0);
        l.p50 = nearest_rank(&a.samples_us, 50.0);
        l.p95 = nearest_rank(&a.samples_us, 95.0);
        l.p99 = nearest_rank(&a.samples_us, 99.0);
        l.max = nearest_rank(&a.samples_us, 100.0);
        l.mean = a.samples_us.iter().sum::<f64>() / n;
        l.stddev *= 1.2;
        if let Some(ci) = a.p50_ci95_us.as_mut() {
            *ci = [ci[0] * 1.2, ci[1] * 1.2];
        }
        let mut start = 0;
        a.round_medians_us = a
            .samples_per_round
            .iter()
            .map(|&k| {
                let round = &a.samples_us[start..start + k as usize];
                start += k as usize;
                (k > 0).then(|| nearest_rank(round, 50.0))
            })
            .collect();
    }
    s
}

/// `e` as a collector that recorded nothing of the host would have written it: no steal,
/// no load, no chunk records, no verdict on the conditions.
fn without_host_record(mut e: Evidence) -> Evidence {
    e.run.conditions = None;
    e.environment.steal_percent.clear();
    e.environment.other_work = None;
    e.environment.load_average.before = [0.0; 3];
    e.environment.load_average.after = [0.0; 3];
    for a in e.arms.iter_mut() {
        a.chunks = None;
    }
    assert_eq!(
        conditions::of_run(&e).level,
        conditions::Level::Unrecorded,
        "the copy records nothing of the host"
    );
    e
}

/// The run as measured against its 20% slower copy (same conditions, the copy's): an
/// unreliable run makes every verdict inconclusive and nothing a regression (exit 0); in
/// any other run an arm is inconclusive only with a note of what the host did to it.
fn host_decides_first(run_file: &Path, dir: &Path, run: &Evidence) {
    let copy = dir.join("slowed-as-measured.json");
    std::fs::write(&copy, slowed(run).to_json()).unwrap();
    let out = compare(run_file, &copy, &["--json"]);
    let c: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let unreliable = conditions::of_run(run).level == conditions::Level::Unreliable;
    for row in c["arms"].as_array().unwrap() {
        let inconclusive = row["verdict"] == Verdict::Inconclusive.as_str();
        if unreliable {
            assert!(inconclusive, "{row}");
        }
        if inconclusive {
            assert!(row["note"].as_str().is_some_and(|n| !n.is_empty()), "{row}");
            assert_eq!(row["regression"], false, "{row}");
        }
    }
    if unreliable {
        assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
        assert_eq!(c["regressions"], 0);
    }
}

#[test]
fn compare_finds_a_twenty_percent_slowdown_and_no_difference_with_itself() {
    let dir = scratch("compare");
    let run_dir = dir.join("run");
    let old = run_ok(
        &[
            "run",
            "--no-peers",
            "--no-floor",
            "--samples",
            "300",
            "--warmup",
            "20",
            "--rounds",
            "20",
            "--arms",
            "tcp,tls13-full,tls12-resumed,tls13-resumed",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
            // No chunk set aside or kept over the steal threshold: an arm that kept one
            // would be inconclusive (the host's doing, tested in compare/rows.rs), and
            // this test is about the interval rule on a known 20% slowdown.
            "--max-steal",
            "100",
        ],
        &run_dir,
    );
    let run_file = only_evidence_file(&run_dir);
    // The host's conditions decide first: on a box whose hypervisor took 15% or more the
    // run is unreliable and every verdict inconclusive, whatever the intervals say. That
    // rule is checked on the run as measured; the interval rule on a copy that recorded
    // nothing of the host (conditions unrecorded on both sides are no reason).
    host_decides_first(&run_file, &dir, &old);
    // The same run as a host that took a fifth of a CPU would have recorded it: that
    // branch runs on every machine, not only on a noisy one.
    let mut stolen = old.clone();
    stolen.run.conditions = None;
    stolen.environment.steal_percent = [("cpu0".to_string(), 20.0)].into();
    assert_eq!(
        conditions::of_run(&stolen).level,
        conditions::Level::Unreliable
    );
    let stolen_file = dir.join("stolen.json");
    std::fs::write(&stolen_file, stolen.to_json()).unwrap();
    host_decides_first(&stolen_file, &dir, &stolen);
    let old = without_host_record(old);
    let old_file = dir.join("old.json");
    std::fs::write(&old_file, old.to_json()).unwrap();
    let new = slowed(&old);
    let new_file = dir.join("slowed.json");
    std::fs::write(&new_file, new.to_json()).unwrap();
    // The copies are valid evidence, as any file compare reads must be.
    for f in [&old_file, &new_file] {
        Evidence::from_json(&std::fs::read_to_string(f).unwrap()).expect("valid");
    }

    let out = compare(&old_file, &new_file, &["--json"]);
    assert_eq!(out.status.code(), Some(4), "stderr: {}", text(&out.stderr));
    let c: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let rows = c["arms"].as_array().unwrap();
    assert_eq!(rows.len(), old.arms.len());
    let mut slower = 0;
    for (row, (o, n)) in rows.iter().zip(old.arms.iter().zip(&new.arms)) {
        assert_eq!(row["arm"], o.id.as_str());
        let expected = n.latency_us.unwrap().p50 / o.latency_us.unwrap().p50;
        assert!((expected - 1.2).abs() < 1e-9, "{}: {expected}", o.id);
        assert_eq!(row["ratio"].as_f64(), Some(expected), "{}", o.id);
        // Ten rounds each: an interval, and the verdict is the shared rule's.
        let ci: [f64; 2] = serde_json::from_value(row["ci95"].clone()).expect("a CI");
        let verdict = Verdict::of(Some(ci));
        assert_eq!(row["verdict"], verdict.as_str(), "{}", o.id);
        assert_ne!(verdict, Verdict::Faster, "{}: {ci:?}", o.id);
        assert_eq!(row["regression"], verdict == Verdict::Slower);
        slower += usize::from(verdict == Verdict::Slower);
    }
    // Run-to-run noise can hide the shift in a noisy arm, never in all of them.
    assert!(slower >= 1, "{}", text(&out.stdout));
    assert_eq!(c["regressions"], slower);

    // The table says the same, for people.
    let out = compare(&old_file, &new_file, &[]);
    assert_eq!(out.status.code(), Some(4));
    let table = text(&out.stdout);
    assert!(
        table.contains("slower  REGRESSION") && table.contains("1.200x"),
        "{table}"
    );
    // A threshold above the shift reports it without failing.
    let out = compare(&old_file, &new_file, &["--threshold", "25%"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    // A file against itself: ratio 1, no evidence of a difference, exit 0.
    let out = compare(&old_file, &old_file, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    for row in c["arms"].as_array().unwrap() {
        assert_eq!(row["ratio"].as_f64(), Some(1.0), "{row}");
        assert_eq!(row["verdict"], Verdict::NoEvidence.as_str(), "{row}");
    }
}

/// A version-1 file (plain arrays; committed, written before version 2 packed them)
/// against the same run written as version 2 with every sample 20% slower: compare reads
/// both and finds the shift in every arm; a file of a later version is refused by name.
#[test]
fn compare_reads_a_version_1_file_against_version_2_and_refuses_a_newer_one() {
    let dir = scratch("compare-v1");
    let old_file = e2e::root().join("tests/fixtures/evidence-v1.json");
    let old = Evidence::from_json(&std::fs::read_to_string(&old_file).unwrap()).unwrap();
    assert_eq!(old.schema_version, 1);
    let mut new = slowed(&old);
    new.schema_version = shared::SCHEMA_VERSION;
    let new_file = dir.join("slowed-v2.json");
    std::fs::write(&new_file, new.to_json()).unwrap();
    let out = compare(&old_file, &new_file, &["--json"]);
    assert_eq!(out.status.code(), Some(4), "stderr: {}", text(&out.stderr));
    let c: Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let rows = c["arms"].as_array().unwrap();
    assert_eq!(rows.len(), old.arms.len());
    for (row, o) in rows.iter().zip(&old.arms) {
        assert_eq!(row["arm"], o.id.as_str());
        let ratio = row["ratio"].as_f64().expect("a ratio");
        assert!((ratio - 1.2).abs() < 1e-9, "{}: {ratio}", o.id);
        let ci: [f64; 2] = serde_json::from_value(row["ci95"].clone()).expect("a CI");
        assert_eq!(row["verdict"], Verdict::of(Some(ci)).as_str(), "{row}");
        assert_ne!(row["verdict"], Verdict::Faster.as_str(), "{row}");
    }
    // Exit code 4: at least one arm's shift is beyond its interval.
    assert!(c["regressions"].as_u64().unwrap() >= 1);

    let mut future: Value = serde_json::from_str(&new.to_json()).unwrap();
    future["schema_version"] = Value::from(3);
    let future_file = dir.join("future.json");
    std::fs::write(&future_file, future.to_string()).unwrap();
    let out = compare(&old_file, &future_file, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("future.json")
            && err.contains("schema version 3 is newer than this build reads (versions 1 to 2)"),
        "{err}"
    );
}

#[test]
fn compare_refuses_unreadable_and_invalid_files_clearly() {
    let dir = scratch("compare-bad");
    let not_json = dir.join("notes.json");
    std::fs::write(&not_json, "{ oops").unwrap();
    let missing = dir.join("missing.json");
    let out = compare(&missing, &not_json, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("OLD file")
            && err.contains("missing.json")
            && err.contains("could not be read"),
        "{err}"
    );
    let out = compare(&not_json, &not_json, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("notes.json is not valid evidence: not valid JSON at line 1"),
        "{err}"
    );
    let out = compare(&not_json, &not_json, &["--threshold", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not a percentage"));
}

/// `collector export`: a real run's medians as Bencher Metric Format (latency in ns, the
/// p50's CI as lower/upper) and as github-action-benchmark's customSmallerIsBetter list
/// (µs); an arm with an error is left out and named on stderr.
#[test]
fn export_writes_the_runs_medians_for_bencher_and_github_action_benchmark() {
    let dir = scratch("export");
    let run_dir = dir.join("run");
    let mut ev = run_ok(
        &[
            "run",
            "--no-peers",
            "--no-floor",
            "--samples",
            "50",
            "--rounds",
            "5",
            "--arms",
            "tcp,tls13-full",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
        ],
        &run_dir,
    );
    // One arm marked as not measuring what it claims (as a failed check would).
    ev.arms[1].error = Some("marked by the test".into());
    // No ratio may rest on an arm with an error (validation refuses that).
    ev.comparisons.clear();
    let file = dir.join("marked.json");
    std::fs::write(&file, ev.to_json()).unwrap();
    let sound: Vec<&shared::Arm> = ev.arms.iter().filter(|a| a.error.is_none()).collect();
    assert!(!sound.is_empty());

    let out = collector()
        .args(["export", "--format", "bmf"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&ev.arms[1].id),
        "{}",
        text(&out.stderr)
    );
    let bmf: Value = serde_json::from_slice(&out.stdout).expect("BMF is JSON");
    let bmf = bmf.as_object().expect("BMF: an object of benchmarks");
    assert_eq!(bmf.len(), sound.len());
    for a in &sound {
        let m = &bmf[&a.id]["latency"];
        assert_eq!(
            m["value"].as_f64(),
            Some(a.latency_us.unwrap().p50 * 1000.0)
        );
        let [lo, hi] = a.p50_ci95_us.expect("five rounds give a CI");
        assert_eq!(m["lower_value"].as_f64(), Some(lo * 1000.0));
        assert_eq!(m["upper_value"].as_f64(), Some(hi * 1000.0));
    }

    let out_file = dir.join("gab.json");
    let out = collector()
        .args(["export", "--format", "github-action-benchmark", "--out"])
        .arg(&out_file)
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "--out writes the file, not stdout");
    let gab: Value = serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
    let list = gab.as_array().expect("a list of benchmarks");
    assert_eq!(list.len(), sound.len());
    for (entry, a) in list.iter().zip(&sound) {
        assert_eq!(entry["name"], a.id.as_str());
        assert_eq!(entry["unit"], "µs");
        assert_eq!(entry["value"].as_f64(), Some(a.latency_us.unwrap().p50));
        assert!(entry["range"].as_str().unwrap().starts_with('±'), "{entry}");
    }
}
