//! The server stacks end to end, with the real nginx, Caddy and GnuTLS tools (Debian's
//! `nginx`, `caddy`, `gnutls-bin`; `cargo xtask test` installs them): resumed arms resume
//! on every connection, on both ends where the server tells; nginx with resumption off
//! makes its resumed arms errors and the run exit 3; a stack not on PATH is skipped.

use std::path::{Path, PathBuf};
use std::process::Output;

use std::process::{Command, Stdio};
use std::time::Duration;

use e2e::{collector, interrupt, read_evidence, scratch};
use shared::{Arm, ArmKind, ComparisonKind, Evidence, Mode, Stack, Verified};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A quick run of `arms` (rsa2048, x25519, 20 connections per latency arm) with its own
/// TMPDIR; returns the output, the results folder and the TMPDIR.
fn run(name: &str, arms: &str, extra: &[&str], path: Option<&Path>) -> (Output, PathBuf, PathBuf) {
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
        "--groups",
        "x25519",
    ])
    .args([
        "--arms",
        arms,
        "--peer-samples",
        "20",
        "--peer-seconds",
        "0.4",
    ])
    .args(["--peer-slices", "2", "--out"])
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

fn speedup_of(e: &Evidence, id: &str) -> bool {
    e.comparisons
        .iter()
        .any(|c| c.kind == ComparisonKind::ResumeSpeedup && c.candidate == id)
}

/// Every resumed latency arm resumed on all 20 connections, by the client's count and
/// (`server`: where the stack tells) by the server's own; full arms on none.
fn resumed_everywhere(e: &Evidence, prefix: &str, server_tells: bool) {
    let arms: Vec<&Arm> = e.arms.iter().filter(|a| a.id.starts_with(prefix)).collect();
    assert!(
        arms.len() >= 4,
        "{prefix}: {:?}",
        arms.iter().map(|a| &a.id).collect::<Vec<_>>()
    );
    for a in arms.into_iter().filter(|a| a.skipped.is_none()) {
        assert_eq!(a.error, None, "{}", a.id);
        assert_eq!(a.succeeded, 20, "{}", a.id);
        let want = if a.mode == Mode::Resumed { 20 } else { 0 };
        let server = if server_tells { want } else { 0 };
        assert_eq!(
            (a.resumed.client, a.resumed.server),
            (want, server),
            "{}",
            a.id
        );
        let kinds = a.handshake_kinds.expect("handshake kinds");
        if server_tells {
            assert_eq!(
                kinds.server.resumed + kinds.server.full,
                20,
                "{}: {kinds:?}",
                a.id
            );
        }
        if a.mode == Mode::Resumed {
            assert!(speedup_of(e, &a.id), "{} has a resume speedup", a.id);
        }
        assert!(a.peer_version.is_some(), "{}", a.id);
    }
}

#[test]
fn nginx_resumes_on_both_ends_and_resumption_off_is_an_error() {
    let (out, dir, tmp) = run("servers-nginx", "vs-nginx", &["--require-peers"], None);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    resumed_everywhere(&e, "rustls-vs-nginx-", true);
    let a = arm(&e, "rustls-vs-nginx-tls12-resumed-stateful-rsa2048-x25519");
    assert_eq!(
        (a.client_stack, a.server_stack, a.stack),
        (Stack::Rustls, Stack::Nginx, Stack::Nginx)
    );
    assert!(
        a.peer_version.as_deref().unwrap().starts_with("nginx/"),
        "{:?}",
        a.peer_version
    );
    // s_time against nginx: every -reuse connection resumed, and nginx's log says so too.
    for v in ["tls13", "tls12"] {
        let reuse = arm(&e, &format!("s_time-{v}-reuse-www-rsa2048-x25519-vs-nginx"));
        assert_eq!(reuse.kind(), ArmKind::Rate);
        assert_eq!(reuse.error, None, "{}", reuse.id);
        let n = reuse.rate.as_ref().unwrap().connections;
        assert!(n > 0 && reuse.resumed.client == n, "{}", reuse.id);
        let server = reuse.handshake_kinds.unwrap().server;
        assert!(
            server.resumed >= n,
            "nginx logged the resumptions: {server:?}"
        );
        let new = arm(&e, &format!("s_time-{v}-new-www-rsa2048-x25519-vs-nginx"));
        assert_eq!((new.error.as_ref(), new.resumed.client), (None, 0));
        assert_eq!(new.handshake_kinds.unwrap().server.resumed, 0);
    }
    assert!(e.run.settings.extra["peer_nginx"].contains("ssl_session_cache shared:hlab:1m"));
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the private folder is removed"
    );

    // nginx with ssl_session_cache off and tickets off: resumed arms are errors, exit 3.
    let (out, dir, _) = run(
        "servers-nginx-off",
        "rustls-vs-nginx-tls13,rustls-vs-nginx-tls12-resumed-stateful",
        &["--nginx-resumption-off"],
        None,
    );
    assert_eq!(out.status.code(), Some(3), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    for id in [
        "rustls-vs-nginx-tls13-resumed-stateful-rsa2048-x25519",
        "rustls-vs-nginx-tls13-resumed-ticket-rsa2048-x25519",
        "rustls-vs-nginx-tls12-resumed-stateful-rsa2048-x25519",
    ] {
        let a = arm(&e, id);
        let err = a
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("{id} has no error"));
        assert!(
            err.contains("client reported a full handshake")
                && err.contains("server reported a full handshake"),
            "{id}: {err}"
        );
        assert_eq!((a.resumed.client, a.resumed.server), (0, 0), "{id}");
        assert!(
            !speedup_of(&e, id),
            "{id}: no speedup from connections that did not resume"
        );
    }
    let full = arm(&e, "rustls-vs-nginx-tls13-full-rsa2048-x25519");
    assert_eq!(full.error, None);
    assert!(e.run.settings.extra["peer_nginx"].contains("ssl_session_cache off"));
}

