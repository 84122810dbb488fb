//! A guarded arm server against other hosts, a dripping peer and unclaimed reports.

use std::io::{Read, Write};
use std::net::SocketAddr;

use socket2::{Domain, Socket, Type};

use super::*;
use crate::arms::{tcp, ServerReport, SessionOptions};

const IO: Duration = Duration::from_secs(1);

fn local() -> Option<IpAddr> {
    Some("127.0.0.1".parse().unwrap())
}

/// A connection to `to` from the loopback address `from` (all of 127/8 is local).
fn connect_from(from: &str, to: SocketAddr) -> TcpStream {
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let src: SocketAddr = format!("{from}:0").parse().unwrap();
    s.bind(&src.into()).unwrap();
    s.connect(&to.into()).unwrap();
    let s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s
}

/// What the TCP arm's server sends first: its one byte, or nothing (closed unserved).
fn first_byte(s: &mut TcpStream) -> Option<u8> {
    let mut b = [0u8; 1];
    matches!(s.read(&mut b), Ok(1)).then_some(b[0])
}

#[test]
fn only_the_allowed_host_is_served() {
    let server = tcp::start_server(&SessionOptions::loopback(IO, false)).unwrap();
    server.guard(Duration::from_secs(5), local()).unwrap();
    let mut other = connect_from("127.0.0.2", server.addr());
    assert_eq!(
        first_byte(&mut other),
        None,
        "another host is closed unserved"
    );
    let mut ours = connect_from("127.0.0.1", server.addr());
    assert_eq!(first_byte(&mut ours), Some(b'x'));
    let our_port = ours.local_addr().unwrap().port();
    drop(ours);
    // Only our connection was reported; the other host's left no report. The one worker
    // serves connections in order and reports ours after our close: once ours is in, a
    // report of the other host's connection would have come before it.
    let mut reports = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !reports
        .iter()
        .any(|r: &ServerReport| r.peer_port == our_port)
    {
        assert!(Instant::now() < deadline, "no report of ours: {reports:?}");
        reports.extend(server.take_reports());
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0].peer_ip, local());
    // Between sessions nobody is served.
    server.guard(Duration::from_secs(5), None).unwrap();
    let mut late = connect_from("127.0.0.1", server.addr());
    assert_eq!(first_byte(&mut late), None);
}

#[test]
fn a_dripping_peer_is_cut_at_the_deadline() {
    let server = tcp::start_server(&SessionOptions::loopback(IO, false)).unwrap();
    server.guard(Duration::from_secs(2), local()).unwrap();
    let mut drip = connect_from("127.0.0.1", server.addr());
    assert_eq!(first_byte(&mut drip), Some(b'x'));
    // One byte every 300 ms: each read on the server succeeds well within its 1 s I/O
    // timeout, so only a deadline over the whole connection ends it.
    drip.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let started = Instant::now();
    let mut cut = false;
    while started.elapsed() < Duration::from_secs(15) {
        if drip.write_all(b"d").is_err() {
            cut = true;
            break;
        }
        let mut b = [0u8; 1];
        match drip.read(&mut b) {
            Ok(0) => {
                cut = true;
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            _ => {
                cut = true;
                break;
            }
        }
    }
    assert!(cut, "the dripping peer held the arm for 15 s");
    // The arm serves the next connection.
    let (_, port) = tcp::once(server.addr(), IO, false, false).unwrap();
    assert_eq!(server.report_for(port, IO * 2).unwrap(), None);
}

#[test]
fn unclaimed_reports_are_capped() {
    let server = tcp::start_server(&SessionOptions::loopback(IO, false)).unwrap();
    server.guard(Duration::from_secs(5), local()).unwrap();
    let extra = 50;
    for _ in 0..MAX_PENDING_REPORTS + extra {
        tcp::once(server.addr(), IO, false, false).unwrap();
    }
    // The one worker serves connections in order: once it has served one more, it is
    // done with (and has reported or dropped) every connection before.
    tcp::once(server.addr(), IO, false, false).unwrap();
    assert_eq!(server.take_reports().len(), MAX_PENDING_REPORTS);
    // Claimed, they make room again.
    let (_, port) = tcp::once(server.addr(), IO, false, false).unwrap();
    assert_eq!(server.report_for(port, IO * 2).unwrap(), None);
}
