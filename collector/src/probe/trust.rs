//! Trust apart from capability: what WebPKI said of the server's certificate, in words,
//! and what that means for the timed connections (verification is part of a client's
//! cost, so a latency is only comparable with the verification it included).

use shared::probe::{CertVerification, CertificateTrust};

/// What the timed TLS connections do with the server's certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timing {
    /// WebPKI verifies every certificate presented, as a client that verifies does.
    Verified,
    /// `--insecure`: certificates are accepted unverified (the handshake signature is
    /// still checked).
    Unverified,
    /// The server is not trusted and `--insecure` was not given: the TLS arms are not
    /// timed, for this reason (timing them unverified unasked would hide a cost).
    Refused(String),
}

impl Timing {
    /// Decided from discovery's verdict (None: no handshake completed, so nothing to
    /// refuse: the arms are skipped for what the server does not offer).
    pub fn decide(verdict: Option<&Result<(), rustls::Error>>, insecure: bool) -> Timing {
        match verdict {
            _ if insecure => Timing::Unverified,
            Some(Err(e)) => Timing::Refused(format!(
                "untrusted: {}; pass --insecure to time without verification",
                reason(e)
            )),
            _ => Timing::Verified,
        }
    }

    /// The arm's record, for a TLS arm that ran (None when none ran).
    pub fn record(&self) -> Option<CertVerification> {
        match self {
            Timing::Verified => Some(CertVerification::Webpki),
            Timing::Unverified => Some(CertVerification::Skipped),
            Timing::Refused(_) => None,
        }
    }

    /// In words, for the findings and `settings.extra.probe_certificate_verification`.
    pub fn describe(&self, roots: &str, sni: &str) -> String {
        match self {
            Timing::Verified => format!("verification: on in the timed connections (WebPKI: chain to the roots of {roots}, validity, name {sni}; on every handshake that presents a certificate, which resumed ones do not)"),
            Timing::Unverified => "verification: off in the timed connections (--insecure: any certificate accepted unverified, the handshake signature still checked); their latencies leave out a verifying client's cost".into(),
            Timing::Refused(why) => format!("verification: no TLS arm timed ({why})"),
        }
    }
}

/// The trust finding; None when no handshake presented a certificate.
pub fn finding(verdict: Option<&Result<(), rustls::Error>>) -> Option<CertificateTrust> {
    Some(match verdict? {
        Ok(()) => CertificateTrust {
            trusted: true,
            reason: None,
            error: None,
        },
        Err(e) => CertificateTrust {
            trusted: false,
            reason: Some(reason(e)),
            error: Some(e.to_string()),
        },
    })
}

/// The findings' line: `trust: trusted`, `trust: untrusted: <reason>`.
pub fn line(t: Option<&CertificateTrust>) -> String {
    match t {
        None => "trust: not known (no handshake presented a certificate)".into(),
        Some(CertificateTrust { trusted: true, .. }) => "trust: trusted".into(),
        Some(CertificateTrust { reason, .. }) => format!(
            "trust: untrusted: {}",
            reason.as_deref().unwrap_or("no reason given")
        ),
    }
}

/// Why WebPKI refused a certificate, in words.
pub fn reason(e: &rustls::Error) -> String {
    use rustls::CertificateError as C;
    let rustls::Error::InvalidCertificate(c) = e else {
        return e.to_string();
    };
    match c {
        C::UnknownIssuer => "unknown issuer".into(),
        C::Expired | C::ExpiredContext { .. } => "expired".into(),
        C::NotValidYet | C::NotValidYetContext { .. } => "not valid yet".into(),
        C::NotValidForNameContext {
            expected,
            presented,
        } => format!(
            "name mismatch (asked for {}, the certificate names {})",
            expected.to_str(),
            if presented.is_empty() {
                "none".to_string()
            } else {
                presented.join(", ")
            }
        ),
        C::NotValidForName => "name mismatch".into(),
        C::Revoked => "revoked".into(),
        C::BadSignature => "bad signature on the certificate".into(),
        C::BadEncoding => "malformed certificate".into(),
        C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
            "not valid for server authentication (extended key usage)".into()
        }
        C::UnhandledCriticalExtension => "unhandled critical extension".into(),
        C::Other(other) => match other.0.downcast_ref::<webpki::Error>() {
            Some(webpki::Error::CaUsedAsEndEntity) => "CA certificate used as end entity".into(),
            Some(webpki::Error::EndEntityUsedAsCa) => "end-entity certificate used as a CA".into(),
            Some(webpki::Error::CertDistrusted) => "certificate distrusted".into(),
            Some(webpki::Error::PathLenConstraintViolated) => {
                "chain longer than a CA's path length allows".into()
            }
            Some(webpki::Error::NameConstraintViolation) => {
                "a CA's name constraints violated".into()
            }
            _ => e.to_string(),
        },
        _ => e.to_string(),
    }
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