#[test]
fn caddy_resumes_by_the_clients_count_and_says_the_server_is_unverified() {
    let (out, dir, tmp) = run(
        "servers-caddy",
        "rustls-vs-caddy",
        &["--require-peers"],
        None,
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    resumed_everywhere(&e, "rustls-vs-caddy-", false);
    // The summary prints the client's count and "-" for the server, never "20/0".
    let stdout = text(&out.stdout);
    let row = stdout
        .lines()
        .find(|l| l.starts_with("rustls-vs-caddy-tls13-resumed-ticket-rsa2048-x25519 "))
        .unwrap_or_else(|| panic!("no summary row: {stdout}"));
    assert!(row.contains(" 20/- "), "{row}");
    for a in e
        .arms
        .iter()
        .filter(|a| a.id.starts_with("rustls-vs-caddy-"))
    {
        assert_eq!(
            (a.client_stack, a.server_stack),
            (Stack::Rustls, Stack::Caddy)
        );
        assert!(a.timed_window.contains("unverified"), "{}", a.id);
        assert_eq!(a.verified, Some(Verified::CLIENT_ONLY), "{}", a.id);
        assert!(
            a.peer_version.as_deref().unwrap().starts_with("Caddy"),
            "{:?}",
            a.peer_version
        );
    }
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the private folder is removed"
    );
}

