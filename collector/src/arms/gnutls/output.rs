//! Reading what GnuTLS's tools print: whether `gnutls-cli --resume` resumed, and
//! `gnutls-serv`'s report of each connection it accepted (matched by the client's port).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::arms::rustls::www::ServerView;
use crate::arms::Handshake;

/// What one `gnutls-cli --resume` run printed about its second connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// `- Resume Handshake was completed` and `*** This is a resumed session`.
    Resumed,
    /// `- Resume Handshake was completed` without the resumed line: a full handshake.
    NotResumed,
    /// No second handshake completed (the run failed before it).
    NoSecondHandshake,
}

/// Parses `gnutls-cli --resume` output (stdout and stderr together).
pub fn cli_resume(text: &str) -> Resume {
    let Some(at) = text.find("- Resume Handshake was completed") else {
        return Resume::NoSecondHandshake;
    };
    if text[at..]
        .lines()
        .any(|l| l.trim() == "*** This is a resumed session")
    {
        Resume::Resumed
    } else {
        Resume::NotResumed
    }
}

/// One connection as `gnutls-serv` reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub port: u16,
    pub handshake: Handshake,
}

/// Parses `gnutls-serv`'s log into its complete connection blocks (a block is complete
/// once its `- Version:` line is printed), and returns the number of bytes consumed.
pub fn serv_blocks(text: &str) -> Result<(Vec<Accepted>, usize)> {
    let mut out = Vec::new();
    let mut consumed = 0;
    let mut current: Option<(u16, bool, Option<rustls::NamedGroup>)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        at += line.len();
        if !line.ends_with('\n') {
            break;
        }
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("* Accepted connection from ") {
            let port = rest
                .split_once(" port ")
                .and_then(|(_, p)| p.split_whitespace().next())
                .and_then(|p| p.parse::<u16>().ok())
                .with_context(|| format!("no client port in gnutls-serv's line {l:?}"))?;
            current = Some((port, false, None));
        } else if l == "*** This is a resumed session" {
            if let Some(c) = current.as_mut() {
                c.1 = true;
            }
        } else if let Some(curve) = l.strip_prefix("- Using curve: ") {
            if let Some(c) = current.as_mut() {
                c.2 = group(curve.trim());
            }
        } else if let Some(v) = l.strip_prefix("- Version: ") {
            let Some((port, resumed, kx_group)) = current.take() else {
                // The end of a block that began before the reader started.
                consumed = at;
                continue;
            };
            out.push(Accepted {
                port,
                handshake: Handshake::seen(
                    if resumed {
                        rustls::HandshakeKind::Resumed
                    } else {
                        rustls::HandshakeKind::Full
                    },
                    match v.trim() {
                        "TLS1.3" => Some(rustls::ProtocolVersion::TLSv1_3),
                        "TLS1.2" => Some(rustls::ProtocolVersion::TLSv1_2),
                        _ => None,
                    },
                    kx_group,
                ),
            });
            consumed = at;
        }
    }
    Ok((out, consumed))
}

/// GnuTLS's name for a group, as `gnutls-serv` prints it.
fn group(name: &str) -> Option<rustls::NamedGroup> {
    match name {
        "X25519" => Some(rustls::NamedGroup::X25519),
        "SECP256R1" => Some(rustls::NamedGroup::secp256r1),
        "SECP384R1" => Some(rustls::NamedGroup::secp384r1),
        _ => None,
    }
}

/// `gnutls-serv`'s log, read as it grows: the server's end of each connection.
pub struct ServLog {
    path: PathBuf,
    offset: u64,
    partial: String,
    pending: HashMap<u16, Handshake>,
    io_timeout: Duration,
}

impl ServLog {
    pub fn from_end(path: PathBuf, io_timeout: Duration) -> ServLog {
        let offset = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        ServLog {
            path,
            offset,
            partial: String::new(),
            pending: HashMap::new(),
            io_timeout,
        }
    }

    fn read(&mut self) -> Result<()> {
        let mut f = std::fs::File::open(&self.path)
            .with_context(|| format!("reading {}", self.path.display()))?;
        f.seek(SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        self.offset += bytes.len() as u64;
        self.partial.push_str(&String::from_utf8_lossy(&bytes));
        let (blocks, consumed) = serv_blocks(&self.partial)?;
        self.partial.drain(..consumed);
        for b in blocks {
            self.pending.insert(b.port, b.handshake);
        }
        Ok(())
    }
}

impl ServLog {
    /// Every connection reported since the last call, in no particular order.
    pub fn take_all(&mut self) -> Result<Vec<Handshake>> {
        self.read()?;
        Ok(self.pending.drain().map(|(_, h)| h).collect())
    }
}

impl ServerView for ServLog {
    fn connection(&mut self, port: u16) -> Result<Handshake> {
        let deadline = Instant::now() + self.io_timeout;
        loop {
            self.read()?;
            if let Some(h) = self.pending.remove(&port) {
                // Connections never overlap: other ports' blocks are of connections that
                // are over (failed ones), never claimed.
                self.pending.clear();
                return Ok(h);
            }
            if Instant::now() > deadline {
                bail!(
                    "gnutls-serv reported no connection from client port {port} within {:?}",
                    self.io_timeout
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Output recorded on this machine (GnuTLS 3.7.9; files in tests/data/gnutls).
    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/data/gnutls/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn gnutls_cli_says_whether_it_resumed() {
        assert_eq!(
            cli_resume(&fixture("cli-resumed-tls13.txt")),
            Resume::Resumed
        );
        assert_eq!(
            cli_resume(&fixture("cli-resumed-tls12.txt")),
            Resume::Resumed
        );
        // Against `gnutls-serv --noticket --nodb`: the second handshake is a full one.
        assert_eq!(
            cli_resume(&fixture("cli-not-resumed-tls13.txt")),
            Resume::NotResumed
        );
        assert_eq!(
            cli_resume("Connecting to '127.0.0.1:1'...\n*** Fatal error: Connection refused\n"),
            Resume::NoSecondHandshake
        );
        // The resumed line must follow the resume handshake, not an earlier connection.
        assert_eq!(
            cli_resume("*** This is a resumed session\n- Resume Handshake was completed\n"),
            Resume::NotResumed
        );
    }

    #[test]
    fn gnutls_serv_reports_each_connection_by_port() {
        let log = fixture("serv-tls13-tls12.log");
        let (blocks, consumed) = serv_blocks(&log).unwrap();
        let seen: Vec<(u16, bool, Option<rustls::ProtocolVersion>)> = blocks
            .iter()
            .map(|b| {
                (
                    b.port,
                    b.handshake.kind == rustls::HandshakeKind::Resumed,
                    b.handshake.protocol,
                )
            })
            .collect();
        use rustls::ProtocolVersion::{TLSv1_2, TLSv1_3};
        assert_eq!(
            seen,
            [
                (60908, false, Some(TLSv1_3)),
                (60920, true, Some(TLSv1_3)),
                (60928, false, Some(TLSv1_2)),
                (60942, true, Some(TLSv1_2)),
            ]
        );
        assert!(blocks
            .iter()
            .all(|b| b.handshake.kx_group == Some(rustls::NamedGroup::X25519)));
        // Everything up to the last block's version line is consumed, no more.
        assert!(log[consumed..].contains("Cipher") && !log[consumed..].contains("* Accepted"));
        // A block cut before its version line is not reported yet.
        let cut = &log[..log.find("- Version: TLS1.2").unwrap()];
        assert_eq!(serv_blocks(cut).unwrap().0.len(), 2);
    }
}
