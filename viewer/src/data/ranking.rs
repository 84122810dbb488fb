//! Which server stack is fastest: the full handshakes of every stack ranked per
//! protocol × certificate, by their medians' 95% intervals, with what else differs
//! between the rows (group, where the server runs, versions) said in words.
//!
//! The rule: an arm's rank is 1 + the number of arms in its cell whose whole interval
//! lies below its own. Arms whose intervals overlap share a rank, shown as tied
//! (`1 (tied)`); an arm without an
//! interval gets no rank. A cell names a fastest stack only when one arm's interval lies
//! below every other's.

use shared::conditions;
use shared::{Arm, ArmConditions, Evidence, Mode, Protocol, Stack};

use super::derive::has_cdf;
use super::filter::ArmFilter;
use super::format::{fmt_ci_us, fmt_us};
use super::stacks::stack_pair;

/// The column heads of every [`Ranking`] table.
pub const HEAD: [&str; 6] = [
    "rank",
    "stack (client → server)",
    "p50 [95% CI]",
    "group",
    "server runs",
    "version",
];

/// One protocol × certificate cell: its verdict in words, what differs between its rows
/// besides the stack, and one row of cells (class, text) per arm, fastest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranking {
    pub label: String,
    pub verdict: String,
    pub differs: String,
    pub arms: Vec<String>,
    pub rows: Vec<Vec<(&'static str, String)>>,
}

/// A full handshake on plain loopback, one connection at a time, with a result.
fn rankable(a: &Arm) -> bool {
    a.mode == Mode::Full
        && a.protocol != Protocol::Tcp
        && a.rtt_ms.is_none()
        && a.capacity.is_none()
        && a.rate.is_none()
        && !a.ttfb
        && a.control_of.is_none()
        && has_cdf(a)
}

fn group(a: &Arm) -> String {
    a.kx_group
        .map_or_else(|| "not pinned".into(), |g| g.to_string())
}

fn where_server(a: &Arm) -> &'static str {
    match a.server_stack {
        Stack::Rustls => "in the collector's process",
        Stack::Remote => "elsewhere (probed)",
        _ => "in a process of its own",
    }
}

/// The peer's version as it printed it; for rustls, the run's library and provider.
fn version(ev: &Evidence, a: &Arm) -> String {
    match &a.peer_version {
        Some(v) => super::format::short(v),
        None => {
            let (l, c) = (&ev.environment.tls_library, &ev.environment.crypto_provider);
            super::format::short(&format!(
                "{} {} ({} {})",
                l.name, l.version, c.name, c.version
            ))
        }
    }
}

/// Rank of each of `cis` (1-based; `None` without an interval): 1 + how many intervals
/// lie wholly below it.
fn ranks(cis: &[Option<[f64; 2]>]) -> Vec<Option<usize>> {
    cis.iter()
        .map(|ci| {
            let [lo, _] = (*ci)?;
            Some(1 + cis.iter().flatten().filter(|o| o[1] < lo).count())
        })
        .collect()
}

/// The cells with at least two stacks, protocol (TLS 1.3 first) then certificate in
/// first-seen order. A cell of one stack ranks nothing.
pub fn rankings(ev: &Evidence, filter: &ArmFilter) -> Vec<Ranking> {
    let mut cells: Vec<(Protocol, Option<shared::CertKind>, Vec<&Arm>)> = Vec::new();
    for p in [Protocol::Tls13, Protocol::Tls12] {
        for a in ev.arms.iter().filter(|a| a.protocol == p) {
            if !rankable(a) || !filter.matches(a) {
                continue;
            }
            match cells.iter_mut().find(|c| c.0 == p && c.1 == a.cert) {
                Some(c) => c.2.push(a),
                None => cells.push((p, a.cert, vec![a])),
            }
        }
    }
    cells
        .into_iter()
        .filter(|c| {
            let first = stack_pair(c.2[0]);
            c.2.iter().any(|a| stack_pair(a) != first)
        })
        .map(|(p, cert, arms)| ranking(ev, p, cert, arms))
        .collect()
}

fn p50(a: &Arm) -> f64 {
    a.latency_us.map_or(f64::INFINITY, |l| l.p50)
}

