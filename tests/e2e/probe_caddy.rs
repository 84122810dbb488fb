//! `collector probe` against Caddy (Go's crypto/tls) on loopback, from a JSON config the
//! test writes (no automatic HTTPS, no admin endpoint): the capability findings match what
//! Go's server offers: tickets in both versions, no TLS 1.2 session-ID resumption (Go
//! keeps no server-side session cache), no 0-RTT, and the groups the config lists.
//! Skipped, with a printed line, where caddy is not installed.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use e2e::probe_checks::{expect, run_probe, sound};
use e2e::tls_files::make_certs;
use e2e::{read_evidence, scratch};
use shared::Mode;

/// Caddy in the foreground, killed (by its pid) when dropped.
struct Caddy(Child);

impl Drop for Caddy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn caddy_resumes_by_ticket_only_and_offers_no_early_data() {
    if !e2e::needs_tool(
        "caddy_resumes_by_ticket_only_and_offers_no_early_data",
        "caddy",
    ) {
        return;
    }
    let dir = scratch("probe-caddy");
    make_certs(&dir);
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conf = serde_json::json!({
        "admin": {"disabled": true, "config": {"persist": false}},
        "storage": {"module": "file_system", "root": dir.join("caddy-home")},
        "apps": {
            "http": {"servers": {"probe": {
                "listen": [format!("127.0.0.1:{port}")],
                "automatic_https": {"disable": true},
                "routes": [{"handle": [{"handler": "static_response", "status_code": 200, "body": "ok"}]}],
                "tls_connection_policies": [{
                    "certificate_selection": {"any_tag": ["probe"]},
                    "protocol_min": "tls1.2",
                    "protocol_max": "tls1.3",
                    "curves": ["x25519", "secp256r1"]
                }]
            }}},
            "tls": {
                "certificates": {"load_files": [{
                    "certificate": dir.join("leaf.pem"), "key": dir.join("leaf.key"), "tags": ["probe"]
                }]},
                "disable_ocsp_stapling": true
            }
        }
    });
    std::fs::write(dir.join("caddy.json"), conf.to_string()).unwrap();
    let home = dir.join("caddy-home");
    std::fs::create_dir_all(&home).unwrap();
    let server = Caddy(
        Command::new("caddy")
            .arg("run")
            .arg("--config")
            .arg(dir.join("caddy.json"))
            .env("HOME", &home)
            .env("XDG_DATA_HOME", &home)
            .env("XDG_CONFIG_HOME", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("caddy starts"),
    );
    let mut server = server;
    e2e::wait_listening(&mut server.0, port, "caddy", Duration::from_secs(20));
    let out = run_probe(&dir, port);
    drop(server);
    assert!(
        out.status.success(),
        "probe of caddy failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = read_evidence(&dir.join("results"));
    let p = e.probe.clone().expect("probe findings");
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
            ("tls1.2 tickets", true),
            ("tls1.2 session ids", false),
            ("0-rtt offered", false),
        ],
    );
    let resumed = e.arms.iter().filter(|a| a.mode == Mode::Resumed);
    for a in resumed.filter(|a| !a.id.contains("0rtt")) {
        let by_id = a.id.contains("stateful");
        assert_eq!(
            a.skipped.is_some(),
            by_id,
            "{}: tickets are measured, session IDs (which Go does not keep) are skipped",
            a.id
        );
    }
    sound(&e);
}
