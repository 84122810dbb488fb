//! The control channel against idle, unauthenticated, concurrent and flooding clients,
//! over real sockets on loopback.

use std::io::{Read, Write};

use super::*;
use crate::arms::{tcp, SessionOptions};
use crate::evidence::environment;
use crate::remote::client::Remote;
use crate::remote::wire::PROTOCOL_VERSION;

const TOKEN: &str = "00112233445566778899aabbccddeeff";

/// A control listener with the TCP arm's server behind it; returns its address.
fn start() -> SocketAddr {
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
        servers: Mutex::new([("tcp".to_string(), server)].into()),
        connections: AtomicUsize::new(0),
    });
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || accept_control(listener, state));
    addr
}

fn connect(addr: SocketAddr, token: &str) -> Result<Remote> {
    Remote::connect(addr, token, Duration::from_secs(3))
}

#[test]
fn an_idle_connection_does_not_block_a_client() {
    let addr = start();
    // `nc HOST PORT` and nothing more: before, it held the only session for good.
    let _idle = TcpStream::connect(addr).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let remote = connect(addr, TOKEN).expect("served beside the idle connection");
    assert_eq!(remote.manifest.protocol_version, PROTOCOL_VERSION);
}

#[test]
fn a_wrong_or_missing_token_is_refused() {
    let addr = start();
    for token in ["", "00112233445566778899aabbccddeefe", "x"] {
        let e = connect(addr, token).err().expect("refused");
        assert!(format!("{e:#}").contains("wrong --token"), "{e:#}");
    }
    assert!(connect(addr, TOKEN).is_ok());
}

#[test]
fn a_second_client_is_told_busy_until_the_first_is_done() {
    let addr = start();
    let first = connect(addr, TOKEN).unwrap();
    let e = connect(addr, TOKEN).err().expect("busy");
    assert!(format!("{e:#}").contains("busy"), "{e:#}");
    drop(first);
    let mut again = connect(addr, TOKEN);
    for _ in 0..50 {
        if again.is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        again = connect(addr, TOKEN);
    }
    again.expect("served once the first client left");
}

#[test]
fn a_flood_without_newline_is_cut_with_a_reason() {
    let addr = start();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
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
fn reports_are_matched_by_address_and_port() {
    let opts = SessionOptions::loopback(Duration::from_secs(2), false);
    let server = tcp::start_server(&opts).unwrap();
    let ours = Some("127.0.0.1".parse().unwrap());
    let other = Some("127.0.0.2".parse().unwrap());
    let (_, port) = tcp::once(server.addr(), Duration::from_secs(2), false).unwrap();
    // The same port from another host is not this connection.
    let wrong = server.report_from(other, port, Duration::from_millis(500));
    assert!(wrong.is_err(), "{wrong:?}");
    let (_, port) = tcp::once(server.addr(), Duration::from_secs(2), false).unwrap();
    assert_eq!(
        server
            .report_from(ours, port, Duration::from_secs(2))
            .unwrap(),
        None
    );
}
