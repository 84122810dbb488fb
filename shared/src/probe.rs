//! What `collector probe HOST:PORT` records about a server the lab does not run.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A probe's findings. Only the client's end of each connection is seen: a resumption,
/// a group or 0-RTT counts as supported when the client's rustls reported it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerProbe {
    /// The host as given (a name or an address) and its port.
    pub host: String,
    pub port: u16,
    /// The address the name resolved to, which every connection went to.
    pub address: String,
    /// The server name sent (SNI) and verified in the certificate.
    pub sni: String,
    /// Which roots the client trusted (`--ca FILE` or the system's).
    pub trust: String,
    /// Who checked each connection: the client end only, in words.
    pub verified_on: String,
    /// `tls1.3`, `tls1.2`: whether the server completed a handshake with only that
    /// version offered.
    pub protocols: Vec<Capability>,
    /// Each key-exchange group offered alone in a TLS 1.3 ClientHello (TLS 1.2 when the
    /// server has no TLS 1.3).
    pub groups: Vec<Capability>,
    /// `tls1.3 tickets`, `tls1.2 session ids`, `tls1.2 tickets`: a second connection
    /// resumed the first one's session.
    pub resumption: Vec<Capability>,
    /// `0-rtt offered` (the server's tickets allow early data), `0-rtt accepted`.
    pub early_data: Vec<Capability>,
    /// Per protocol, what the default client negotiated: `tls1.3: TLS13_AES_256_GCM_SHA384`.
    pub cipher_suites: Vec<String>,
    /// Per protocol, the scheme of the server's handshake signature.
    pub signature_schemes: Vec<String>,
    /// Certificates the server sent (leaf first) and their total DER size in bytes.
    pub chain_certificates: Option<u64>,
    pub chain_bytes: Option<u64>,
    /// The round trip every figure is divided by: the p50 of the `tcp-connect` arm, µs.
    pub rtt_reference_us: Option<f64>,
    /// Arm id → p50 / `rtt_reference_us`.
    pub rtt_multiples: BTreeMap<String, f64>,
    /// One line per capability, as the summary prints them.
    pub findings: Vec<String>,
    /// Exactly what the probe sends and how often, in words.
    pub sent: String,
    /// What WebPKI (the roots in `trust`, the name in `sni`) said of the server's
    /// certificate. Discovery accepts any certificate and records this, so what the
    /// server offers is found whether or not it is trusted. Null when no handshake
    /// presented a certificate (and in files written before the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate_trust: Option<CertificateTrust>,
    /// Per TLS arm that was timed: what its timed connections did with the server's
    /// certificate (verification is part of a client's cost). Resumed handshakes present
    /// no certificate, so nothing is verified in them either way.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub verification: BTreeMap<String, CertVerification>,
}

/// What WebPKI said of a probed server's certificate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CertificateTrust {
    pub trusted: bool,
    /// Why not, in words: "CA certificate used as end entity", "unknown issuer",
    /// "expired", "name mismatch (…)", …; null when trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The verifier's error as rustls prints it; null when trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a probe arm's timed connections did with the server's certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CertVerification {
    /// Verified by WebPKI (chain to the roots, validity, name) on every handshake that
    /// presented a certificate, as a client that verifies does.
    Webpki,
    /// `--insecure`: accepted without verification (the handshake signature is still
    /// checked); the latency leaves out a verifying client's cost.
    Skipped,
}

impl ServerProbe {
    /// The capability called `name`, in whichever list it is.
    pub fn capability(&self, name: &str) -> Option<&Capability> {
        find_capability(
            [
                &self.protocols,
                &self.groups,
                &self.resumption,
                &self.early_data,
            ],
            name,
        )
    }
}

/// The capability called `name` in `lists` (protocols, groups, resumption, early data).
pub fn find_capability<'a>(lists: [&'a [Capability]; 4], name: &str) -> Option<&'a Capability> {
    lists.into_iter().flatten().find(|c| c.name == name)
}

/// One capability and what showed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Capability {
    pub name: String,
    pub supported: bool,
    /// What the connection that decided it saw (negotiated values, or the error).
    pub detail: String,
}
