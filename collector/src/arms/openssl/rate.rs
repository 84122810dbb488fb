//! s_time's rate-only arms: evidence from slices, and `resume_rate_speedup` comparisons
//! only where every connection of the `-reuse` arm resumed.

use shared::{
    Arm, Comparison, ComparisonKind, HandshakeKinds, KindCounts, Mode, Protocol, RateBasis,
    RateSlice, RateSummary, Verified,
};

use super::s_time::{STimeMode, Slice};
use super::STimeArm;
use crate::arms::peer::PeerArm;
use crate::stats;

/// Why plain `s_time -reuse` under TLS 1.3 is expected not to resume.
pub const TLS13_REUSE_PITFALL: &str = "openssl s_time -reuse under TLS 1.3 without reading (no -www): TLS 1.3 session tickets arrive after the handshake, s_time closes before reading one, so the session it offers again has no ticket and every 'reused' connection is a full handshake. Kept on purpose to show the original lab's TLS 1.3 'resume' figure measured nothing; see the -reuse-www arm";

/// What one s_time arm produced.
#[derive(Debug, Default)]
pub struct STimeRun {
    pub slices: Vec<Slice>,
    /// The first failure; later slices of the arm are not run after one.
    pub error: Option<String>,
    /// Handshake kinds the rustls server reported over all slices (s_time against rustls
    /// only), including untimed connections (s_time's priming one, ones cut by the kill).
    pub server_kinds: Option<KindCounts>,
}

/// The evidence record of an s_time arm.
/// `empty` is the arm's record before anything is measured ([`Work::empty_arm`]).
///
/// [`Work::empty_arm`]: crate::arms::peer::Work::empty_arm
pub fn rate_arm(peer: &PeerArm, empty: Arm, run: &STimeRun) -> Arm {
    let mut arm = empty;
    let connections: u64 = run.slices.iter().map(|s| s.counts.connections).sum();
    let reused: u64 = run.slices.iter().map(|s| s.counts.reused).sum();
    let user: f64 = run.slices.iter().map(|s| s.user_cpu_s).sum();
    let real: f64 = run.slices.iter().map(|s| s.real_s).sum();
    let per = |secs: f64| {
        if secs > 0.0 {
            connections as f64 / secs
        } else {
            0.0
        }
    };
    arm.attempted = connections;
    arm.succeeded = connections;
    // s_time's first connection of every slice is not counted: it is the warm-up.
    arm.warmup_attempted = Some(run.slices.len() as u64);
    arm.resumed.client = reused;
    // s_time's progress characters are per connection; a server's counts (where it gives
    // them) include untimed connections and are checked only in total.
    arm.verified = Some(Verified::CLIENT_ONLY);
    arm.handshake_kinds = Some(HandshakeKinds {
        client: KindCounts {
            full: connections - reused,
            full_with_hello_retry: 0,
            resumed: reused,
        },
        server: run.server_kinds.unwrap_or_default(),
    });
    if !run.slices.is_empty() {
        arm.rate = Some(RateSummary {
            connections,
            user_cpu_s: user,
            real_s: real,
            per_user_s: per(user),
            per_real_s: per(real),
            slices: run
                .slices
                .iter()
                .map(|s| RateSlice {
                    connections: s.counts.connections,
                    resumed: s.counts.reused,
                    user_cpu_s: s.user_cpu_s,
                    real_s: s.real_s,
                })
                .collect(),
        });
    }
    arm.error = run
        .error
        .clone()
        .or_else(|| honesty_error(peer, connections, reused, run.server_kinds));
    let (Some(&STimeArm { mode, .. }), spec) = (peer.detail::<STimeArm>(), peer.spec) else {
        return arm;
    };
    if arm.error.is_some()
        && mode == STimeMode::Reuse
        && spec.protocol() == Protocol::Tls13
        && reused < connections
        && run.error.is_none()
    {
        arm.known_pitfall = Some(TLS13_REUSE_PITFALL.into());
    }
    arm
}

fn honesty_error(
    peer: &PeerArm,
    connections: u64,
    reused: u64,
    server: Option<KindCounts>,
) -> Option<String> {
    if connections == 0 {
        return Some("s_time completed no connection inside its timed windows".into());
    }
    match peer.spec.mode() {
        Mode::Resumed if reused < connections => Some(format!(
            "{reused} of {connections} `-reuse` connections resumed (s_time printed `r` for {reused} and `*` for {}): this arm does not measure resumption",
            connections - reused
        )),
        Mode::Full if reused > 0 => Some(format!("{reused} of {connections} `-new` connections resumed")),
        Mode::Full => match server {
            Some(s) if s.resumed > 0 => Some(format!(
                "the server saw {} resumed handshakes during the `-new` slices",
                s.resumed
            )),
            _ => None,
        },
        Mode::Resumed => match server {
            Some(s) if s.resumed < reused => Some(format!(
                "s_time reported {reused} resumed connections but the server saw only {}",
                s.resumed
            )),
            _ => None,
        },
        _ => None,
    }
}

