//! The control channel against idle, unauthenticated, concurrent and flooding clients,
//! over real sockets on loopback.

use std::io::{Read, Write};

use super::*;
use crate::arms::{tcp, SessionOptions};
use crate::certs::CertStore;
use crate::evidence::environment;
use crate::remote::client::Remote;
use crate::remote::secure;
use crate::remote::wire::PROTOCOL_VERSION;
use rustls::RootCertStore;
use shared::CertKind;

const TOKEN: &str = "00112233445566778899aabbccddeeff";

/// The run's certificates (one kind is enough for the control channel).
fn certs() -> CertStore {
    CertStore::generate([CertKind::EcdsaP256]).unwrap()
}

fn roots(certs: &CertStore) -> RootCertStore {
    let mut roots = RootCertStore::empty();
    roots
        .add(certs.get(CertKind::EcdsaP256).unwrap().ca.clone())
        .unwrap();
    roots
}

/// A control listener with the TCP arm's server behind it; returns its address and
/// the CA the client must trust.
fn start() -> (SocketAddr, RootCertStore) {
    let certs = certs();
    let opts = SessionOptions::loopback(Duration::from_secs(2), false);
    let server = tcp::start_server(&opts).unwrap();
    let manifest = Manifest {
        protocol_version: PROTOCOL_VERSION,
        environment: environment::collect([0.0; 3]),
        request: false,
        arms: Vec::new(),
        leaves: Default::default(),
    };
    let state = Arc::new(Control {
        manifest,
        token: TOKEN.into(),
        io_timeout: Duration::from_secs(2),
        tls: secure::server_config(&certs, CertKind::EcdsaP256).unwrap(),
        servers: Mutex::new([("tcp".to_string(), server)].into()),
        connections: AtomicUsize::new(0),
    });
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || accept_control(listener, state));
    (addr, roots(&certs))
}

fn connect((addr, roots): &(SocketAddr, RootCertStore), token: &str) -> Result<Remote> {
    Remote::connect(*addr, token, roots.clone(), Duration::from_secs(3))
}

#[test]
fn an_idle_connection_does_not_block_a_client() {
    let addr = start();
    // `nc HOST PORT` and nothing more: before, it held the only session for good. The
    // kernel's accept queue is first in, first out: the server takes the idle connection
    // before ours, with no wait needed here.
    let _idle = TcpStream::connect(addr.0).unwrap();
    let remote = connect(&addr, TOKEN).expect("served beside the idle connection");
    assert_eq!(remote.manifest.protocol_version, PROTOCOL_VERSION);
}

#[test]
fn a_wrong_or_missing_token_is_refused() {
    let addr = start();
    for token in ["", "00112233445566778899aabbccddeefe", "x"] {
        let e = connect(&addr, token).err().expect("refused");
        assert!(format!("{e:#}").contains("wrong --token"), "{e:#}");
    }
    assert!(connect(&addr, TOKEN).is_ok());
}

#[test]
fn a_second_client_is_told_busy_until_the_first_is_done() {
    let addr = start();
    let first = connect(&addr, TOKEN).unwrap();
    let e = connect(&addr, TOKEN).err().expect("busy");
    assert!(format!("{e:#}").contains("busy"), "{e:#}");
    drop(first);
    let mut again = connect(&addr, TOKEN);
    for _ in 0..50 {
        if again.is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        again = connect(&addr, TOKEN);
    }
    again.expect("served once the first client left");
}

#[test]
fn a_flood_without_newline_is_cut_with_a_reason() {
    let (addr, roots) = start();
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut s = secure::client(secure::client_config(roots).unwrap(), tcp).unwrap();
    let zeros = vec![b'0'; 64 * 1024];
    // 4 MB of zeros: the server stops reading at 1 MB and answers.
    for _ in 0..64 {
        if s.write_all(&zeros).is_err() {
            break;
        }
    }
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.contains("longer than"), "{answer:?}");
}

#[test]
fn a_server_without_the_runs_ca_is_not_trusted() {
    // On the path, someone answering with a certificate of another CA (their own run's):
    // the client refuses before sending the token.
    let (addr, _) = start();
    let e = connect(&(addr, roots(&certs())), TOKEN)
        .err()
        .expect("refused");
    assert!(
        format!("{e:#}").to_lowercase().contains("certificate"),
        "{e:#}"
    );
}

#[test]
fn a_dripped_hello_is_cut_at_the_hello_deadline() {
    let (addr, _) = start();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    // A TLS record header, then a byte every 500 ms: every read is within the 10 s
    // read timeout, so only the deadline over the whole hello ends it.
    let started = Instant::now();
    let mut cut = false;
    for b in [0x16u8, 3, 1, 0x40, 0].iter().chain([0u8; 60].iter()) {
        if s.write_all(&[*b]).is_err() {
            cut = true;
            break;
        }
        let mut buf = [0u8; 64];
        match s.read(&mut buf) {
            Ok(0) => {
                cut = true;
                break;
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            _ => {
                cut = true;
                break;
            }
        }
    }
    assert!(cut, "held for {:?}", started.elapsed());
    assert!(started.elapsed() < HELLO_TIMEOUT + Duration::from_secs(5));
}

#[test]
fn a_plaintext_hello_gets_nothing() {
    let (addr, _) = start();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let hello = format!(
        "{{\"hello\":{{\"protocol_version\":{PROTOCOL_VERSION},\"token\":\"{TOKEN}\"}}}}\n"
    );
    s.write_all(hello.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    assert!(
        !text.contains("protocol_version"),
        "no manifest in clear: {text:?}"
    );
}

#[test]
fn reports_are_matched_by_address_and_port() {
    let opts = SessionOptions::loopback(Duration::from_secs(2), false);
    let server = tcp::start_server(&opts).unwrap();
    let ours = Some("127.0.0.1".parse().unwrap());
    let other = Some("127.0.0.2".parse().unwrap());
    let (_, port) = tcp::once(server.addr(), Duration::from_secs(2), false, false).unwrap();
    // The same port from another host is not this connection.
    let wrong = server.report_from(other, port, Duration::from_millis(500));
    assert!(wrong.is_err(), "{wrong:?}");
    let (_, port) = tcp::once(server.addr(), Duration::from_secs(2), false, false).unwrap();
    assert_eq!(
        server
            .report_from(ours, port, Duration::from_secs(2))
            .unwrap(),
        None
    );
}
