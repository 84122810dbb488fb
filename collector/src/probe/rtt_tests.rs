//! A probe through the emulated-RTT namespaces (root only): `openssl s_server` in the
//! server namespace, the probe's discovery and arms in the client namespace, 20 ms apart.

use std::process::{Command, Stdio};
use std::time::Duration;

use rustls::RootCertStore;
use shared::CertKind;

use super::*;
use crate::arms::peer::files::write_files;
use crate::arms::peer::private_dir::PrivateDir;
use crate::certs::CertStore;
use crate::netem::{DelayPath, SERVER_ADDR};

#[test]
fn a_probe_over_a_20ms_path_sees_the_round_trips() {
    if !shared::testing::needs_root("a_probe_over_a_20ms_path_sees_the_round_trips") {
        return;
    }
    // The run's own certificates (rcgen, in memory), written as PEM into a private
    // folder for s_server, as the peer stacks get them.
    let store = CertStore::generate([CertKind::EcdsaP256]).unwrap();
    let dir = PrivateDir::create().unwrap();
    let pem =
        write_files(&dir, &store, &[CertKind::EcdsaP256]).unwrap()[&CertKind::EcdsaP256].clone();
    let path =
        DelayPath::new(&std::sync::atomic::AtomicBool::new(false)).expect("the emulated path");
    path.set_rtt(Duration::from_millis(20)).unwrap();
    let port = 8443;
    let mut server = path
        .server
        .within(|| {
            Command::new("openssl")
                .args([
                    "s_server",
                    "-accept",
                    &format!("{SERVER_ADDR}:{port}"),
                    "-www",
                    "-quiet",
                ])
                .arg("-cert")
                .arg(&pem.cert)
                .arg("-key")
                .arg(&pem.key)
                .arg("-no_ticket")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
        })
        .unwrap()
        .expect("s_server starts in the server namespace");
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            path.client.enter().unwrap();
            let mut roots = RootCertStore::empty();
            roots
                .add(store.get(CertKind::EcdsaP256).unwrap().ca.clone())
                .unwrap();
            let target = Arc::new(Target {
                addr: (SERVER_ADDR, port).into(),
                name: remote::check_name("localhost").unwrap(),
                roots: Arc::new(roots),
                io_timeout: Duration::from_secs(5),
                pacer: Pacer::new(Duration::ZERO, 1000.0),
            });
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while (RemoteTcp {
                target: target.clone(),
            })
            .connect_once()
            .is_err()
            {
                assert!(
                    std::time::Instant::now() < deadline,
                    "s_server never listened"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            let d = discover::discover(&target).unwrap();
            let group = d.group[&Protocol::Tls13];
            let spec = |mode, resumption| ArmSpec {
                kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
                    protocol: Protocol::Tls13,
                    mode,
                    resumption,
                    cert: None,
                    group: Some(group),
                    early_data: false,
                }),
                fault: Fault::None,
                phases: PhaseRecording::Off,
                cpu: None,
            };
            let client = |resume| {
                Client::new(
                    target.clone(),
                    &[Protocol::Tls13],
                    Some(&[group]),
                    resume,
                    false,
                    Check::Verify,
                )
                .unwrap()
            };
            let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = vec![
                (
                    ArmSpec::TCP_CONNECT,
                    Box::new(RemoteTcp {
                        target: target.clone(),
                    }),
                ),
                (
                    spec(Mode::Full, None),
                    Box::new(RemoteSession {
                        client: client(Resume::Off),
                    }),
                ),
                (
                    spec(Mode::Resumed, Some(Resumption::Ticket)),
                    Box::new(RemoteSession {
                        client: client(Resume::Tls13),
                    }),
                ),
            ];
            let plan = Plan {
                samples: 3,
                warmup_per_chunk: 1,
                rounds: 1,
                seed: 1,
                request: false,
                trace_every: 0,
                noise: None,
            };
            let arms = measure::measure_sessions(
                &mut sessions,
                &plan,
                PROBE_LOOP,
                &AtomicBool::new(false),
            );
            (d, arms)
        })
        .join()
        .unwrap()
    });
    let _ = server.kill();
    let _ = server.wait();
    drop(dir);
    let (d, arms) = result;
    // What the server was configured with, found across the namespaces.
    assert!(d.offers("tls1.3").is_ok() && d.offers("tls1.2").is_ok());
    assert!(d.offers("tls1.3 tickets").is_ok());
    assert!(d.offers("tls1.2 session ids").is_ok());
    assert!(d.offers("tls1.2 tickets").is_err(), "-no_ticket");
    assert_eq!(arms.len(), 3);
    let p50 = |i: usize| arms[i].latency_us.unwrap().p50 / 1000.0;
    // TCP connect is one round trip; a TLS 1.3 handshake one more (full and resumed alike).
    assert!((19.0..30.0).contains(&p50(0)), "connect {} ms", p50(0));
    for i in [1, 2] {
        assert_eq!(arms[i].error, None, "{}", arms[i].id);
        assert!(
            p50(i) >= 38.0,
            "{}: {} ms is under two round trips",
            arms[i].id,
            p50(i)
        );
        assert!(arms[i].rtt_measured_ms.unwrap() >= 19.0);
    }
    assert_eq!(arms[2].resumed.client, 3);
}