#[test]
fn haproxy_resumes_on_both_ends_from_its_log() {
    let (out, dir, tmp) = run(
        "servers-haproxy",
        "rustls-vs-haproxy",
        &["--require-peers"],
        None,
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    resumed_everywhere(&e, "rustls-vs-haproxy-", true);
    for a in e
        .arms
        .iter()
        .filter(|a| a.id.starts_with("rustls-vs-haproxy-"))
    {
        assert_eq!(
            (a.client_stack, a.server_stack),
            (Stack::Rustls, Stack::Haproxy)
        );
        assert_eq!(a.verified, Some(Verified::BOTH), "{}", a.id);
        assert!(
            a.peer_version.as_deref().unwrap().starts_with("HAProxy"),
            "{:?}",
            a.peer_version
        );
    }
    let stdout = text(&out.stdout);
    assert!(
        stdout.lines().any(|l| l
            .starts_with("rustls-vs-haproxy-tls12-resumed-stateful-rsa2048-x25519 ")
            && l.contains(" 20/20 ")),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the private folder is removed"
    );
}

#[test]
fn botan_resumes_tls12_by_the_clients_count_and_says_the_server_is_unverified() {
    let (out, dir, tmp) = run(
        "servers-botan",
        "rustls-vs-botan",
        &["--require-peers"],
        None,
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    resumed_everywhere(&e, "rustls-vs-botan-", false);
    for a in e
        .arms
        .iter()
        .filter(|a| a.id.starts_with("rustls-vs-botan-"))
    {
        assert_eq!(
            (a.client_stack, a.server_stack),
            (Stack::Rustls, Stack::BotanServer)
        );
        if a.id.starts_with("rustls-vs-botan-tls13-") {
            assert!(
                a.skipped.as_deref().unwrap().contains("no TLS 1.3"),
                "{}",
                a.id
            );
            continue;
        }
        assert_eq!(a.verified, Some(Verified::CLIENT_ONLY), "{}", a.id);
        assert!(
            a.peer_version.as_deref().unwrap().starts_with("Botan"),
            "{:?}",
            a.peer_version
        );
    }
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the private folder is removed"
    );
}

#[test]
fn gnutls_resumes_on_both_ends_and_gnutls_cli_checks_without_timing() {
    let (out, dir, _) = run("servers-gnutls", "gnutls", &["--require-peers"], None);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    resumed_everywhere(&e, "rustls-vs-gnutls-serv-", true);
    let stateful13 = arm(
        &e,
        "rustls-vs-gnutls-serv-tls13-resumed-stateful-rsa2048-x25519",
    );
    assert!(stateful13
        .skipped
        .as_deref()
        .unwrap()
        .contains("only from session tickets"));
    for id in [
        "gnutls-cli-tls13-resumed-stateful-rsa2048-x25519-vs-rustls",
        "gnutls-cli-tls12-resumed-stateful-rsa2048-x25519-vs-rustls",
        "gnutls-cli-tls13-resumed-ticket-rsa2048-x25519-vs-gnutls-serv",
        "gnutls-cli-tls12-resumed-ticket-rsa2048-x25519-vs-gnutls-serv",
    ] {
        let a = arm(&e, id);
        assert_eq!(a.kind(), ArmKind::Skipped, "{id}: {:?}", a.error);
        let why = a.skipped.as_deref().unwrap();
        assert!(why.starts_with("not timed"), "{why}");
        assert!(
            why.contains("5 of 5 gnutls-cli runs resumed")
                && why.contains("the server saw 5 resumed"),
            "{why}"
        );
        assert_eq!(a.client_stack, Stack::GnutlsCli);
    }
}

#[test]
fn a_server_stack_not_on_path_is_skipped_or_with_require_peers_an_error() {
    let empty = scratch("servers-empty-path-bin");
    let (out, dir, _) = run(
        "servers-missing",
        "vs-nginx,rustls-vs-caddy,gnutls",
        &[],
        Some(&empty),
    );
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let e = read_evidence(&dir);
    assert!(!e.arms.is_empty());
    for a in &e.arms {
        let why = a
            .skipped
            .as_deref()
            .unwrap_or_else(|| panic!("{} ran", a.id));
        let tool = match a.server_stack {
            Stack::Nginx => "`nginx`",
            Stack::Caddy => "`caddy`",
            _ => "`gnutls-",
        };
        assert!(
            why.contains(tool) && why.contains("not on PATH"),
            "{}: {why}",
            a.id
        );
    }
    let (out, _, _) = run(
        "servers-required",
        "rustls-vs-caddy",
        &["--require-peers"],
        Some(&empty),
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--require-peers") && stderr.contains("`caddy`"),
        "{stderr}"
    );
}

#[test]
fn ctrl_c_stops_nginx_and_removes_its_folder() {
    let base = scratch("servers-ctrl-c");
    let tmp = base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let child = collector()
        .args([
            "run",
            "--quick",
            "--no-floor",
            "--certs",
            "rsa2048",
            "--groups",
            "x25519",
        ])
        .args([
            "--arms",
            "rustls-vs-nginx",
            "--peer-samples",
            "1000000",
            "--out",
        ])
        .arg(base.join("results"))
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id().to_string();
    // Wait until an nginx is a child of the collector (its servers start before measuring).
    let nginx_children = || {
        let out = Command::new("pgrep")
            .args(["-P", &pid, "-x", "nginx"])
            .output()
            .unwrap();
        text(&out.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let mut waited = Duration::ZERO;
    while nginx_children().len() < 3 && waited < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
        waited += Duration::from_millis(100);
    }
    let children = nginx_children();
    assert!(
        children.len() >= 3,
        "one nginx per setup is running: {children:?}"
    );
    // At once: Ctrl-C while the servers start or while they serve must leave none behind.
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
    for c in children {
        assert!(
            !Path::new(&format!("/proc/{c}")).exists()
                || std::fs::read_to_string(format!("/proc/{c}/stat"))
                    .is_ok_and(|s| s.contains(") Z ")),
            "nginx {c} still running"
        );
    }
}
