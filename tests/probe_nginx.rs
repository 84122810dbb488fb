//! `collector probe` against nginx on loopback, from a config the test writes: the
//! capability findings match the config (tickets and the session cache on or off, TLS
//! 1.2 disabled, the PQ group absent). Skipped, with a printed line, where nginx is not
//! installed.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use e2e::probe_checks::{expect, run_probe, sound};
use e2e::tls_files::make_certs;
use e2e::{read_evidence, scratch};
use shared::{Evidence, Mode, Protocol, ServerProbe};

fn have_nginx(test: &str) -> bool {
    let found = Command::new("nginx").arg("-v").output().is_ok();
    if !found {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "SKIPPED: {test} needs nginx on PATH");
    }
    found
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
    let server = Nginx(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nginx never listened: {ssl}");
        std::thread::sleep(Duration::from_millis(50));
    }
    (server, port)
}

fn probe(name: &str, ssl: &str) -> (Evidence, ServerProbe, PathBuf) {
    let dir = scratch(name);
    make_certs(&dir);
    let (server, port) = start(&dir, ssl);
    let out = run_probe(&dir, port);
    drop(server);
    assert!(
        out.status.success(),
        "probe of nginx `{ssl}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir.join("results"));
    let p = e.probe.clone().expect("probe findings");
    (e, p, dir)
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
