//! Every control message survives the wire, and bad frames are refused with a reason.

use std::io::{BufReader, Cursor};

use super::*;
use crate::evidence::environment;

fn round_trip<T>(value: &T) -> T
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let mut bytes = Vec::new();
    send(&mut bytes, value).unwrap();
    assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1, "one line");
    assert_eq!(bytes.last(), Some(&b'\n'));
    let mut r = BufReader::new(Cursor::new(bytes));
    let back = receive(&mut r).unwrap().expect("a message");
    assert!(receive::<T>(&mut r).unwrap().is_none(), "then a clean end");
    back
}

fn manifest() -> Manifest {
    let spec = ArmSpec {
        kind: crate::arms::ArmKind::from_parts(crate::arms::Unpinned {
            protocol: Protocol::Tls13,
            mode: Mode::Resumed,
            resumption: Some(Resumption::Ticket),
            cert: Some(CertKind::EcdsaP256),
            group: Some(KxGroup::X25519),
            early_data: true,
        }),
        fault: Fault::None,
        phases: crate::arms::PhaseRecording::On,
        cpu: None,
    };
    Manifest {
        protocol_version: PROTOCOL_VERSION,
        environment: environment::collect([0.5, 0.25, 0.125]),
        request: true,
        arms: vec![ServedArm::new(&spec, 40001)],
        leaves: [(CertKind::EcdsaP256, vec![0x30, 0x82, 0, 255])].into(),
    }
}

#[test]
fn every_message_round_trips() {
    for request in [
        Request::Hello {
            protocol_version: PROTOCOL_VERSION,
            token: "0123abcd".into(),
        },
        Request::Report {
            arm: "tls13-resumed-ticket-ecdsa-p256-x25519".into(),
            port: 65535,
        },
    ] {
        assert_eq!(round_trip(&request), request);
    }
    let hello: HelloReply = Ok(manifest());
    assert_eq!(round_trip(&hello), hello);
    let refused: HelloReply = Err("busy".into());
    assert_eq!(round_trip(&refused), refused);
    let facts = WireFacts {
        kind: "resumed".into(),
        protocol: Some(0x0304),
        kx_group: Some(0x001d),
        cipher_suite: Some(0x1301),
        early_data: Some((true, false)),
    };
    let h = Handshake::try_from(round_trip(&facts)).unwrap();
    assert_eq!(h.kind, rustls::HandshakeKind::Resumed);
    assert_eq!(h.protocol, Some(rustls::ProtocolVersion::TLSv1_3));
    assert_eq!(h.kx_group, Some(rustls::NamedGroup::X25519));
    assert_eq!(
        h.cipher_suite,
        Some(rustls::CipherSuite::TLS13_AES_128_GCM_SHA256)
    );
    assert_eq!(h.early_data, Some((true, false)));
    for reply in [
        Ok(Some(facts)),
        Ok(None),
        Err("server side: no arm `x` is served here".to_string()),
    ] as [ReportReply; 3]
    {
        assert_eq!(round_trip(&reply), reply);
    }
}

fn receive_text(text: &[u8]) -> Result<Option<Request>> {
    receive(&mut BufReader::new(Cursor::new(text.to_vec())))
}

#[test]
fn malformed_frames_are_refused() {
    for bad in [
        &b"not json\n"[..],
        b"\"manifest\"\n", // protocol 1's first message
        b"{\"report\":{\"arm\":\"tcp\",\"port\":70000}}\n",
        b"{\"report\":{\"arm\":\"tcp\"}}\n",
        b"{\"hello\":{\"protocol_version\":2}}\n",
        b"\xff\xfe\n",
        b"{}\n",
    ] {
        let e = receive_text(bad).expect_err(&String::from_utf8_lossy(bad));
        assert!(format!("{e:#}").contains("malformed"), "{e:#}");
    }
    let e = receive_text(b"{\"report\":{\"arm\":\"tcp\",\"port\":1}}").unwrap_err();
    assert!(format!("{e:#}").contains("ended inside"), "{e:#}");
    let bad_kind = WireFacts {
        kind: "half".into(),
        protocol: None,
        kx_group: None,
        cipher_suite: None,
        early_data: None,
    };
    assert!(Handshake::try_from(bad_kind).is_err());
}

#[test]
fn oversized_frames_are_refused_without_reading_them_whole() {
    // An endless stream with no newline: refused once MAX_LINE bytes have been read,
    // the rest left unread (the reader is infinite, so reading it all would never end).
    let mut zeros = BufReader::new(std::io::repeat(b'0'));
    let e = receive::<Request>(&mut zeros).unwrap_err();
    assert!(format!("{e:#}").contains("longer than"), "{e:#}");
    // A frame just at the limit passes; one byte more does not.
    let pad = |n: usize| {
        let head = b"{\"report\":{\"arm\":\"".to_vec();
        let tail = b"\",\"port\":1}}\n".to_vec();
        let fill = n - head.len() - tail.len();
        [head, vec![b'a'; fill], tail].concat()
    };
    assert!(receive_text(&pad(MAX_LINE)).unwrap().is_some());
    let e = receive_text(&pad(MAX_LINE + 1)).unwrap_err();
    assert!(format!("{e:#}").contains("longer than"), "{e:#}");
}
