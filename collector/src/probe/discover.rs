//! What the server offers, found with a few untimed (but paced) connections, each with
//! one thing changed: the version, the group, the resumption mechanism, early data.
//! Every discovery connection accepts any certificate and records what WebPKI said of
//! it ([`Check::RecordOnly`]): whether the server is trusted is a finding of its own, and
//! never turns into "no TLS 1.3".

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use shared::probe::find_capability;
use shared::{Capability, KxGroup, Protocol};

use crate::arms::remote::{Check, Client, Resume, Seen, Target};

/// How discovery treats the server's certificate.
const DISCOVER: Check = Check::RecordOnly;

/// Everything discovery learned, and why each arm will or will not run.
pub struct Discovery {
    pub protocols: Vec<Capability>,
    pub groups: Vec<Capability>,
    pub resumption: Vec<Capability>,
    pub early_data: Vec<Capability>,
    pub cipher_suites: Vec<String>,
    pub signature_schemes: Vec<String>,
    pub chain: Option<(u64, u64)>,
    /// The group each version's arms pin: X25519 where accepted, else the first group
    /// accepted in that version.
    pub group: BTreeMap<Protocol, KxGroup>,
    /// What WebPKI (the given roots, the SNI) said of the certificate of the first
    /// handshake that presented one; None when no handshake completed.
    pub trust: Option<Result<(), rustls::Error>>,
}

impl Discovery {
    pub fn offers(&self, name: &str) -> Result<(), String> {
        let lists = [
            &self.protocols[..],
            &self.groups,
            &self.resumption,
            &self.early_data,
        ];
        match find_capability(lists, name) {
            Some(c) if c.supported => Ok(()),
            Some(c) => Err(format!("{name}: no ({})", c.detail)),
            None => Err(format!("{name}: not tried")),
        }
    }
}

fn describe(s: &Seen) -> String {
    let f = &s.facts;
    let mut parts = vec![
        f.protocol.map_or("?".into(), |p| format!("{p:?}")),
        f.cipher_suite.map_or("?".into(), |c| format!("{c:?}")),
        f.kx_group
            .map_or("no key exchange".into(), |g| format!("{g:?}")),
    ];
    if let Some(scheme) = s.verified.scheme {
        parts.push(format!("{scheme:?}"));
    }
    parts.join(", ")
}

fn cap(name: &str, r: std::result::Result<String, String>) -> Capability {
    match r {
        Ok(detail) => Capability {
            name: name.into(),
            supported: true,
            detail,
        },
        Err(detail) => Capability {
            name: name.into(),
            supported: false,
            detail,
        },
    }
}

fn err(e: anyhow::Error) -> String {
    format!("{e:#}")
}

