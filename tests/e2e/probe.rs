//! `collector probe HOST:PORT` against `openssl s_server` on loopback, each server
//! configured one way, the findings held to that configuration. (The certificates are
//! made by `openssl req`, not by the collector, so the test trusts no code under test
//! for them.)

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use e2e::probe_checks::run_probe;
use e2e::tls_files::make_certs;
use e2e::{collector, read_evidence, scratch};
use shared::{Capability, Evidence, Protocol, ServerProbe, Stack};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// An `openssl s_server` with `extra` options, killed (by its pid) when dropped. Its
/// stdin stays open: without `-www` it would end at EOF on stdin.
struct SServer {
    child: Child,
    port: u16,
}

impl SServer {
    fn start(dir: &Path, extra: &[&str]) -> SServer {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new("openssl")
            .current_dir(dir)
            .args(["s_server", "-accept", &format!("127.0.0.1:{port}")])
            .args(["-cert", "leaf.pem", "-key", "leaf.key", "-quiet"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("openssl s_server starts");
        e2e::wait_listening(
            &mut child,
            port,
            &format!("s_server {extra:?}"),
            Duration::from_secs(10),
        );
        SServer { child, port }
    }
}

impl Drop for SServer {
    fn drop(&mut self) {
        let _ = self.child.stdin.take().map(|mut s| s.flush());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Probes `s_server` with `extra` options; the output and the scratch folder (the
/// certificates, and the evidence in `results/`).
fn probe(name: &str, extra: &[&str]) -> (Output, PathBuf) {
    let dir = scratch(name);
    make_certs(&dir);
    let server = SServer::start(&dir, extra);
    let out = run_probe(&dir, server.port);
    drop(server);
    (out, dir)
}

fn probe_ok(name: &str, extra: &[&str]) -> (Evidence, ServerProbe, String, PathBuf) {
    let (out, dir) = probe(name, extra);
    assert!(
        out.status.success(),
        "probe of s_server {extra:?} failed: {}\n{}",
        text(&out.stderr),
        text(&out.stdout)
    );
    let e = read_evidence(&dir.join("results"));
    let p = e.probe.clone().expect("a probe records its findings");
    (e, p, text(&out.stdout), dir)
}

fn cap<'a>(p: &'a ServerProbe, name: &str) -> &'a Capability {
    p.capability(name)
        .unwrap_or_else(|| panic!("no capability {name}"))
}

fn arm<'a>(e: &'a Evidence, prefix: &str) -> &'a shared::Arm {
    e.arms
        .iter()
        .find(|a| a.id.starts_with(prefix))
        .unwrap_or_else(|| panic!("no arm {prefix}*"))
}

/// Every measured arm is the rustls (or kernel TCP) client against a remote server,
/// sound, and given in RTT multiples; every resumed arm resumed on every connection.
fn check_measured_arms(e: &Evidence, p: &ServerProbe) {
    let rtt = arm(e, "tcp-connect").latency_us.unwrap().p50;
    assert_eq!(p.rtt_reference_us, Some(rtt));
    for a in &e.arms {
        assert_eq!(a.server_stack, Stack::Remote, "{}", a.id);
        if a.skipped.is_some() {
            continue;
        }
        assert_eq!(a.error, None, "{}", a.id);
        assert_eq!(a.succeeded, 10, "{}", a.id);
        let p50 = a.latency_us.unwrap().p50;
        assert_eq!(p.rtt_multiples[&a.id], p50 / rtt, "{}", a.id);
        assert!(a.rtt_measured_ms.is_some(), "{}: its own connect RTT", a.id);
        if a.mode == shared::Mode::Resumed {
            assert_eq!(a.resumed.client, a.succeeded, "{}", a.id);
        }
    }
}

#[test]
fn default_s_server_offers_both_versions_and_every_resumption_but_no_pq_group() {
    // -groups pins what the server accepts: no X25519MLKEM768, so the PQ group is absent
    // by configuration (whatever the OpenSSL version could do).
    let (e, p, stdout, dir) = probe_ok("probe-default", &["-www", "-groups", "X25519:P-256"]);
    assert_eq!(p.host, "localhost");
    assert_eq!(p.sni, "localhost");
    assert!(p.verified_on.contains("client end only"));
    for (name, want) in [
        ("tls1.3", true),
        ("tls1.2", true),
        ("x25519", true),
        ("secp256r1", true),
        ("secp384r1", false),
        ("x25519mlkem768", false),
        ("tls1.3 tickets", true),
        ("tls1.2 session ids", true),
        ("tls1.2 tickets", true),
        ("0-rtt offered", false),
        ("0-rtt accepted", false),
    ] {
        assert_eq!(cap(&p, name).supported, want, "{name}: {:?}", cap(&p, name));
    }
    assert_eq!(
        p.chain_certificates,
        Some(1),
        "s_server sends the leaf alone"
    );
    let leaf = std::fs::read_to_string(dir.join("leaf.pem")).unwrap();
    assert!(p.chain_bytes.unwrap() > 300 && (p.chain_bytes.unwrap() as usize) < leaf.len());
    assert!(p
        .signature_schemes
        .iter()
        .any(|s| s.starts_with("tls1.3: ECDSA_NISTP256")));
    assert!(p.findings.iter().any(|f| f.contains("x25519mlkem768 no")));
    assert!(e.run.settings.extra["probe_findings"].contains("tls1.2 tickets yes"));
    for id in [
        "tls13-full-",
        "tls12-full-",
        "tls13-resumed-ticket-",
        "tls12-resumed-stateful-",
        "tls12-resumed-ticket-",
    ] {
        assert!(arm(&e, id).latency_us.is_some(), "{id} measured");
    }
    let zero = arm(&e, "tls13-0rtt");
    assert!(
        zero.skipped.as_deref().unwrap().contains("0-rtt"),
        "{:?}",
        zero.skipped
    );
    check_measured_arms(&e, &p);
    assert!(stdout.contains("× RTT"), "{stdout}");
    // The file conforms to `collector schema`, checked by an independent validator.
    let schema = collector().arg("schema").output().unwrap();
    let schema: serde_json::Value = serde_json::from_slice(&schema.stdout).unwrap();
    let file = e2e::only_evidence_file(&dir.join("results"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(v["arms"][0]["server_stack"], "remote");
}

#[test]
fn no_ticket_leaves_tls12_session_ids_but_no_tls12_tickets() {
    let (e, p, _, _) = probe_ok("probe-no-ticket", &["-www", "-no_ticket"]);
    assert!(cap(&p, "tls1.2 session ids").supported);
    let tickets = cap(&p, "tls1.2 tickets");
    assert!(!tickets.supported);
    assert!(
        tickets.detail.contains("no RFC 5077 ticket"),
        "{}",
        tickets.detail
    );
    let arm12 = arm(&e, "tls12-resumed-ticket-");
    assert!(arm12.skipped.as_deref().unwrap().contains("tls1.2 tickets"));
    assert!(arm(&e, "tls12-resumed-stateful-").latency_us.is_some());
    check_measured_arms(&e, &p);
}

#[test]
fn tls12_disabled_gives_skipped_tls12_arms_with_the_reason() {
    let (e, p, _, _) = probe_ok("probe-no-tls12", &["-www", "-no_tls1_2"]);
    assert!(cap(&p, "tls1.3").supported);
    let v12 = cap(&p, "tls1.2");
    assert!(!v12.supported);
    assert!(v12.detail.contains("only tls1.2 offered"), "{}", v12.detail);
    let tls12: Vec<_> = e
        .arms
        .iter()
        .filter(|a| a.protocol == Protocol::Tls12)
        .collect();
    assert_eq!(
        tls12.len(),
        3,
        "full, session-id and ticket arms, all listed"
    );
    for a in tls12 {
        let why = a
            .skipped
            .as_deref()
            .unwrap_or_else(|| panic!("{} ran", a.id));
        assert!(why.starts_with("tls1.2: no ("), "{}: {why}", a.id);
        assert_eq!(a.attempted, 0);
    }
    check_measured_arms(&e, &p);
}

#[test]
fn early_data_enabled_gives_a_measured_0rtt_arm() {
    // s_server takes -early_data only without -www (it then echoes what it reads).
    let (e, p, _, _) = probe_ok("probe-early-data", &["-early_data"]);
    assert!(cap(&p, "0-rtt offered").supported);
    assert!(cap(&p, "0-rtt accepted").supported);
    let zero = arm(&e, "tls13-0rtt");
    let ed = zero.early_data.expect("early-data counts");
    assert_eq!((ed.offered, ed.accepted), (zero.succeeded, zero.succeeded));
    check_measured_arms(&e, &p);
}

#[test]
fn an_unreachable_server_is_an_error_and_no_evidence() {
    let dir = scratch("probe-unreachable");
    make_certs(&dir);
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = collector()
        .args(["probe", &format!("127.0.0.1:{port}"), "--sni", "localhost"])
        .args(["--ca", dir.join("ca.pem").to_str().unwrap()])
        .arg("--out")
        .arg(dir.join("results"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cannot be reached"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.join("results").join("index.json").exists());
}

#[test]
fn a_probe_needs_a_trust_choice() {
    let out = collector()
        .args(["probe", "localhost:443"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--ca"), "{}", text(&out.stderr));
}
