//! Instructions per handshake, counted under valgrind's callgrind by the real collector:
//! the counted window proved on a loop of known length, a resumed arm whose ends still
//! resume under valgrind (and one that cannot, which gets no number), and a run without
//! valgrind that says so and goes on. Debug builds: one arm, few handshakes.
//!
//! Tests that need valgrind skip with a printed line where it is missing, except under
//! `cargo xtask test` and nextest ([`shared::testing::strict`]), where they fail.

use std::path::Path;
use std::process::Output;

use e2e::{collector, only_evidence_file, read_evidence, scratch};
use serde_json::Value;
use shared::{CountOutcome, Evidence, InstructionCounting, Mode};

const ARM: &str = "tls13-resumed-ticket-ecdsa-p256-x25519";

/// True when the test may run; where valgrind is missing it fails under `cargo xtask test`
/// and nextest, and skips with a visible line under a plain `cargo test`.
fn needs_valgrind(test: &str) -> bool {
    shared::testing::needs_tool(test, "valgrind")
}

/// Instructions counted in `windows` windows of `iterations` rounds each.
fn calibrate(iterations: u64, windows: u64) -> u64 {
    let out = counting()
        .args(["count-calibrate", "--iterations"])
        .arg(iterations.to_string())
        .arg("--windows")
        .arg(windows.to_string())
        .output()
        .expect("collector runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    v["total"].as_u64().expect("a count")
}

/// The window holds its own loop and nothing else: counts grow linearly with the loop's
/// length (the second step as large as the first, within 1%), and an empty window counts
/// a few instructions (the call), not the 100,000 uncounted rounds run before each one.
#[test]
fn the_counted_window_holds_a_loop_of_known_length_and_nothing_else() {
    if !needs_valgrind("the_counted_window_holds_a_loop_of_known_length_and_nothing_else") {
        return;
    }
    let (n, windows) = (20_000, 4);
    let [c0, c1, c2] = [0, n, 2 * n].map(|i| calibrate(i, windows) as f64 / windows as f64);
    let (first, second) = (c1 - c0, c2 - c1);
    assert!(
        (second - first).abs() <= 0.01 * first,
        "not linear: {c0} → {c1} → {c2} instructions per window"
    );
    assert!(
        first >= n as f64,
        "{first} instructions for {n} rounds: the loop is not in the window"
    );
    // Were the uncounted rounds (100,000 per window, as many instructions per round as
    // the counted ones) in the window, it would count at least that many.
    assert!(
        c0 < 1_000.0,
        "an empty window counted {c0} instructions: more than its own call"
    );
}

/// The collector with its counting phase on (the other e2e tests switch it off).
fn counting() -> std::process::Command {
    let mut c = collector();
    c.env_remove("HLAB_NO_INSTRUCTIONS");
    c
}

fn run(args: &[&str], dir: &Path, path: Option<&Path>) -> Output {
    let mut cmd = counting();
    cmd.args([
        "run",
        "--quick",
        "--no-peers",
        "--no-floor",
        "--samples",
        "2",
    ])
    .args(["--certs", "ecdsa-p256", "--groups", "x25519", "--arms", ARM])
    .args(args)
    .arg("--out")
    .arg(dir);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.output().expect("collector runs")
}

/// The run's counting phase, which must have run.
fn phase_of(e: &Evidence) -> &shared::CountingPhase {
    e.run
        .settings
        .instructions
        .as_ref()
        .and_then(InstructionCounting::phase)
        .unwrap_or_else(|| panic!("the phase ran: {:?}", e.run.settings.instructions))
}

fn resumed_arm(e: &Evidence) -> &shared::Arm {
    e.arms.iter().find(|a| a.id == ARM).expect("the arm")
}

/// The evidence also conforms to the JSON Schema `collector schema` prints (the tagged
/// outcome and phase included), checked by an independent validator.
fn conforms(dir: &Path) {
    let out = collector().arg("schema").output().unwrap();
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let text = std::fs::read_to_string(only_evidence_file(dir)).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn a_resumed_arm_still_resumes_on_both_ends_under_valgrind() {
    if !needs_valgrind("a_resumed_arm_still_resumes_on_both_ends_under_valgrind") {
        return;
    }
    let dir = scratch("instructions-resumed");
    let out = run(&["--instructions-handshakes", "3"], &dir, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir);
    let phase = phase_of(&e);
    assert_eq!((phase.handshakes_per_arm, phase.arms), (3, 1));
    let arm = resumed_arm(&e);
    assert_eq!(arm.mode, Mode::Resumed);
    let ins = arm.instructions.as_ref().expect("counted");
    let c = ins.counted().unwrap_or_else(|| panic!("{:?}", ins.outcome));
    assert_eq!(c.handshakes, 3);
    for end in [c.client.expect("client counted"), c.server] {
        assert_eq!(end.kinds.map(|k| k.resumed), Some(3), "{end:?}");
        assert!(end.total > 0);
    }
    conforms(&dir);
}

/// Servers that keep no session state cannot resume: the resumed arm's count fails and
/// carries no number (the timed arm is an error too: exit 3).
#[test]
fn a_resumed_arm_that_does_not_resume_gets_no_count() {
    if !needs_valgrind("a_resumed_arm_that_does_not_resume_gets_no_count") {
        return;
    }
    let dir = scratch("instructions-broken");
    let out = run(
        &["--instructions-handshakes", "2", "--break-resumption"],
        &dir,
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir);
    let ins = resumed_arm(&e).instructions.as_ref().expect("an outcome");
    assert!(
        matches!(&ins.outcome, CountOutcome::Failed { error } if !error.is_empty()),
        "{:?}",
        ins.outcome
    );
}

/// Without valgrind on PATH: one plain line, a run without counts that says why, exit 0.
#[test]
fn a_missing_valgrind_gives_a_plain_line_and_a_run_without_counts() {
    let dir = scratch("instructions-missing");
    let empty = scratch("instructions-missing-path");
    let out = run(&[], &dir, Some(&empty));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let e = read_evidence(&dir);
    assert!(
        matches!(&e.run.settings.instructions, Some(InstructionCounting::Skipped { reason }) if reason.contains("valgrind")),
        "{:?}",
        e.run.settings.instructions
    );
    assert!(e.arms.iter().all(|a| a.instructions.is_none()));
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("instructions per handshake not counted"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert_eq!(resumed_arm(&e).succeeded, 2, "the timed arm still ran");
}

/// The peer servers OpenSSL `s_server` and nginx are counted as whole processes, server
/// side only: every measured arm gets a count of the asked handshakes, labelled as such;
/// nginx's end reports each counted handshake's kind (its access log), s_server's does
/// not; and a resumed handshake costs the server fewer instructions than a full one
/// (no certificate, no signature), which s_server, reporting nothing, is held to.
#[test]
fn peer_servers_are_counted_as_whole_processes_server_side() {
    let name = "peer_servers_are_counted_as_whole_processes_server_side";
    if !["valgrind", "openssl", "nginx"]
        .iter()
        .all(|t| shared::testing::needs_tool(name, t))
    {
        return;
    }
    let dir = scratch("instructions-peers");
    let mut cmd = counting();
    cmd.args(["run", "--quick", "--no-floor", "--samples", "4"])
        .args(["--certs", "ecdsa-p256", "--groups", "x25519"])
        .args([
            "--arms",
            "tls13-full-ecdsa-p256-x25519*,rustls-vs-s_server-tls13-*,rustls-vs-nginx-tls13-*",
        ])
        .args(["--instructions-handshakes", "3"])
        .arg("--out")
        .arg(&dir);
    let out = cmd.output().expect("collector runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let e = read_evidence(&dir);
    let peers: Vec<&shared::Arm> = e
        .arms
        .iter()
        .filter(|a| a.id.starts_with("rustls-vs-"))
        .collect();
    let ids: Vec<&str> = peers.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(
        ids.len(),
        5,
        "s_server full and ticket, nginx full, stateful and ticket: {ids:?}"
    );
    let mut server_per = std::collections::BTreeMap::new();
    for a in &peers {
        let ins = a
            .instructions
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no count", a.id));
        assert_eq!(ins.scope, shared::CountScope::WholeProcess, "{}", a.id);
        assert_eq!(ins.build_profile, shared::BuildProfile::Release);
        let c = ins
            .counted()
            .unwrap_or_else(|| panic!("{}: {:?}", a.id, ins.outcome));
        assert_eq!((c.handshakes, c.client), (3, None), "{}", a.id);
        assert!(c.server.total > 0);
        let kinds = c.server.kinds;
        if a.id.contains("nginx") {
            let k = kinds.unwrap_or_else(|| panic!("{}: nginx reports its end", a.id));
            let (full, resumed) = if a.mode == Mode::Resumed {
                (0, 3)
            } else {
                (3, 0)
            };
            assert_eq!((k.full, k.resumed), (full, resumed), "{}", a.id);
        } else {
            assert_eq!(kinds, None, "{}: s_server reports nothing", a.id);
        }
        server_per.insert(a.id.clone(), c.server.per_handshake);
    }
    for stack in ["s_server", "nginx"] {
        let full = server_per[&format!("rustls-vs-{stack}-tls13-full-ecdsa-p256-x25519")];
        let ticket =
            server_per[&format!("rustls-vs-{stack}-tls13-resumed-ticket-ecdsa-p256-x25519")];
        assert!(
            ticket < full,
            "{stack}: a resumed handshake counted {ticket} instructions, a full one {full}"
        );
    }
    // The rustls arm is counted per end as before, beside them.
    let rustls = e
        .arms
        .iter()
        .find(|a| a.id == "tls13-full-ecdsa-p256-x25519")
        .and_then(|a| a.instructions.as_ref())
        .expect("the rustls arm is counted");
    assert_eq!(rustls.scope, shared::CountScope::Handshake);
    conforms(&dir);
}

/// A run of peer arms alone still counts their servers: the counting phase runs with no
/// rustls arm of its own (0 arms), and the s_server arm gets its whole-process count.
#[test]
fn a_run_of_peer_arms_alone_counts_their_servers() {
    let name = "a_run_of_peer_arms_alone_counts_their_servers";
    if !["valgrind", "openssl"]
        .iter()
        .all(|t| shared::testing::needs_tool(name, t))
    {
        return;
    }
    let dir = scratch("instructions-peers-alone");
    let arm = "rustls-vs-s_server-tls13-full-ecdsa-p256-x25519";
    let out = counting()
        .args(["run", "--quick", "--no-floor", "--samples", "4"])
        .args(["--certs", "ecdsa-p256", "--groups", "x25519", "--arms", arm])
        .args(["--instructions-handshakes", "2"])
        .arg("--out")
        .arg(&dir)
        .output()
        .expect("collector runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let e = read_evidence(&dir);
    let phase = phase_of(&e);
    assert_eq!((phase.arms, phase.handshakes_per_arm), (0, 2));
    let counted = e.arms.iter().find(|a| a.id == arm).expect("the arm");
    let ins = counted.instructions.as_ref().expect("a count");
    assert_eq!(ins.scope, shared::CountScope::WholeProcess);
    assert_eq!(
        ins.counted().map(|c| c.handshakes),
        Some(2),
        "{:?}",
        ins.outcome
    );
    conforms(&dir);
}
