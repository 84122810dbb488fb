//! Peer arms end to end, with the real `openssl` and `python3`: where the original lab's
//! method goes wrong (plain `s_time -reuse` under TLS 1.3), where it is done right, and
//! what happens when a tool is missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use e2e::{collector, interrupt, only_evidence_file, scratch};
use shared::{Arm, ArmKind, ComparisonKind, Evidence, Mode, RateBasis, Stack};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The one evidence file in `dir`, validated, and its raw text.
fn only_evidence(dir: &Path) -> (Evidence, String) {
    let raw = std::fs::read_to_string(only_evidence_file(dir)).unwrap();
    (Evidence::from_json(&raw).expect("evidence validates"), raw)
}

/// Runs the collector with its own TMPDIR (to check the private folder goes away).
fn run_peers(name: &str, extra: &[&str], path: Option<&Path>) -> (Output, PathBuf, PathBuf) {
    let dir = scratch(name);
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out_dir = dir.join("results");
    let mut cmd = collector();
    cmd.args([
        "run",
        "--quick",
        "--no-floor",
        "--certs",
        "rsa2048",
        "--out",
    ])
    .arg(&out_dir)
    .args(extra)
    .env("TMPDIR", &tmp);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    (cmd.output().expect("collector runs"), out_dir, tmp)
}

fn arm<'a>(e: &'a Evidence, id: &str) -> &'a Arm {
    e.arms
        .iter()
        .find(|a| a.id == id)
        .unwrap_or_else(|| panic!("no arm {id}"))
}

#[test]
fn peer_arms_show_where_s_time_goes_wrong_and_python_done_right() {
    let (out, dir, tmp) = run_peers(
        "peers-real",
        &[
            "--arms",
            "s_time-*-vs-s_server,s_time-*-vs-rustls,rustls-vs-s_server,python-",
            "--require-peers",
            "--peer-seconds",
            "0.6",
            "--peer-slices",
            "2",
            "--peer-samples",
            "40",
        ],
        None,
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "stderr: {stderr}");
    let (e, raw) = only_evidence(&dir);
    assert!(
        !raw.contains("PRIVATE KEY") && !raw.contains("BEGIN CERTIFICATE"),
        "no key or certificate material in evidence"
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the private folder is removed"
    );
    let names: Vec<&str> = e
        .environment
        .peers
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["openssl", "python3"]);
    assert!(e.environment.peers[0].version.starts_with("OpenSSL"));

    let rate_speedups = |id: &str| -> Vec<RateBasis> {
        e.comparisons
            .iter()
            .filter(|c| c.kind == ComparisonKind::ResumeRateSpeedup && c.candidate == id)
            .filter_map(|c| c.basis)
            .collect()
    };
    for server in ["s_server", "rustls"] {
        // Plain -reuse under TLS 1.3: no resumption, said so, no speedup.
        let plain = arm(
            &e,
            &format!("s_time-tls13-reuse-rsa2048-x25519-vs-{server}"),
        );
        assert_eq!(plain.kind(), ArmKind::Rate);
        assert!(plain.succeeded > 0);
        assert_eq!(plain.resumed.client, 0, "{}", plain.id);
        assert!(plain.error.is_some() && plain.known_pitfall.is_some());
        assert!(rate_speedups(&plain.id).is_empty());
        assert_eq!(plain.client_stack, Stack::OpensslSTime);
        assert!(plain
            .peer_version
            .as_deref()
            .unwrap()
            .starts_with("OpenSSL"));
        // With a read (-www), and under TLS 1.2, every connection resumes.
        for id in [
            format!("s_time-tls13-reuse-www-rsa2048-x25519-vs-{server}"),
            format!("s_time-tls12-reuse-rsa2048-x25519-vs-{server}"),
        ] {
            let a = arm(&e, &id);
            assert_eq!(a.error, None, "{id}");
            let rate = a.rate.as_ref().expect("a rate arm");
            assert!(rate.connections > 0 && rate.slices.len() == 2, "{id}");
            assert_eq!(a.resumed.client, rate.connections, "{id}");
            assert!(a.latency_us.is_none() && a.samples_us.is_empty());
            assert_eq!(
                rate_speedups(&id),
                [RateBasis::PerRealS, RateBasis::PerUserS],
                "{id}"
            );
            if server == "rustls" {
                let k = a.handshake_kinds.unwrap();
                assert!(
                    k.server.resumed >= rate.connections,
                    "the rustls server saw them: {k:?}"
                );
            }
        }
        for v in ["tls13", "tls12"] {
            let new = arm(&e, &format!("s_time-{v}-new-rsa2048-x25519-vs-{server}"));
            assert_eq!((new.error.as_ref(), new.resumed.client), (None, 0));
        }
    }
    // rustls client ↔ s_server: the client counts resumption; the server reports nothing.
    for (v, mode) in [
        ("tls13", "full"),
        ("tls13", "resumed-ticket"),
        ("tls12", "full"),
        ("tls12", "resumed-ticket"),
    ] {
        let a = arm(&e, &format!("rustls-vs-s_server-{v}-{mode}-rsa2048-x25519"));
        assert_eq!(a.error, None, "{}", a.id);
        assert_eq!(
            (a.client_stack, a.server_stack),
            (Stack::Rustls, Stack::OpensslSServer)
        );
        assert_eq!(a.succeeded, 40);
        let expect = if a.mode == Mode::Resumed { 40 } else { 0 };
        assert_eq!(
            (a.resumed.client, a.resumed.server),
            (expect, 0),
            "{}",
            a.id
        );
        assert!(a.timed_window.contains("no per-connection report"));
        // Its own interleaved loop (--quick: 5 rounds of 40 / 5 = 8), paired only
        // within it; a CI over its rounds.
        assert_eq!(a.samples_per_round, [8; 5], "{}", a.id);
        assert_eq!(a.round_group.as_deref(), Some("peer-s_server"));
        assert!(a.p50_ci95_us.is_some(), "{}", a.id);
    }
    // Python done right: session_reused on every connection, on both ends.
    for v in ["tls13", "tls12"] {
        let full = arm(&e, &format!("python-{v}-full-rsa2048"));
        let resumed = arm(&e, &format!("python-{v}-resumed-ticket-rsa2048"));
        assert_eq!((full.error.as_ref(), full.resumed.client), (None, 0));
        assert_eq!(resumed.error, None);
        assert_eq!(
            (
                resumed.succeeded,
                resumed.resumed.client,
                resumed.resumed.server
            ),
            (40, 40, 40)
        );
        assert_eq!(resumed.stack, Stack::PythonSsl);
        // The script reports its rounds: 5 of 8 connections (--quick, 40 samples).
        for a in [full, resumed] {
            assert_eq!(a.samples_per_round, [8; 5], "{}", a.id);
            assert_eq!(a.round_group.as_deref(), Some("peer-python"));
            assert!(a.p50_ci95_us.is_some(), "{}", a.id);
        }
        assert!(resumed.latency_us.is_some());
        assert!(resumed.peer_version.as_deref().unwrap().contains("OpenSSL"));
    }
    assert_eq!(arm(&e, "python-tcp-connect").succeeded, 40);
    assert!(e.run.settings.extra["peer_rate_ci_method"].contains("bootstrap over slices"));
}

