//! CPU placement end to end: the collector pins each end where `--placement` says,
//! samples where every connection's two ends really ran, records both, and falls back
//! with the reason where a placement cannot be had. Nothing here is asserted about time:
//! only where things ran, as the evidence records it.

use std::process::Command;

use e2e::{read_evidence, run_ok, scratch};
use shared::{Arm, ComparisonKind, CpuPlacement, Protocol};

/// CPUs this test process may use, as `taskset -p` reports them would be one way; the
/// kernel's own list in /proc/self/status is simpler to read.
fn allowed_cpus() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    list.split(',')
        .map(|part| match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1,
            None => 1,
        })
        .sum()
}

/// Whether this test may use two CPUs (it places the two ends apart); see
/// [`e2e::require_or_skip`].
fn two_cpus(test: &str) -> bool {
    let n = allowed_cpus();
    e2e::require_or_skip(n >= 2, test, &format!("it needs 2 CPUs and may use {n}"))
}

const ARGS: &[&str] = &[
    "run",
    "--no-peers",
    "--no-floor",
    "--quick",
    "--samples",
    "20",
    "--certs",
    "ecdsa-p256",
    "--groups",
    "x25519",
    "--arms",
    "tcp,tls13-full,tls12-resumed-ticket",
];

/// Every timed connection of `a` (traced ones too) was sampled on both ends.
fn all_observed(a: &Arm) -> u64 {
    let p = a
        .placement
        .as_ref()
        .unwrap_or_else(|| panic!("{}: no placement", a.id));
    let timed = a.attempted + a.tracing.as_ref().map_or(0, |t| t.attempted);
    assert_eq!(p.observed, timed, "{}: every connection sampled", a.id);
    assert_eq!(
        p.held, p.observed,
        "{}: every connection ran as asked",
        a.id
    );
    p.observed
}

#[test]
fn split_puts_the_ends_on_different_cpus_and_a_same_cpu_control_beside_it() {
    if !two_cpus("split_puts_the_ends_on_different_cpus_and_a_same_cpu_control_beside_it") {
        return;
    }
    let dir = scratch("placement-split");
    let e = run_ok(&[ARGS, &["--placement", "split"]].concat(), &dir);
    let run = e.run.settings.placement.as_ref().unwrap();
    assert_eq!(
        (run.asked, run.applied),
        (CpuPlacement::Split, CpuPlacement::Split)
    );
    assert!(!run.client_cpus.is_empty() && !run.server_cpus.is_empty());
    assert!(
        run.client_cpus.iter().all(|c| !run.server_cpus.contains(c)),
        "{run:?}: disjoint sets"
    );
    let control_id = "tls13-full-ecdsa-p256-x25519-cpu-same";
    for a in &e.arms {
        let n = all_observed(a);
        let p = a.placement.as_ref().unwrap();
        if a.id == control_id {
            assert_eq!(p.asked, CpuPlacement::Same);
            assert_eq!(
                p.same_cpu, n,
                "the control shares one CPU on every connection"
            );
            assert_eq!(
                a.control_of.as_deref(),
                Some("tls13-full-ecdsa-p256-x25519")
            );
        } else {
            assert_eq!(p.asked, CpuPlacement::Split, "{}", a.id);
            assert_eq!(p.same_cpu, 0, "{}: never on one CPU", a.id);
            assert_eq!(
                (&p.client_cpus, &p.server_cpus),
                (&run.client_cpus, &run.server_cpus)
            );
        }
    }
    let effect: Vec<_> = e
        .comparisons
        .iter()
        .filter(|c| c.kind == ComparisonKind::CpuPlacementEffect)
        .collect();
    assert_eq!(effect.len(), 1, "{:?}", e.comparisons);
    assert_eq!(
        (effect[0].baseline.as_str(), effect[0].candidate.as_str()),
        ("tls13-full-ecdsa-p256-x25519", control_id)
    );
    // The control enters no other comparison.
    assert!(e
        .comparisons
        .iter()
        .filter(|c| c.kind != ComparisonKind::CpuPlacementEffect)
        .all(|c| c.baseline != control_id && c.candidate != control_id));
    // The rustls arms say the server end was sampled in its own thread.
    let tls = e
        .arms
        .iter()
        .find(|a| a.protocol == Protocol::Tls13)
        .unwrap();
    assert!(tls
        .placement
        .as_ref()
        .unwrap()
        .sampled_by
        .contains("sched_getcpu"));
}

