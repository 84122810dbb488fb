//! The control protocol between `collector serve` and `collector run --target`: one
//! JSON value per line, at most [`MAX_LINE`] bytes. The client says hello once with the
//! token `serve` printed and gets the manifest, then asks for the server's report on
//! each connection it made (keyed by its address and local port), so both ends are
//! checked per connection across hosts as on loopback.

use std::collections::BTreeMap;
use std::io::{BufRead, Read, Write};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use shared::{CertKind, Environment, KxGroup, Mode, Protocol, Resumption};

use crate::arms::{ArmKind, ArmSpec, Fault, Handshake, Unpinned};

/// Bumped when the protocol changes; both ends must agree. 2: `hello` with a token.
pub const PROTOCOL_VERSION: u32 = 2;

/// The longest control message, newline included (a manifest is a few tens of KB).
pub const MAX_LINE: usize = 1 << 20;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// The first message: answered with a [`HelloReply`].
    Hello {
        protocol_version: u32,
        token: String,
    },
    Report {
        arm: String,
        port: u16,
    },
}

/// The manifest, or why the session is refused (wrong token, busy, old protocol).
pub type HelloReply = std::result::Result<Manifest, String>;

/// What the server side offers.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub protocol_version: u32,
    pub environment: Environment,
    /// Whether the servers run in request/response mode (the client must match).
    pub request: bool,
    pub arms: Vec<ServedArm>,
    /// Each cert kind's leaf (public), so the client can check it on every connection.
    pub leaves: BTreeMap<CertKind, Vec<u8>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServedArm {
    pub id: String,
    pub port: u16,
    pub protocol: Protocol,
    pub mode: Mode,
    pub resumption: Option<Resumption>,
    pub cert: Option<CertKind>,
    pub kx_group: Option<KxGroup>,
    pub early_data: bool,
}

impl ServedArm {
    pub fn new(spec: &ArmSpec, port: u16) -> Self {
        ServedArm {
            id: spec.id(),
            port,
            protocol: spec.protocol(),
            mode: spec.mode(),
            resumption: spec.resumption(),
            cert: spec.cert(),
            kx_group: spec.kx_group(),
            early_data: spec.early_data(),
        }
    }

    pub fn spec(&self) -> ArmSpec {
        ArmSpec {
            kind: ArmKind::from_parts(Unpinned {
                protocol: self.protocol,
                mode: self.mode,
                resumption: self.resumption,
                cert: self.cert,
                group: self.kx_group,
                early_data: self.early_data,
            }),
            fault: Fault::None,
            // The client's moments are recorded; the server's stay on its host (another
            // clock), so a two-host arm has no decomposition.
            phases: crate::arms::PhaseRecording::On,
            cpu: None,
        }
    }
}

/// A handshake report on the wire (rustls's enums by their TLS code points).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct WireFacts {
    /// `full`, `full_with_hello_retry` or `resumed`.
    pub kind: String,
    pub protocol: Option<u16>,
    pub kx_group: Option<u16>,
    pub cipher_suite: Option<u16>,
    pub early_data: Option<(bool, bool)>,
}

impl From<&Handshake> for WireFacts {
    fn from(h: &Handshake) -> Self {
        WireFacts {
            kind: match h.kind {
                rustls::HandshakeKind::Full => "full",
                rustls::HandshakeKind::FullWithHelloRetryRequest => "full_with_hello_retry",
                rustls::HandshakeKind::Resumed => "resumed",
            }
            .into(),
            protocol: h.protocol.map(u16::from),
            kx_group: h.kx_group.map(u16::from),
            cipher_suite: h.cipher_suite.map(u16::from),
            early_data: h.early_data,
        }
    }
}

impl TryFrom<WireFacts> for Handshake {
    type Error = anyhow::Error;
    fn try_from(w: WireFacts) -> Result<Self> {
        let kind = match w.kind.as_str() {
            "full" => rustls::HandshakeKind::Full,
            "full_with_hello_retry" => rustls::HandshakeKind::FullWithHelloRetryRequest,
            "resumed" => rustls::HandshakeKind::Resumed,
            other => bail!("unknown handshake kind `{other}` from the server"),
        };
        // No trace: another host's clock, its phase timestamps cannot be set against ours.
        Ok(Handshake {
            cipher_suite: w.cipher_suite.map(rustls::CipherSuite::from),
            early_data: w.early_data,
            ..Handshake::seen(
                kind,
                w.protocol.map(rustls::ProtocolVersion::from),
                w.kx_group.map(rustls::NamedGroup::from),
            )
        })
    }
}

/// `Ok(Some(facts))`, `Ok(None)` (plain TCP) or the server's error.
pub type ReportReply = std::result::Result<Option<WireFacts>, String>;

pub fn send(w: &mut impl Write, value: &impl Serialize) -> Result<()> {
    let mut line = serde_json::to_vec(value)?;
    line.push(b'\n');
    w.write_all(&line)?;
    w.flush()?;
    Ok(())
}

/// Reads one line of at most [`MAX_LINE`] bytes; None at a clean end of stream.
pub fn receive<T: for<'de> Deserialize<'de>>(r: &mut impl BufRead) -> Result<Option<T>> {
    receive_within(r, MAX_LINE)
}

fn receive_within<T: for<'de> Deserialize<'de>>(
    r: &mut impl BufRead,
    max: usize,
) -> Result<Option<T>> {
    let mut line = Vec::new();
    let n = r
        .take(max as u64)
        .read_until(b'\n', &mut line)
        .context("reading the control connection")?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        if n == max {
            bail!("a control message longer than {max} bytes");
        }
        bail!("the control connection ended inside a message");
    }
    serde_json::from_slice(&line)
        .map(Some)
        .context("a malformed control message")
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
