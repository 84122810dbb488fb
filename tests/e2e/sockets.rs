//! Socket options as set, seen from outside the collector: a run leaves no TIME_WAIT.

use std::process::Command;

use e2e::{collector_bin, read_evidence, scratch};

/// `ip` with `args`, which must succeed.
fn ip(args: &[&str]) {
    let st = Command::new("ip").args(args).status().expect("ip runs");
    assert!(st.success(), "ip {args:?} failed");
}

/// Removes the namespace on drop, also when the test fails.
struct Netns(String);

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).status();
    }
}

/// A run in a network namespace of its own (so no other process's sockets count), then
/// `ss` in the same namespace: every socket closed with `SO_LINGER {on, 0}` leaves no
/// TIME_WAIT, and the evidence says the options were read back as set.
#[test]
fn a_run_leaves_no_time_wait_behind() {
    if !e2e::needs_root("a_run_leaves_no_time_wait_behind") {
        return;
    }
    let ns = Netns(format!("hlab-tw-{}", std::process::id()));
    ip(&["netns", "add", &ns.0]);
    ip(&["netns", "exec", &ns.0, "ip", "link", "set", "lo", "up"]);
    let dir = scratch("time-wait");
    let out = Command::new("ip")
        .args(["netns", "exec", &ns.0])
        .arg(collector_bin())
        .args([
            "run",
            "--no-peers",
            "--quick",
            "--samples",
            "30",
            "--certs",
            "ecdsa-p256",
            "--groups",
            "x25519",
            "--out",
        ])
        .arg(&dir)
        .output()
        .expect("the collector runs in the namespace");
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir);
    let connections: u64 = e.arms.iter().map(|a| a.attempted).sum();
    assert!(connections >= 30 * 7, "{connections} connections were made");
    let ss = Command::new("ip")
        .args(["netns", "exec", &ns.0, "ss", "-Htan", "state", "time-wait"])
        .output()
        .expect("ss runs");
    assert!(ss.status.success());
    let left = String::from_utf8_lossy(&ss.stdout);
    assert!(
        left.trim().is_empty(),
        "TIME_WAIT left after {connections} connections:\n{left}"
    );
    assert!(e.run.settings.tcp_nodelay && e.run.settings.so_linger_zero);
}