fn ranking(
    ev: &Evidence,
    p: Protocol,
    cert: Option<shared::CertKind>,
    mut arms: Vec<&Arm>,
) -> Ranking {
    // What the host did to each arm: an arm that kept chunks over the steal threshold is
    // not ranked, and arms that ran in different speed modes are not ranked at all.
    let fast = conditions::fast_probe_us(&ev.arms);
    let conds: Vec<Option<ArmConditions>> =
        arms.iter().map(|a| ArmConditions::of(a, fast)).collect();
    let noisy: Vec<bool> = conds
        .iter()
        .map(|c| c.is_some_and(|c| c.noisy().is_some()))
        .collect();
    let apart = (0..arms.len())
        .flat_map(|i| (i + 1..arms.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| !noisy[i] && !noisy[j])
        .find_map(|(i, j)| conditions::arms_apart(conds[i], conds[j]));
    // Ranked rows first, then by median; a stable sort keeps the run's order on ties.
    let cis: Vec<Option<[f64; 2]>> = arms
        .iter()
        .zip(&noisy)
        .map(|(a, n)| a.p50_ci95_us.filter(|_| !n && apart.is_none()))
        .collect();
    let mut order: Vec<(Option<usize>, usize)> = ranks(&cis).into_iter().zip(0..).collect();
    shared::order::sort_by(&mut order, &|x, y| {
        (x.0.is_none(), x.0)
            .cmp(&(y.0.is_none(), y.0))
            .then(p50(arms[x.1]).total_cmp(&p50(arms[y.1])))
    });
    let rank_of: Vec<Option<usize>> = order.iter().map(|o| o.0).collect();
    let noisy: Vec<bool> = order.iter().map(|o| noisy[o.1]).collect();
    arms = order.iter().map(|o| arms[o.1]).collect();
    let label = format!(
        "{} · {}",
        protocol_name(p),
        cert.map_or_else(|| "certificate not recorded".into(), |c| c.to_string())
    );
    let rows = arms
        .iter()
        .zip(rank_of.iter().zip(&noisy))
        .map(|(a, (r, noisy))| {
            let unranked = match (noisy, &apart, a.p50_ci95_us) {
                (true, _, _) => "noisy",
                (_, Some(_), Some(_)) => "–",
                _ => "no CI",
            };
            vec![
                (
                    "num",
                    r.map_or_else(|| unranked.into(), |r| rank_text(r, &rank_of)),
                ),
                ("", stack_pair(a)),
                (
                    "num",
                    format!("{} {}", fmt_us(p50(a)), fmt_ci_us(a.p50_ci95_us)),
                ),
                ("", group(a)),
                ("", where_server(a).into()),
                ("", version(ev, a)),
            ]
        })
        .collect();
    Ranking {
        label,
        verdict: match &apart {
            Some(why) => format!(
                "Not ranked: two of these arms {why}, so their medians would compare the host's speed as much as the stacks'."
            ),
            None => {
                let n = noisy.iter().filter(|n| **n).count();
                let tail = match n {
                    0 => String::new(),
                    n => format!(" {n} kept chunks over the steal threshold (noisy) and are not ranked."),
                };
                verdict(&arms, &rank_of) + &tail
            }
        },
        differs: differs(ev, &arms),
        arms: arms.iter().map(|a| a.id.clone()).collect(),
        rows,
    }
}

/// `2`, or `1 (tied)` where another row shares the rank: rows whose intervals overlap
/// share it, and the next rank skips as many (1, 1, 3), so a reader sees why.
fn rank_text(r: usize, all: &[Option<usize>]) -> String {
    match all.iter().filter(|o| **o == Some(r)).count() {
        1 => r.to_string(),
        _ => format!("{r} (tied)"),
    }
}

fn protocol_name(p: Protocol) -> &'static str {
    match p {
        Protocol::Tls12 => "TLS 1.2",
        Protocol::Tls13 => "TLS 1.3",
        _ => "TCP",
    }
}

fn who(a: &Arm) -> String {
    let g = a.kx_group.map(|g| format!(" ({g})")).unwrap_or_default();
    format!("{}{g}", stack_pair(a))
}