pub fn discover(target: &Arc<Target>) -> Result<Discovery> {
    let mut d = Discovery {
        protocols: Vec::new(),
        groups: Vec::new(),
        resumption: Vec::new(),
        early_data: Vec::new(),
        cipher_suites: Vec::new(),
        signature_schemes: Vec::new(),
        chain: None,
        group: BTreeMap::new(),
        trust: None,
    };
    let mut offered = Vec::new();
    for (name, p) in [("tls1.3", Protocol::Tls13), ("tls1.2", Protocol::Tls12)] {
        let seen = Client::new(target.clone(), &[p], None, Resume::Off, false, DISCOVER)?.connect();
        if let Ok(s) = &seen {
            offered.push(p);
            d.cipher_suites
                .push(format!("{name}: {}", opt(s.facts.cipher_suite)));
            d.signature_schemes
                .push(format!("{name}: {}", opt(s.verified.scheme)));
            d.chain = d.chain.or(s.verified.chain);
            if d.trust.is_none() {
                d.trust = s.verified.verdict.clone();
            }
        }
        d.protocols.push(cap(
            name,
            seen.map(|s| describe(&s))
                .map_err(|e| format!("no handshake with only {name} offered: {}", err(e))),
        ));
    }
    // Each group alone, in each version the server offers (TLS 1.3-only groups in TLS
    // 1.3 only). In TLS 1.2 the groups offered also bound the ECDSA certificate's curve
    // (RFC 4492), so a group can work in TLS 1.3 and fail in TLS 1.2.
    for &p in &offered {
        let mut accepted = Vec::new();
        for &g in KxGroup::ALL {
            if p == Protocol::Tls12 && crate::arms::tls13_only(g) {
                continue;
            }
            let name = match p {
                Protocol::Tls12 => format!("tls1.2 {g}"),
                _ => g.to_string(),
            };
            let r = match Client::new(
                target.clone(),
                &[p],
                Some(&[g]),
                Resume::Off,
                false,
                DISCOVER,
            )?
            .connect()
            {
                Ok(s) if s.facts.kx_group == Some(crate::arms::verify::named_group(g)) => {
                    accepted.push(g);
                    Ok(format!("negotiated alone in {p}: {}", describe(&s)))
                }
                Ok(s) => Err(format!("offered alone, negotiated {}", describe(&s))),
                Err(e) => Err(format!("offered alone in {p}: {}", err(e))),
            };
            d.groups.push(cap(&name, r));
        }
        let pick = accepted
            .iter()
            .copied()
            .find(|g| *g == KxGroup::X25519)
            .or_else(|| accepted.first().copied());
        if let Some(g) = pick {
            d.group.insert(p, g);
        }
    }
    for (name, p, resume) in [
        ("tls1.3 tickets", Protocol::Tls13, Resume::Tls13),
        (
            "tls1.2 session ids",
            Protocol::Tls12,
            Resume::Tls12SessionId,
        ),
        ("tls1.2 tickets", Protocol::Tls12, Resume::Tls12Ticket),
    ] {
        let r = match d.group.get(&p) {
            None => Err(format!("no {p} handshake with a group offered alone")),
            Some(&group) => resumes(target, p, group, resume)?,
        };
        d.resumption.push(cap(name, r));
    }
    // 0-RTT: the server's tickets allow early data, and a resumed ClientHello's early
    // data is accepted.
    if let (Ok(()), Some(&group)) = (d.offers("tls1.3 tickets"), d.group.get(&Protocol::Tls13)) {
        let c = Client::new(
            target.clone(),
            &[Protocol::Tls13],
            Some(&[group]),
            Resume::Tls13,
            true,
            DISCOVER,
        )?;
        let first = c.connect();
        let max = c.store.counts().1;
        let offer = match &first {
            Ok(_) if max > 0 => Ok(format!("tickets allow {max} bytes of early data")),
            Ok(_) => Err("the server's tickets allow no early data (max_early_data_size 0)".into()),
            Err(e) => Err(err(anyhow::anyhow!("{e:#}"))),
        };
        let accept = if offer.is_ok() {
            match c.connect() {
                Ok(s) if s.facts.early_data == Some((true, true)) => {
                    Ok("early data sent with a resumed ClientHello was accepted".into())
                }
                Ok(s) => Err(format!(
                    "early data offered: {}, accepted: no ({:?} handshake)",
                    s.facts.early_data.is_some_and(|e| e.0),
                    s.facts.kind
                )),
                Err(e) => Err(err(e)),
            }
        } else {
            Err("not offered".into())
        };
        d.early_data.push(cap("0-rtt offered", offer));
        d.early_data.push(cap("0-rtt accepted", accept));
    } else {
        d.early_data
            .push(cap("0-rtt offered", Err("no TLS 1.3 resumption".into())));
        d.early_data
            .push(cap("0-rtt accepted", Err("no TLS 1.3 resumption".into())));
    }
    Ok(d)
}

/// Two connections with `resume`: the second must resume the first one's session.
fn resumes(
    target: &Arc<Target>,
    p: Protocol,
    group: KxGroup,
    resume: Resume,
) -> Result<std::result::Result<String, String>> {
    let c = Client::new(
        target.clone(),
        &[p],
        Some(&[group]),
        resume,
        false,
        DISCOVER,
    )?;
    if let Err(e) = c.connect() {
        return Ok(Err(err(e)));
    }
    let (tickets13, _, sessions12, with_ticket12) = c.store.counts();
    let issued = match resume {
        Resume::Tls13 if tickets13 == 0 => Some(format!(
            "no NewSessionTicket within {} s after the handshake",
            crate::arms::remote::TICKET_WAIT.as_secs()
        )),
        Resume::Tls12Ticket if with_ticket12 == 0 => {
            Some("no RFC 5077 ticket issued on a full handshake".into())
        }
        Resume::Tls12SessionId if sessions12 == 0 => Some("no session to resume".into()),
        _ => None,
    };
    if let Some(why) = issued {
        return Ok(Err(why));
    }
    Ok(match c.connect() {
        Ok(s) if s.facts.kind == rustls::HandshakeKind::Resumed => {
            Ok(format!("a second connection resumed ({})", describe(&s)))
        }
        Ok(s) => Err(format!(
            "a second connection was a {:?} handshake, not resumed",
            s.facts.kind
        )),
        Err(e) => Err(err(e)),
    })
}

fn opt<T: std::fmt::Debug>(v: Option<T>) -> String {
    v.map_or("?".into(), |v| format!("{v:?}"))
}