/// `rate(reuse) / rate(new)` per real second and per user-CPU second, for every sound
/// `-reuse` arm (all connections resumed, no error) with a sound `-new` arm of the same
/// protocol, cert, group and server. `arms[i]` is the record of `plan[i]`.
pub fn comparisons(plan: &[PeerArm], arms: &[Arm], resamples: usize, seed: u64) -> Vec<Comparison> {
    let mut rng = fastrand::Rng::with_seed(seed ^ 0x5ee7_1a7e);
    let sound = |a: &Arm| {
        a.error.is_none()
            && a.skipped.is_none()
            && a.rate.as_ref().is_some_and(|r| r.connections > 0)
    };
    let mut out = Vec::new();
    for (p, reuse) in plan.iter().zip(arms) {
        let (Some(&STimeArm { mode, server }), spec) = (p.detail::<STimeArm>(), p.spec) else {
            continue;
        };
        if !mode.reuses() || !sound(reuse) || reuse.resumed.client != reuse.succeeded {
            continue;
        }
        // The baseline reads a response exactly when the -reuse arm does, where the plan
        // has such an arm (nginx); otherwise plain -new.
        let baseline = |www: bool| {
            plan.iter().zip(arms).find(|(q, a)| {
                q.detail::<STimeArm>()
                    .is_some_and(|b| !b.mode.reuses() && b.mode.www() == www && b.server == server)
                    && q.spec.protocol() == spec.protocol()
                    && q.spec.cert() == spec.cert()
                    && q.spec.kx_group() == spec.kx_group()
                    && sound(a)
            })
        };
        let new = baseline(mode.www()).or_else(|| baseline(false));
        let Some((_, new)) = new else { continue };
        let (Some(r), Some(n)) = (&reuse.rate, &new.rate) else {
            continue;
        };
        for basis in [RateBasis::PerRealS, RateBasis::PerUserS] {
            let pick = |rate: &RateSummary| -> (f64, Vec<(f64, f64)>) {
                let secs = |s: &RateSlice| {
                    if basis == RateBasis::PerRealS {
                        s.real_s
                    } else {
                        s.user_cpu_s
                    }
                };
                let total = if basis == RateBasis::PerRealS {
                    rate.per_real_s
                } else {
                    rate.per_user_s
                };
                (
                    total,
                    rate.slices
                        .iter()
                        .map(|s| (s.connections as f64, secs(s)))
                        .collect(),
                )
            };
            let ((rv, rs), (nv, ns)) = (pick(r), pick(n));
            let ratio = rv / nv;
            let ci95 = stats::rate_ratio_ci95(&rs, &ns, resamples, &mut rng);
            if ratio.is_finite() && ratio > 0.0 && ci95.iter().all(|x| x.is_finite()) {
                out.push(Comparison {
                    kind: ComparisonKind::ResumeRateSpeedup,
                    baseline: new.id.clone(),
                    candidate: reuse.id.clone(),
                    p50_ratio: ratio,
                    ci95: Some(ci95),
                    ci_unavailable: None,
                    basis: Some(basis),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use shared::{CertKind, KxGroup};

    use super::*;
    use crate::arms::openssl::s_time_output::Counts;
    use crate::arms::openssl::{Peer, VS_S_SERVER};
    use crate::arms::peer::PeerStack;

    fn slice(connections: u64, reused: u64) -> Slice {
        Slice {
            counts: Counts {
                connections,
                reused,
            },
            user_cpu_s: 0.1,
            real_s: 0.4,
        }
    }

    /// [`rate_arm`] with the empty record the peer phase would give it.
    fn rate(peer: &PeerArm, run: &STimeRun) -> Arm {
        rate_arm(peer, peer.empty_arm(crate::measure::build_arm, None), run)
    }

    fn find(all: &[PeerArm], mode: STimeMode, protocol: Protocol) -> PeerArm {
        all.iter()
            .find(|a| {
                a.detail::<STimeArm>()
                    == Some(&STimeArm {
                        mode,
                        server: VS_S_SERVER,
                    })
                    && a.spec.protocol() == protocol
            })
            .unwrap()
            .clone()
    }

    #[test]
    fn plain_tls13_reuse_is_a_known_pitfall_with_no_speedup() {
        let all = Peer.plan(&[CertKind::Rsa2048], &[KxGroup::X25519]);
        let new = find(&all, STimeMode::New, Protocol::Tls13);
        let plain = find(&all, STimeMode::Reuse, Protocol::Tls13);
        let www = find(&all, STimeMode::ReuseWww, Protocol::Tls13);
        let run = |c, r| STimeRun {
            slices: vec![slice(c, r), slice(c, r), slice(c, r)],
            ..Default::default()
        };
        let arms = vec![
            rate(&new, &run(100, 0)),
            rate(&plain, &run(100, 0)),
            rate(&www, &run(150, 150)),
        ];
        assert_eq!(arms[0].error, None);
        assert!(
            arms[1].error.as_deref().unwrap().starts_with("0 of 300"),
            "{:?}",
            arms[1].error
        );
        assert!(arms[1].known_pitfall.is_some());
        assert_eq!(
            (arms[2].error.as_ref(), arms[2].resumed.client),
            (None, 450)
        );
        let rate = arms[2].rate.as_ref().unwrap();
        assert_eq!(rate.connections, 450);
        assert!((rate.per_real_s - 450.0 / 1.2).abs() < 1e-9);
        let c = comparisons(&[new.clone(), plain, www.clone()], &arms, 200, 1);
        assert_eq!(c.len(), 2, "one per basis, none for the plain arm: {c:?}");
        assert!(c
            .iter()
            .all(|c| c.candidate == www.id && c.baseline == new.id));
        assert!(c.iter().all(|c| (c.p50_ratio - 1.5).abs() < 1e-9));
    }

    #[test]
    fn a_partly_resumed_reuse_arm_is_an_error_without_the_pitfall_label_for_tls12() {
        let all = Peer.plan(&[CertKind::Rsa2048], &[KxGroup::X25519]);
        let reuse = find(&all, STimeMode::Reuse, Protocol::Tls12);
        let arm = rate(
            &reuse,
            &STimeRun {
                slices: vec![slice(10, 9)],
                ..Default::default()
            },
        );
        assert!(arm.error.is_some() && arm.known_pitfall.is_none());
    }
}
