//! The probe's findings in words, and its latency table in RTT multiples.

use shared::{Arm, ServerProbe};

use super::discover::Discovery;

/// The trust line ("trust: untrusted: CA certificate used as end entity"), then one line
/// per capability, e.g. "resumption: tls1.3 tickets yes, tls1.2 session ids yes, tls1.2
/// tickets no", then `verification` (what the timed connections did with the
/// certificate).
pub fn findings(
    d: &Discovery,
    trust: Option<&shared::CertificateTrust>,
    verification: &str,
) -> Vec<String> {
    let line = |title: &str, caps: &[shared::Capability]| {
        let items: Vec<String> = caps
            .iter()
            .map(|c| format!("{} {}", c.name, if c.supported { "yes" } else { "no" }))
            .collect();
        format!("{title}: {}", items.join(", "))
    };
    let mut out = vec![
        super::trust::line(trust),
        line("versions", &d.protocols),
        line("groups", &d.groups),
        line("resumption", &d.resumption),
        line("early data", &d.early_data),
    ];
    if !d.cipher_suites.is_empty() {
        out.push(format!("cipher suite: {}", d.cipher_suites.join("; ")));
        out.push(format!(
            "signature scheme: {}",
            d.signature_schemes.join("; ")
        ));
    }
    if let Some((n, bytes)) = d.chain {
        out.push(format!("chain: {n} certificate(s), {bytes} bytes"));
    }
    out.push(verification.to_string());
    out
}

/// The summary a probe prints after the run's table: findings, then every arm's p50 in
/// ms and in RTT multiples.
pub fn print(p: &ServerProbe, arms: &[Arm]) -> String {
    let mut s = format!(
        "\nprobe of {}:{} ({}, SNI {}); checked on the client end only\n",
        p.host, p.port, p.address, p.sni
    );
    for f in &p.findings {
        s += &format!("  {f}\n");
    }
    for c in p
        .protocols
        .iter()
        .chain(&p.groups)
        .chain(&p.resumption)
        .chain(&p.early_data)
    {
        s += &format!(
            "    {:<20} {:<3} {}\n",
            c.name,
            if c.supported { "yes" } else { "no" },
            c.detail
        );
    }
    match p.rtt_reference_us {
        Some(rtt) => {
            s += &format!(
                "\nlatency (RTT = p50 of tcp-connect = {:.3} ms)\n",
                rtt / 1000.0
            )
        }
        None => s += "\nlatency (no RTT: tcp-connect has no samples)\n",
    }
    s += &format!("  {:<36} {:>10} {:>9}\n", "arm", "p50 ms", "× RTT");
    for a in arms {
        match (&a.latency_us, &a.skipped) {
            (_, Some(why)) => s += &format!("  {:<36} skipped: {why}\n", a.id),
            (Some(l), None) => {
                let x = p
                    .rtt_multiples
                    .get(&a.id)
                    .map_or("n/a".to_string(), |m| format!("{m:.2}"));
                let flag = if a.error.is_some() { "  ERROR" } else { "" };
                s += &format!("  {:<36} {:>10.3} {:>9}{flag}\n", a.id, l.p50 / 1000.0, x);
            }
            (None, None) => s += &format!("  {:<36} no samples\n", a.id),
        }
    }
    s
}