#[test]
fn without_openssl_on_path_its_arms_are_skipped_and_evidence_is_valid() {
    // A PATH with nothing on it: neither openssl nor python3 is found.
    let empty = scratch("peers-empty-path-bin");
    let (out, dir, _) = run_peers(
        "peers-no-openssl",
        &["--arms", "s_time-tls12-new-rsa*,python-tcp"],
        Some(&empty),
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let (e, _) = only_evidence(&dir);
    assert_eq!(e.arms.len(), 3, "two s_time arms and the Python TCP arm");
    for a in &e.arms {
        assert_eq!(a.kind(), ArmKind::Skipped, "{}", a.id);
        assert_eq!(a.attempted, 0);
        let why = a.skipped.as_deref().unwrap();
        let tool = if a.id.starts_with("python") {
            "`python3`"
        } else {
            "`openssl`"
        };
        assert!(why.contains(tool) && why.contains("not on PATH"), "{why}");
    }
    assert!(e
        .environment
        .peers
        .iter()
        .all(|p| p.version.contains("not on PATH")));

    // --require-peers turns the missing tool into an error, before measuring.
    let (out, dir, _) = run_peers(
        "peers-required",
        &["--arms", "s_time-tls12-new-rsa*", "--require-peers"],
        Some(&empty),
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--require-peers") && stderr.contains("`openssl`"),
        "{stderr}"
    );
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().count() == 0);
}

#[test]
fn no_peers_runs_none_and_ctrl_c_leaves_nothing_behind() {
    let (out, dir, _) = run_peers("peers-off", &["--arms", "tcp-connect", "--no-peers"], None);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let (e, _) = only_evidence(&dir);
    assert!(
        e.arms.iter().all(|a| a.client_stack == Stack::KernelTcp),
        "only the rustls-side TCP arm"
    );

    // Ctrl-C during the s_time arms: the private folder and every peer process go away.
    let base = scratch("peers-ctrl-c");
    let tmp = base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let child = collector()
        .args([
            "run",
            "--quick",
            "--no-floor",
            "--certs",
            "rsa2048",
            "--arms",
            "s_time-",
            "--peer-seconds",
            "60",
            "--out",
        ])
        .arg(base.join("results"))
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    // Wait until the key folder exists (the tools were looked up before it is made) and
    // s_server / s_time (`openssl`) run as the collector's children.
    let children = || {
        text(
            &Command::new("pgrep")
                .args(["-P", &pid, "-x", "openssl"])
                .output()
                .unwrap()
                .stdout,
        )
    };
    let mut waited = Duration::ZERO;
    while (std::fs::read_dir(&tmp).unwrap().count() == 0 || children().trim().is_empty())
        && waited < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(100));
        waited += Duration::from_millis(100);
    }
    let children = children();
    assert!(!children.trim().is_empty(), "s_server / s_time are running");
    let out = interrupt(child);
    assert_eq!(
        out.status.code(),
        Some(130),
        "stderr: {}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "private folder removed"
    );
    for c in children.split_whitespace() {
        assert!(
            !Path::new(&format!("/proc/{c}")).exists()
                || std::fs::read_to_string(format!("/proc/{c}/stat"))
                    .is_ok_and(|s| s.contains(") Z ")),
            "peer process {c} still running"
        );
    }
}
