//! Emulated round trips at packet level (network namespaces + TUN delay line, as root):
//! the textbook round-trip pattern, measured, and nothing left behind.

use std::collections::HashMap;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use e2e::{collector, read_evidence, scratch};

const ARMS: &str = "tcp-connect,tls13-full-ecdsa-p256-x25519,tls13-resumed-stateful-ecdsa-p256-x25519,tls12-full-ecdsa-p256-x25519,tls12-resumed-stateful-ecdsa-p256-x25519,tls13-0rtt-ecdsa-p256-x25519";

/// One RTT run at a time: the measured path RTT and the round-trip pattern are checked
/// against 20 ms, and a second run's delay line on the same two cores would blur them.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn namespaces_of(pid: u32) -> Vec<String> {
    let out = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with(&format!("hlab-{pid}-")))
        .map(str::to_string)
        .collect()
}

/// Waits (up to 5 s) until the run `pid` has made its two namespaces.
fn wait_for_namespaces(pid: u32) {
    for _ in 0..100 {
        if namespaces_of(pid).len() == 2 {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the run did not make its two namespaces within 5 s");
}

fn assert_no_namespaces(pid: u32) {
    let left = namespaces_of(pid);
    assert!(left.is_empty(), "namespaces left behind: {left:?}");
}

/// Starts an RTT run of the arms above into `dir`.
fn spawn(dir: &std::path::Path, rtt: &str, samples: &str) -> Child {
    let args: Vec<String> = [
        "run",
        "--no-peers",
        "--rtt",
        rtt,
        "--samples",
        samples,
        "--warmup",
        "2",
        "--arms",
        ARMS,
        "--certs",
        "ecdsa-p256",
        "--groups",
        "x25519",
        "--no-floor",
        "--out",
        dir.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    collector()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("collector starts")
}

#[test]
fn twenty_ms_rtt_shows_the_textbook_round_trip_pattern() {
    if !e2e::needs_root("twenty_ms_rtt_shows_the_textbook_round_trip_pattern") {
        return;
    }
    let _serial = one_at_a_time();
    let dir = scratch("rtt-20");
    // 24 samples per arm in the default 10 rounds: medians that a few slow connections
    // do not move.
    let child = spawn(&dir, "20ms", "24");
    let pid = child.id();
    let out: Output = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_namespaces(pid);
    let e = read_evidence(&dir);
    // --warmup 2 over 10 rounds is one warm-up before each chunk: 10 done.
    assert_eq!((e.run.settings.warmup, e.run.settings.rounds), (10, 10));
    assert!(e.run.settings.extra.contains_key("warmup_asked"));
    for a in &e.arms {
        assert!(a.ttfb, "{}: an RTT arm's window is a TTFB", a.id);
        assert_eq!(a.warmup_attempted, Some(10), "{}", a.id);
    }
    let p50: HashMap<&str, f64> = e
        .arms
        .iter()
        .map(|a| {
            (
                a.id.strip_suffix("-rtt20ms").expect("ids carry the RTT"),
                a.latency_us.unwrap().p50,
            )
        })
        .collect();
    for a in &e.arms {
        assert_eq!(a.rtt_ms, Some(20.0));
        assert!(
            a.rtt_method.as_deref().unwrap().contains("SYN"),
            "the method says what it delays"
        );
        let measured = a.rtt_measured_ms.unwrap();
        assert!(
            (19.0..=24.0).contains(&measured),
            "{}: path RTT measured {measured} ms",
            a.id
        );
        assert!(
            a.timed_window.contains("first response byte"),
            "{}",
            a.timed_window
        );
        assert_eq!(a.error, None, "{}", a.id);
    }
    let zero_rtt = e
        .arms
        .iter()
        .find(|a| a.id.starts_with("tls13-0rtt"))
        .unwrap();
    let ed = zero_rtt.early_data.expect("early-data counts");
    assert_eq!((ed.offered, ed.accepted), (24, 24));

    // TTFB over TCP's own TTFB (connect + request/response), in round trips.
    let rtt_us = 20_000.0;
    let tcp = p50["tcp-connect"];
    assert!(
        (tcp / rtt_us - 2.0).abs() <= 0.4,
        "TCP TTFB is {} RTT",
        tcp / rtt_us
    );
    for (arm, extra) in [
        ("tls12-full-ecdsa-p256-x25519", 2.0),
        ("tls13-full-ecdsa-p256-x25519", 1.0),
        ("tls12-resumed-stateful-ecdsa-p256-x25519", 1.0),
        ("tls13-resumed-stateful-ecdsa-p256-x25519", 1.0),
        ("tls13-0rtt-ecdsa-p256-x25519", 0.0),
    ] {
        let got = (p50[arm] - tcp) / rtt_us;
        assert!(
            (got - extra).abs() <= 0.4,
            "{arm}: {got:.2} RTT over TCP, expected {extra}"
        );
    }
}

#[test]
fn ctrl_c_during_an_rtt_run_removes_the_namespaces() {
    if !e2e::needs_root("ctrl_c_during_an_rtt_run_removes_the_namespaces") {
        return;
    }
    let _serial = one_at_a_time();
    let dir = scratch("rtt-ctrl-c");
    let child = spawn(&dir, "50ms", "200");
    let pid = child.id();
    // Wait until the path exists, then interrupt.
    wait_for_namespaces(pid);
    std::thread::sleep(Duration::from_millis(1500));
    assert!(Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_namespaces(pid);
    assert!(!read_evidence(&dir).run.complete);
}

#[test]
fn a_second_signal_still_removes_the_namespaces() {
    if !e2e::needs_root("a_second_signal_still_removes_the_namespaces") {
        return;
    }
    let _serial = one_at_a_time();
    let dir = scratch("rtt-two-signals");
    let child = spawn(&dir, "50ms", "200");
    let pid = child.id();
    wait_for_namespaces(pid);
    // Two signals back to back: the second quits at once, skipping the destructors.
    for sig in ["-INT", "-TERM"] {
        assert!(Command::new("kill")
            .args([sig, &pid.to_string()])
            .status()
            .unwrap()
            .success());
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "the first signal's status; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_namespaces(pid);
}