#[test]
fn same_puts_both_ends_on_one_cpu_with_a_split_control() {
    if !two_cpus("same_puts_both_ends_on_one_cpu_with_a_split_control") {
        return;
    }
    let dir = scratch("placement-same");
    let e = run_ok(&[ARGS, &["--placement", "same"]].concat(), &dir);
    let run = e.run.settings.placement.as_ref().unwrap();
    assert_eq!(run.applied, CpuPlacement::Same);
    assert_eq!(run.client_cpus, run.server_cpus);
    for a in &e.arms {
        let n = all_observed(a);
        let p = a.placement.as_ref().unwrap();
        if a.control_of.is_some() {
            assert_eq!(a.id, "tls13-full-ecdsa-p256-x25519-cpu-split");
            assert_eq!((p.asked, p.same_cpu), (CpuPlacement::Split, 0));
        } else {
            assert_eq!((p.asked, p.same_cpu), (CpuPlacement::Same, n), "{}", a.id);
        }
    }
}

#[test]
fn an_impossible_split_falls_back_to_free_and_says_why() {
    // One CPU for the whole collector: `split` cannot be had.
    let dir = scratch("placement-one-cpu");
    let out = Command::new("taskset")
        .args(["-c", "0"])
        .arg(e2e::collector_bin())
        .args(ARGS)
        .args(["--placement", "split", "--out"])
        .arg(&dir)
        .output()
        .expect("taskset runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--placement split"),
        "said on stderr: {stderr}"
    );
    let e = read_evidence(&dir);
    let run = e.run.settings.placement.as_ref().unwrap();
    assert_eq!(
        (run.asked, run.applied),
        (CpuPlacement::Split, CpuPlacement::Free)
    );
    assert_eq!(run.available_cpus, vec![0]);
    let why = run.reason.as_deref().unwrap();
    assert!(why.contains("at least 2 CPUs"), "{why}");
    assert!(e.run.settings.extra["cpu_placement"].contains("asked split"));
    // Free asks nothing, so there is no control, and on one CPU every connection shares it.
    assert!(e.arms.iter().all(|a| a.control_of.is_none()));
    for a in &e.arms {
        let n = all_observed(a);
        let p = a.placement.as_ref().unwrap();
        assert_eq!((p.asked, p.same_cpu), (CpuPlacement::Free, n), "{}", a.id);
    }
}

#[test]
fn a_peer_server_process_runs_on_the_servers_cpus() {
    const TEST: &str = "a_peer_server_process_runs_on_the_servers_cpus";
    if !two_cpus(TEST) || !e2e::needs_tool(TEST, "nginx") {
        return;
    }
    let dir = scratch("placement-nginx");
    let e = run_ok(
        &[
            "run",
            "--quick",
            "--no-floor",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
            "--arms",
            "rustls-vs-nginx-tls13",
            "--peer-samples",
            "20",
            "--placement",
            "split",
        ],
        &dir,
    );
    let nginx: Vec<&Arm> = e
        .arms
        .iter()
        .filter(|a| a.server_stack == shared::Stack::Nginx && a.latency_us.is_some())
        .collect();
    assert!(!nginx.is_empty(), "nginx arms ran");
    for a in nginx {
        let n = all_observed(a);
        let p = a.placement.as_ref().unwrap();
        assert_eq!((p.asked, p.same_cpu), (CpuPlacement::Split, 0), "{}", a.id);
        assert!(n > 0);
        assert!(p.sampled_by.contains("/proc"), "{}", p.sampled_by);
    }
}
