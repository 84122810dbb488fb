use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
use rustls::client::danger::ServerCertVerifier;
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, RootCertStore};

use super::*;
use crate::arms::remote::record::RecordingVerifier;
use crate::arms::remote::Check;

/// A self-signed `localhost` certificate with basicConstraints CA:TRUE, as `openssl req
/// -x509` makes one.
fn self_signed_ca() -> CertificateDer<'static> {
    let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let mut params = CertificateParams::new(vec!["localhost".into()]).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.self_signed(&key).unwrap().der().clone()
}

/// A verifier that trusts `cert` as its only root, checking with `check`.
fn verifier(cert: &CertificateDer<'static>, check: Check) -> RecordingVerifier {
    let mut roots = RootCertStore::empty();
    roots.add(cert.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
        .build()
        .unwrap();
    RecordingVerifier::new(webpki, check)
}

fn verify(v: &RecordingVerifier, cert: &CertificateDer<'static>) -> bool {
    let name = ServerName::try_from("localhost").unwrap();
    v.verify_server_cert(cert, &[], &name, &[], UnixTime::now())
        .is_ok()
}

#[test]
fn discovery_accepts_a_ca_used_as_leaf_and_records_why_webpki_refused_it() {
    let cert = self_signed_ca();
    let v = verifier(&cert, Check::RecordOnly);
    assert!(verify(&v, &cert), "discovery accepts any certificate");
    let seen = v.take();
    let verdict = seen.verdict.expect("WebPKI was asked");
    let e = verdict.expect_err("a CA certificate is no end entity");
    assert_eq!(reason(&e), "CA certificate used as end entity");
    assert_eq!(seen.chain.map(|c| c.0), Some(1));
    let t = finding(Some(&Err(e))).unwrap();
    assert!(!t.trusted);
    assert_eq!(
        line(Some(&t)),
        "trust: untrusted: CA certificate used as end entity"
    );
}

#[test]
fn a_verifying_client_refuses_it_and_an_insecure_one_never_asks() {
    let cert = self_signed_ca();
    let v = verifier(&cert, Check::Verify);
    assert!(!verify(&v, &cert), "WebPKI's refusal ends the handshake");
    assert!(v.take().verdict.is_some_and(|r| r.is_err()));
    let v = verifier(&cert, Check::Skip);
    assert!(verify(&v, &cert));
    assert_eq!(
        v.take().verdict,
        None,
        "--insecure: WebPKI is not run at all"
    );
}

#[test]
fn webpki_errors_are_named_in_words() {
    use rustls::Error::InvalidCertificate as Invalid;
    let words = |c: CertificateError| reason(&Invalid(c));
    assert_eq!(words(CertificateError::UnknownIssuer), "unknown issuer");
    assert_eq!(words(CertificateError::Expired), "expired");
    assert_eq!(words(CertificateError::NotValidYet), "not valid yet");
    assert_eq!(words(CertificateError::NotValidForName), "name mismatch");
    assert_eq!(
        words(CertificateError::NotValidForNameContext {
            expected: ServerName::try_from("example.com").unwrap(),
            presented: vec!["localhost".into(), "127.0.0.1".into()],
        }),
        "name mismatch (asked for example.com, the certificate names localhost, 127.0.0.1)"
    );
    assert_eq!(words(CertificateError::Revoked), "revoked");
    let other = |e: webpki::Error| words(CertificateError::Other(rustls::OtherError(Arc::new(e))));
    assert_eq!(
        other(webpki::Error::CaUsedAsEndEntity),
        "CA certificate used as end entity"
    );
    assert_eq!(
        other(webpki::Error::EndEntityUsedAsCa),
        "end-entity certificate used as a CA"
    );
    // Anything else as rustls prints it, never empty.
    assert!(!other(webpki::Error::MaximumPathDepthExceeded).is_empty());
    assert!(!reason(&rustls::Error::DecryptError).is_empty());
}

#[test]
fn untrusted_without_insecure_refuses_timing_and_says_how_to_time_anyway() {
    let unknown = Err(rustls::Error::InvalidCertificate(
        CertificateError::UnknownIssuer,
    ));
    assert_eq!(
        Timing::decide(Some(&unknown), false),
        Timing::Refused(
            "untrusted: unknown issuer; pass --insecure to time without verification".into()
        )
    );
    assert_eq!(Timing::decide(Some(&unknown), true), Timing::Unverified);
    assert_eq!(Timing::decide(Some(&Ok(())), true), Timing::Unverified);
    assert_eq!(Timing::decide(Some(&Ok(())), false), Timing::Verified);
    // No handshake completed: nothing to refuse (the arms are skipped for what the
    // server does not offer).
    assert_eq!(Timing::decide(None, false), Timing::Verified);
    assert_eq!(Timing::Verified.record(), Some(CertVerification::Webpki));
    assert_eq!(Timing::Unverified.record(), Some(CertVerification::Skipped));
    assert_eq!(Timing::Refused("x".into()).record(), None);
    assert_eq!(line(finding(Some(&Ok(()))).as_ref()), "trust: trusted");
    assert_eq!(
        line(None),
        "trust: not known (no handshake presented a certificate)"
    );
}
