//! nginx's own view of every connection: one access-log line per request, in the format
//! [`LOG_FORMAT`], read back and matched to the client's connection by its port.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};

pub use crate::arms::peer::port_log::{Line, PortLog};

/// The `log_format` the collector gives nginx: a marker, the client's port, then what
/// nginx's OpenSSL negotiated (`$ssl_session_reused` is `r` for a resumed session, `.`
/// otherwise; an empty variable is logged as `-`).
pub const LOG_FORMAT: &str =
    "hlab $remote_port $ssl_session_reused $ssl_protocol $ssl_curve $ssl_cipher";

/// Parses one line written with [`LOG_FORMAT`].
pub fn parse_line(line: &str) -> Result<Line> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let [marker, port, reused, protocol, curve, _cipher] = fields[..] else {
        bail!("not an access-log line of the collector's format: {line:?}");
    };
    if marker != "hlab" {
        bail!("not an access-log line of the collector's format: {line:?}");
    }
    let kind = match reused {
        "r" => rustls::HandshakeKind::Resumed,
        "." => rustls::HandshakeKind::Full,
        other => bail!("unexpected $ssl_session_reused {other:?} in {line:?}"),
    };
    Line::openssl(line, port, kind, protocol, openssl_group(curve))
}

/// The group OpenSSL names `name` (as `$ssl_curve` prints it), where the lab knows it.
pub fn openssl_group(name: &str) -> Option<rustls::NamedGroup> {
    match name {
        "X25519" | "x25519" => Some(rustls::NamedGroup::X25519),
        "prime256v1" | "P-256" | "secp256r1" => Some(rustls::NamedGroup::secp256r1),
        "secp384r1" | "P-384" => Some(rustls::NamedGroup::secp384r1),
        _ => None,
    }
}

/// nginx's access log, read as nginx appends to it.
pub type AccessLog = PortLog;

/// Reads nginx's access log at `path` from its current end on.
pub fn open(path: PathBuf, io_timeout: Duration) -> Result<AccessLog> {
    PortLog::from_end(path, io_timeout, "nginx", parse_line)
}

#[cfg(test)]
mod tests {
    use shared::KindCounts;

    use super::*;
    use crate::arms::rustls::www::ServerView;

    // Lines nginx 1.22.1 (OpenSSL 3.0.19) wrote on this machine with LOG_FORMAT (ECDSA
    // P-256 leaf; clients `openssl s_time -reuse -www` and `s_client -sess_out/-sess_in`).
    const TLS13_FULL: &str = "hlab 46168 . TLSv1.3 X25519 TLS_AES_256_GCM_SHA384";
    const TLS13_RESUMED: &str = "hlab 46186 r TLSv1.3 X25519 TLS_AES_256_GCM_SHA384";
    const TLS12_FULL_P256: &str = "hlab 40276 . TLSv1.2 prime256v1 ECDHE-ECDSA-AES256-GCM-SHA384";
    const TLS12_RESUMED_P256: &str =
        "hlab 40286 r TLSv1.2 prime256v1 ECDHE-ECDSA-AES256-GCM-SHA384";
    // An empty variable is logged as `-` (no such line from the collector's clients).
    const NO_TLS: &str = "hlab 40300 - - - -";

    #[test]
    fn recorded_lines_give_each_connections_server_view() {
        let full = parse_line(TLS13_FULL).unwrap();
        assert_eq!(full.port, 46168);
        assert_eq!(full.handshake.kind, rustls::HandshakeKind::Full);
        assert_eq!(
            full.handshake.protocol,
            Some(rustls::ProtocolVersion::TLSv1_3)
        );
        assert_eq!(full.handshake.kx_group, Some(rustls::NamedGroup::X25519));
        let resumed = parse_line(TLS13_RESUMED).unwrap();
        assert_eq!(resumed.handshake.kind, rustls::HandshakeKind::Resumed);
        let r12 = parse_line(TLS12_RESUMED_P256).unwrap();
        assert_eq!(
            (r12.port, r12.handshake.kind, r12.handshake.protocol),
            (
                40286,
                rustls::HandshakeKind::Resumed,
                Some(rustls::ProtocolVersion::TLSv1_2),
            )
        );
        let p256 = parse_line(TLS12_FULL_P256).unwrap();
        assert_eq!(p256.handshake.kind, rustls::HandshakeKind::Full);
        assert_eq!(p256.handshake.kx_group, Some(rustls::NamedGroup::secp256r1));
    }

    #[test]
    fn other_lines_are_refused() {
        for bad in [
            "",
            NO_TLS,
            "127.0.0.1 - - [01/Dec/2026:06:27:35 +0000] \"GET /x HTTP/1.0\" 200 1",
            "hlab 42594 r TLSv1.3 X25519",
            "hlab 99999 r TLSv1.3 X25519 TLS_AES_256_GCM_SHA384",
            "hlab 42594 yes TLSv1.3 X25519 TLS_AES_256_GCM_SHA384",
            "xlab 42594 r TLSv1.3 X25519 TLS_AES_256_GCM_SHA384",
        ] {
            assert!(parse_line(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_log_is_matched_by_port_and_counted() {
        let dir = crate::arms::peer::private_dir::PrivateDir::create().unwrap();
        let path = dir
            .write("access.log", format!("{TLS13_FULL}\n").as_bytes())
            .unwrap();
        let mut log = open(path.clone(), Duration::from_millis(200)).unwrap();
        let append = |text: &str| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(text.as_bytes()).unwrap();
        };
        // A line from before the reader started is not claimed.
        assert!(log.connection(46168).is_err());
        append(&format!("{TLS13_RESUMED}\n{TLS12_FULL_P256}\n"));
        let h = log.connection(40276).unwrap();
        assert_eq!(h.kind, rustls::HandshakeKind::Full);
        // 46186 came before 40276's connection and was left unclaimed: dropped.
        assert!(log.connection(46186).is_err());
        // A line still being written is read once complete.
        append("hlab 42610 r TLSv1.3 X25519 ");
        assert!(log.connection(42610).is_err());
        append("TLS_AES_256_GCM_SHA384\n");
        assert_eq!(
            log.connection(42610).unwrap().kind,
            rustls::HandshakeKind::Resumed
        );
        append(&format!("{TLS13_RESUMED}\n{TLS13_FULL}\n{TLS13_RESUMED}\n"));
        assert_eq!(
            log.kinds_since(3).unwrap(),
            KindCounts {
                full: 1,
                full_with_hello_retry: 0,
                resumed: 2
            }
        );
    }

    /// A slice's last line logged after its client exited is counted in that slice,
    /// not left to the next one.
    #[test]
    fn a_slices_late_lines_are_waited_for() {
        let dir = crate::arms::peer::private_dir::PrivateDir::create().unwrap();
        let path = dir.write("access.log", b"").unwrap();
        let mut log = open(path.clone(), Duration::from_secs(5)).unwrap();
        let late = {
            let path = path.clone();
            std::thread::spawn(move || {
                use std::io::Write;
                std::thread::sleep(Duration::from_millis(150));
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                f.write_all(format!("{TLS13_RESUMED}\n").as_bytes())
                    .unwrap();
            })
        };
        let this_slice = log.kinds_since(1).unwrap();
        late.join().unwrap();
        assert_eq!((this_slice.full, this_slice.resumed), (0, 1));
        log.skip_to_end().unwrap();
        assert_eq!(log.kinds_since(0).unwrap(), KindCounts::default());
    }
}
