//! `collector probe` against nginx on loopback, from a config the test writes: the
//! capability findings match the config (tickets and the session cache on or off, TLS
//! 1.2 disabled, the PQ group absent), and trust is a finding apart from capability (a
//! plain self-signed certificate is untrusted, its TLS 1.3 still found). Skipped, with a
//! printed line, where nginx is not installed.

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use e2e::probe_checks::{expect, run_probe_with, sound};
use e2e::tls_files::{make_certs, make_self_signed};
use e2e::{read_evidence, scratch};
use shared::{CertVerification, Evidence, Mode, Protocol, ServerProbe};

fn have_nginx(test: &str) -> bool {
    e2e::needs_tool(test, "nginx")
}

/// nginx in the foreground, one process, killed (by its pid) when dropped.
struct Nginx(Child);

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(dir: &Path, ssl: &str) -> (Nginx, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let d = dir.display();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    let conf = format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log info;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  client_body_temp_path {d}/tmp;\n  proxy_temp_path {d}/tmp;\n\
         fastcgi_temp_path {d}/tmp;\n  uwsgi_temp_path {d}/tmp;\n  scgi_temp_path {d}/tmp;\n\
         server {{\n    listen 127.0.0.1:{port} ssl;\n    ssl_certificate {d}/leaf.pem;\n\
         ssl_certificate_key {d}/leaf.key;\n    ssl_ecdh_curve X25519:prime256v1;\n    {ssl}\n\
         location / {{ return 200 \"ok\\n\"; }}\n  }}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    let child = Command::new("nginx")
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .arg("-p")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("nginx starts");
    let mut server = Nginx(child);
    e2e::wait_listening(
        &mut server.0,
        port,
        &format!("nginx ({ssl})"),
        Duration::from_secs(10),
    );
    (server, port)
}

fn probe(name: &str, ssl: &str) -> (Evidence, ServerProbe, PathBuf) {
    let (e, p, _, dir) = probe_with(name, ssl, make_certs, &[]);
    (e, p, dir)
}

/// nginx with the certificates `certs` writes (keys in the test's own 0700 folder),
/// probed with `more` arguments; the probe must succeed.
fn probe_with(
    name: &str,
    ssl: &str,
    certs: fn(&Path),
    more: &[&str],
) -> (Evidence, ServerProbe, Output, PathBuf) {
    let dir = scratch(name);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    certs(&dir);
    let (server, port) = start(&dir, ssl);
    let out = run_probe_with(&dir, port, more);
    drop(server);
    assert!(
        out.status.success(),
        "probe of nginx `{ssl}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir.join("results"));
    let p = e.probe.clone().expect("probe findings");
    (e, p, out, dir)
}

/// The findings line that starts with `trust:`, as the viewer reads it from the extra.
fn trust_line(e: &Evidence) -> String {
    let findings = &e.run.settings.extra["probe_findings"];
    findings
        .split(" · ")
        .find(|l| l.starts_with("trust: "))
        .unwrap_or_else(|| panic!("no trust line in {findings}"))
        .to_string()
}

/// What each timed TLS arm recorded about verification.
fn verification(e: &Evidence, p: &ServerProbe) -> Vec<(String, CertVerification)> {
    e.arms
        .iter()
        .filter(|a| a.protocol != Protocol::Tcp && a.skipped.is_none())
        .map(|a| {
            let v = p.verification.get(&a.id);
            (
                a.id.clone(),
                *v.unwrap_or_else(|| panic!("{}: no record", a.id)),
            )
        })
        .collect()
}

#[test]
fn nginx_with_a_shared_cache_and_tickets_resumes_every_way() {
    if !have_nginx("nginx_with_a_shared_cache_and_tickets_resumes_every_way") {
        return;
    }
    let (e, p, _) = probe(
        "probe-nginx-on",
        "ssl_protocols TLSv1.2 TLSv1.3;\n    ssl_session_cache shared:hlab:1m;\n    ssl_session_tickets on;",
    );
    expect(
        &p,
        &[
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
        ],
    );
    assert!(e
        .arms
        .iter()
        .filter(|a| a.mode == Mode::Resumed && !a.id.contains("0rtt"))
        .all(|a| a.latency_us.is_some()));
    // Signed by the CA it was given: trusted, and every timed TLS arm verified.
    assert_eq!(trust_line(&e), "trust: trusted");
    let t = p.certificate_trust.as_ref().unwrap();
    assert!(t.trusted && t.reason.is_none(), "{t:?}");
    let verified = verification(&e, &p);
    assert_eq!(verified.len(), 5, "{verified:?}");
    assert!(verified.iter().all(|v| v.1 == CertVerification::Webpki));
    sound(&e);
}

const SELF_SIGNED: &str =
    "ssl_protocols TLSv1.2 TLSv1.3;\n    ssl_session_cache shared:hlab:1m;\n    ssl_session_tickets on;";

#[test]
fn a_self_signed_ca_certificate_is_untrusted_and_its_tls13_still_found() {
    if !have_nginx("a_self_signed_ca_certificate_is_untrusted_and_its_tls13_still_found") {
        return;
    }
    // `openssl req -x509`'s certificate (CA:TRUE) passed as the root to trust: WebPKI
    // refuses a CA certificate as the server's own.
    let (e, p, out, _) = probe_with(
        "probe-nginx-self-signed",
        SELF_SIGNED,
        make_self_signed,
        &[],
    );
    expect(
        &p,
        &[
            ("tls1.3", true),
            ("tls1.2", true),
            ("x25519", true),
            ("tls1.3 tickets", true),
            ("tls1.2 session ids", true),
        ],
    );
    assert_eq!(
        trust_line(&e),
        "trust: untrusted: CA certificate used as end entity"
    );
    let t = p.certificate_trust.as_ref().unwrap();
    assert_eq!(
        (t.trusted, t.reason.as_deref()),
        (false, Some("CA certificate used as end entity"))
    );
    // Not timed unverified unasked: every TLS arm is skipped with the reason and the
    // way out; TCP connect is measured.
    for a in &e.arms {
        if a.protocol == Protocol::Tcp {
            assert!(a.latency_us.is_some(), "{}", a.id);
            continue;
        }
        let why = a.skipped.as_deref().unwrap_or("");
        assert!(
            why.starts_with("untrusted: CA certificate used as end entity; pass --insecure")
                || why.starts_with("0-rtt"),
            "{}: {why}",
            a.id
        );
    }
    assert!(p.verification.is_empty(), "{:?}", p.verification);
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --insecure"));
    sound(&e);
}

#[test]
fn insecure_times_an_untrusted_server_and_records_verification_off() {
    if !have_nginx("insecure_times_an_untrusted_server_and_records_verification_off") {
        return;
    }
    let (e, p, _, _) = probe_with(
        "probe-nginx-insecure",
        SELF_SIGNED,
        make_self_signed,
        &["--insecure"],
    );
    assert_eq!(
        trust_line(&e),
        "trust: untrusted: CA certificate used as end entity",
        "--insecure changes what is timed, not what is found"
    );
    let unverified = verification(&e, &p);
    assert_eq!(unverified.len(), 5, "{unverified:?}");
    assert!(unverified.iter().all(|v| v.1 == CertVerification::Skipped));
    for (id, _) in &unverified {
        let a = e.arms.iter().find(|a| &a.id == id).unwrap();
        assert!(a.latency_us.is_some(), "{id} was timed");
    }
    let extra = &e.run.settings.extra;
    assert!(
        extra["probe_certificate_verification"].starts_with("verification: off"),
        "{extra:?}"
    );
    assert!(e.run.command_line.iter().any(|a| a == "--insecure"));
    sound(&e);
}

#[test]
fn nginx_with_cache_and_tickets_off_resumes_no_way() {
    if !have_nginx("nginx_with_cache_and_tickets_off_resumes_no_way") {
        return;
    }
    let (e, p, _) = probe(
        "probe-nginx-off",
        "ssl_protocols TLSv1.2 TLSv1.3;\n    ssl_session_cache off;\n    ssl_session_tickets off;",
    );
    expect(
        &p,
        &[
            ("tls1.3", true),
            ("tls1.2", true),
            ("tls1.3 tickets", false),
            ("tls1.2 session ids", false),
            ("tls1.2 tickets", false),
        ],
    );
    for a in e.arms.iter().filter(|a| a.mode == Mode::Resumed) {
        assert!(
            a.skipped.is_some(),
            "{}: a resumption the server refuses is not measured",
            a.id
        );
    }
    sound(&e);
}

#[test]
fn nginx_with_tls12_off_gives_skipped_tls12_arms() {
    if !have_nginx("nginx_with_tls12_off_gives_skipped_tls12_arms") {
        return;
    }
    let (e, p, _) = probe(
        "probe-nginx-tls13",
        "ssl_protocols TLSv1.3;\n    ssl_session_cache shared:hlab:1m;\n    ssl_session_tickets off;",
    );
    expect(&p, &[("tls1.3", true), ("tls1.2", false)]);
    let tls12: Vec<_> = e
        .arms
        .iter()
        .filter(|a| a.protocol == Protocol::Tls12)
        .collect();
    assert_eq!(tls12.len(), 3);
    for a in tls12 {
        let why = a
            .skipped
            .as_deref()
            .unwrap_or_else(|| panic!("{} ran", a.id));
        assert!(why.starts_with("tls1.2: no ("), "{}: {why}", a.id);
    }
    sound(&e);
}