/// The cell's claim: a fastest arm only when its interval is below every other's.
fn verdict(arms: &[&Arm], ranks: &[Option<usize>]) -> String {
    let first: Vec<&&Arm> = arms
        .iter()
        .zip(ranks)
        .filter(|(_, r)| **r == Some(1))
        .map(|(a, _)| a)
        .collect();
    let unranked = ranks.iter().filter(|r| r.is_none()).count();
    let tail = match unranked {
        0 => String::new(),
        n => format!(" {n} without a 95% interval are not ranked."),
    };
    match first.as_slice() {
        [] => format!("No stack can be ranked: none has a 95% interval.{tail}"),
        [one] if arms.len() - unranked > 1 => format!(
            "Fastest: {}, p50 {}; its 95% interval lies below every other stack's.{tail}",
            who(one),
            fmt_us(p50(one))
        ),
        [_] => format!("Only one stack has a 95% interval: nothing to rank it against.{tail}"),
        tied => format!(
            "No single fastest stack: the 95% intervals of {} overlap.{tail}",
            tied.iter().map(|a| who(a)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// What else differs between the rows, besides the stack, in words (the values of short
/// settings; versions are in the table).
fn differs(ev: &Evidence, arms: &[&Arm]) -> String {
    let distinct = |f: &dyn Fn(&Arm) -> String| {
        let mut seen: Vec<String> = Vec::new();
        for a in arms {
            let v = f(a);
            if !seen.contains(&v) {
                seen.push(v);
            }
        }
        seen
    };
    let mut out: Vec<String> = Vec::new();
    for (what, seen) in [
        ("key-exchange group", distinct(&group)),
        (
            "where the server runs",
            distinct(&|a| where_server(a).into()),
        ),
    ] {
        if seen.len() > 1 {
            out.push(format!("{what} ({})", seen.join("; ")));
        }
    }
    let versions = distinct(&|a| version(ev, a)).len();
    if versions > 1 {
        out.push(format!(
            "{versions} implementations and versions (in the table)"
        ));
    }
    if out.is_empty() {
        "Besides the stack, nothing recorded differs between these rows.".into()
    } else {
        format!("Besides the stack, these differ: {}.", out.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;
    use shared::sample::arm;
    use shared::{CertKind, KxGroup};

    fn full(id: &str, stack: Stack, p50: f64, ci: Option<[f64; 2]>) -> Arm {
        let mut a = arm(id, Protocol::Tls13, Mode::Full, None, vec![p50]);
        a.cert = Some(CertKind::EcdsaP256);
        a.kx_group = Some(KxGroup::X25519);
        (a.server_stack, a.stack) = (stack, stack);
        a.p50_ci95_us = ci;
        if stack != Stack::Rustls {
            a.peer_version = Some(format!("{stack} 1.0"));
        }
        a
    }

    fn with(arms: Vec<Arm>) -> Evidence {
        let mut ev = sample();
        ev.arms = arms;
        ev
    }

    /// `a` measured in 10 chunks whose speed probe took `probe_us`; chunk 0 `outcome`.
    fn chunked(mut a: Arm, probe_us: f64, first: shared::ChunkOutcome) -> Arm {
        let list = (0..10)
            .map(|r| shared::Chunk {
                round: r,
                steal_percent: Some(0.0),
                probe_us: Some(probe_us),
                attempted: 1,
                samples: 1,
                outcome: if r == 0 {
                    first
                } else {
                    shared::ChunkOutcome::Used
                },
            })
            .collect();
        a.chunks = Some(shared::ArmChunks {
            list,
            set_aside_us: Vec::new(),
        });
        a
    }

    #[test]
    fn a_noisy_arm_is_not_ranked_and_different_speed_modes_rank_nothing() {
        use shared::ChunkOutcome::{Used, UsedOverBudget};
        let ci = |lo: f64| Some([lo, lo + 10.0]);
        // nginx kept a chunk over the steal threshold: rustls and Caddy are ranked.
        let ev = with(vec![
            chunked(full("a", Stack::Rustls, 100.0, ci(95.0)), 30.0, Used),
            chunked(
                full("b", Stack::Nginx, 150.0, ci(145.0)),
                30.0,
                UsedOverBudget,
            ),
            chunked(full("c", Stack::Caddy, 300.0, ci(295.0)), 30.0, Used),
        ]);
        let r = &rankings(&ev, &ArmFilter::default())[0];
        let ranks: Vec<&str> = r.rows.iter().map(|row| row[0].1.as_str()).collect();
        assert_eq!(r.arms, ["a", "c", "b"]);
        assert_eq!(ranks, ["1", "2", "noisy"]);
        assert!(
            r.verdict.contains("1 kept chunks over the steal threshold"),
            "{}",
            r.verdict
        );
        // Caddy ran every chunk in the slow mode (45 against 30 µs): nothing is ranked.
        let ev = with(vec![
            chunked(full("a", Stack::Rustls, 100.0, ci(95.0)), 30.0, Used),
            chunked(full("c", Stack::Caddy, 300.0, ci(295.0)), 45.0, Used),
        ]);
        let r = &rankings(&ev, &ArmFilter::default())[0];
        let ranks: Vec<&str> = r.rows.iter().map(|row| row[0].1.as_str()).collect();
        assert_eq!(ranks, ["–", "–"]);
        assert!(r.verdict.starts_with("Not ranked"), "{}", r.verdict);
    }

    #[test]
    fn overlapping_intervals_share_a_rank_and_name_no_winner() {
        let ev = with(vec![
            full("a", Stack::Rustls, 500.0, Some([480.0, 520.0])),
            full("b", Stack::Nginx, 400.0, Some([380.0, 490.0])),
            full("c", Stack::Caddy, 900.0, Some([850.0, 950.0])),
        ]);
        let r = rankings(&ev, &ArmFilter::default());
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].label, "TLS 1.3 · ecdsa-p256");
        assert_eq!(r[0].arms, ["b", "a", "c"]);
        let ranks: Vec<&str> = r[0].rows.iter().map(|row| row[0].1.as_str()).collect();
        // b and a overlap (490 > 480): both first, tied; c is above both intervals: third.
        assert_eq!(ranks, ["1 (tied)", "1 (tied)", "3"]);
        assert!(
            r[0].verdict.starts_with("No single fastest"),
            "{}",
            r[0].verdict
        );
        assert!(
            r[0].verdict.contains("rustls → nginx (x25519)"),
            "{}",
            r[0].verdict
        );
    }

    #[test]
    fn a_winner_is_named_only_below_every_other_interval() {
        let ev = with(vec![
            full("a", Stack::Rustls, 500.0, Some([480.0, 520.0])),
            full("b", Stack::Nginx, 400.0, Some([380.0, 470.0])),
            full("c", Stack::Caddy, 300.0, None),
        ]);
        let r = &rankings(&ev, &ArmFilter::default())[0];
        assert_eq!(r.arms, ["b", "a", "c"], "the arm without a CI comes last");
        assert_eq!(r.rows[2][0].1, "no CI");
        assert_eq!(
            r.verdict,
            "Fastest: rustls → nginx (x25519), p50 400 µs; its 95% interval lies below \
             every other stack's. 1 without a 95% interval are not ranked."
        );
        assert!(
            r.differs.contains(
                "where the server runs (in a process of its own; in the collector's process)"
            ) || r.differs.contains(
                "where the server runs (in the collector's process; in a process of its own)"
            ),
            "{}",
            r.differs
        );
    }

    #[test]
    fn one_stack_ranks_nothing_and_other_arms_stay_out() {
        let mut tcp = full("t", Stack::Nginx, 10.0, Some([9.0, 11.0]));
        tcp.protocol = Protocol::Tcp;
        let mut resumed = full("r", Stack::Nginx, 10.0, Some([9.0, 11.0]));
        resumed.mode = Mode::Resumed;
        let mut far = full("f", Stack::Nginx, 10.0, Some([9.0, 11.0]));
        far.rtt_ms = Some(20.0);
        let ev = with(vec![
            full("a", Stack::Rustls, 500.0, Some([480.0, 520.0])),
            full("b", Stack::Rustls, 400.0, Some([380.0, 470.0])),
            tcp,
            resumed,
            far,
        ]);
        assert!(rankings(&ev, &ArmFilter::default()).is_empty());
    }

    #[test]
    fn cells_split_by_protocol_and_cert_and_say_what_differs() {
        let mut rsa = full("rsa", Stack::Nginx, 900.0, Some([850.0, 950.0]));
        rsa.cert = Some(CertKind::Rsa2048);
        let mut unpinned = full("py", Stack::PythonSsl, 700.0, Some([650.0, 750.0]));
        unpinned.kx_group = None;
        let ev = with(vec![
            full("a", Stack::Rustls, 500.0, Some([480.0, 520.0])),
            rsa,
            unpinned,
        ]);
        let r = rankings(&ev, &ArmFilter::default());
        assert_eq!(r.len(), 1, "the RSA cell has one stack");
        assert_eq!(r[0].arms, ["a", "py"]);
        assert!(
            r[0].differs
                .contains("key-exchange group (x25519; not pinned)"),
            "{}",
            r[0].differs
        );
        assert!(
            r[0].differs.contains("2 implementations and versions"),
            "{}",
            r[0].differs
        );
        let rustls = format!(
            "{} {}",
            ev.environment.tls_library.name, ev.environment.tls_library.version
        );
        assert!(r[0].rows[0][5].1.starts_with(&rustls), "{:?}", r[0].rows[0]);
        assert_eq!(r[0].rows[1][5].1, "python-ssl 1.0");
    }
}
