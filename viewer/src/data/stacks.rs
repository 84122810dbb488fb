//! The stacks view: the same handshake by different implementations (rustls, Python's
//! `ssl`, a rustls client against `openssl s_server`, `openssl s_time`), each beside its
//! own TCP connect, and each stack's resume speedups with `s_time`'s rate ratios.

use shared::{
    Arm, ArmsById, ComparisonKind, Evidence, FirstIndex, KxGroup, Mode, Protocol, RateBasis, Stack,
};

use super::filter::ArmFilter;
use super::outcome::{bar, no_result, NoResult, PercentileBar};

/// `rustls`, or `client → server` when the two ends differ; a server the lab does not
/// run (`collector probe`) is the `probed server`, wherever it is (127.0.0.1 included).
pub fn stack_pair(arm: &Arm) -> String {
    let name = |s: Stack| match s {
        Stack::Remote => "probed server".to_string(),
        s => s.to_string(),
    };
    if arm.client_stack == arm.server_stack {
        name(arm.client_stack)
    } else {
        format!("{} → {}", name(arm.client_stack), name(arm.server_stack))
    }
}

/// A row's name on the stacks' charts, short and with what tells rows apart first, so a
/// narrow screen can show it (the arm id starts with what rows share, and its end is cut
/// there): the stack other than rustls (rustls when on both ends; `openssl-`, `-ssl` and
/// `ecdsa-` left out), protocol, resumption or mode, certificate, the group where it is
/// not X25519 (the post-quantum hybrid as `PQ`, the glossary's term) and a placement
/// control's `cpu-same`: `nginx 1.3 ticket rsa2048`, `rustls 1.3 full p256 PQ`.
pub fn short_label(a: &Arm) -> String {
    let stack = match (a.client_stack, a.server_stack) {
        (Stack::Rustls, s) => s,
        (c, _) => c,
    };
    let stack = stack.as_str();
    let stack = stack.strip_prefix("openssl-").unwrap_or(stack);
    let stack = stack.strip_suffix("-ssl").unwrap_or(stack);
    let version = match a.protocol {
        Protocol::Tls13 => "1.3",
        Protocol::Tls12 => "1.2",
        p => p.as_str(),
    };
    let how = a.resumption.map_or(a.mode.as_str(), |r| r.as_str());
    let mut label = format!("{stack} {version} {how}");
    if let Some(c) = a.cert {
        label.push(' ');
        label.push_str(c.as_str().strip_prefix("ecdsa-").unwrap_or(c.as_str()));
    }
    match a.kx_group {
        None | Some(KxGroup::X25519) => {}
        Some(KxGroup::X25519Mlkem768) => label.push_str(" PQ"),
        Some(g) => {
            label.push(' ');
            label.push_str(g.as_str());
        }
    }
    // The placement control copies (`…-cpu-same`, `…-cpu-split`) differ from their arm
    // only there.
    if let Some(how) = a.id.rsplit_once("-cpu-").map(|(_, how)| how) {
        label.push_str(" cpu-");
        label.push_str(how);
    }
    label
}

/// [`super::derive::percentile_bars`] as small multiples: one panel per stack
/// (`client → server` when the ends differ), first-seen order, so each panel fits a screen.
/// A stack none of whose arms has latencies (all skipped, rate-only or failed) gets no
/// panel: a chart never appears empty, and the table says why each arm has none.
pub fn percentile_panels(ev: &Evidence, filter: &ArmFilter) -> Vec<(String, Vec<PercentileBar>)> {
    let mut panels: Vec<(String, Vec<PercentileBar>)> = Vec::new();
    for a in ev.arms.iter().filter(|a| filter.matches(a)) {
        let stack = stack_pair(a);
        let b = bar(a.id.clone(), a);
        match panels.iter_mut().find(|p| p.0 == stack) {
            Some(p) => p.1.push(b),
            None => panels.push((stack, vec![b])),
        }
    }
    panels.retain(|p| p.1.iter().any(|b| b.percentiles.is_some()));
    panels
}

/// Arms measured on plain loopback, one connection at a time (no RTT, no capacity load).
fn on_loopback(arm: &Arm) -> bool {
    arm.rtt_ms.is_none() && arm.capacity.is_none()
}

/// A full handshake of one stack beside a TCP connect.
#[derive(Debug, Clone, PartialEq)]
pub struct StackLatency {
    pub stack: String,
    pub arm: String,
    /// The row's name on the chart ([`short_label`]).
    pub label: String,
    /// p50 of the full handshake in µs, with its 95% CI; `None` with `no_result`.
    pub full_p50: Option<f64>,
    pub full_ci: Option<[f64; 2]>,
    /// The TCP arm shown beside it and its p50 (µs).
    pub tcp_arm: Option<String>,
    pub tcp_p50: Option<f64>,
    pub no_result: Option<NoResult>,
}

/// Each stack's first TCP connect arm on loopback, found in one pass (a handful of
/// stacks), so rows find theirs without scanning every arm again.
fn tcp_arms(ev: &Evidence) -> Vec<&Arm> {
    let mut out: Vec<&Arm> = Vec::new();
    for a in &ev.arms {
        if a.protocol == Protocol::Tcp && on_loopback(a) && !out.iter().any(|t| t.stack == a.stack)
        {
            out.push(a);
        }
    }
    out
}

/// The stack's own TCP connect arm (same `stack`), else the kernel's plain one.
fn tcp_for<'a>(tcp: &[&'a Arm], arm: &Arm) -> Option<&'a Arm> {
    let of = |stack: Stack| tcp.iter().copied().find(|a| a.stack == stack);
    of(arm.stack).or_else(|| of(Stack::KernelTcp))
}

/// Full-handshake rows of every stack with latencies (rate-only tools are in the speedups),
/// grouped by stack in first-seen order.
/// Empty unless the run has more than one stack: then the percentile chart says it all.
pub fn stack_latencies(ev: &Evidence, filter: &ArmFilter) -> Vec<StackLatency> {
    let full: Vec<&Arm> = ev
        .arms
        .iter()
        .filter(|a| a.mode == Mode::Full && a.rate.is_none())
        .filter(|a| on_loopback(a) && filter.matches(a))
        .collect();
    let tcp_arms = tcp_arms(ev);
    let out: Vec<StackLatency> = full
        .into_iter()
        .map(|a| {
            let tcp = tcp_for(&tcp_arms, a).filter(|t| no_result(t).is_none());
            let why = no_result(a);
            let sound = why.is_none();
            StackLatency {
                stack: stack_pair(a),
                arm: a.id.clone(),
                label: short_label(a),
                full_p50: a.latency_us.map(|l| l.p50).filter(|_| sound),
                full_ci: a.p50_ci95_us.filter(|_| sound),
                tcp_arm: tcp.map(|t| t.id.clone()),
                tcp_p50: tcp.and_then(|t| t.latency_us).map(|l| l.p50),
                no_result: why,
            }
        })
        .collect();
    by_stack(out, |r| &r.stack)
}

/// `rows` grouped by stack (stacks in first-seen order, rows in order within a stack);
/// empty when there is only one stack. Grouped without sorting: every sort
/// instantiation costs wasm size.
fn by_stack<T>(rows: Vec<T>, stack: impl Fn(&T) -> &String) -> Vec<T> {
    let mut stacks: Vec<String> = Vec::new();
    for r in &rows {
        if !stacks.contains(stack(r)) {
            stacks.push(stack(r).clone());
        }
    }
    if stacks.len() < 2 {
        return Vec::new();
    }
    let mut rows: Vec<Option<T>> = rows.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(rows.len());
    for s in &stacks {
        for slot in rows.iter_mut() {
            if slot.as_ref().is_some_and(|r| stack(r) == s) {
                out.extend(slot.take());
            }
        }
    }
    out
}

/// A ratio with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub value: f64,
    /// None when the run gives no interval (too few rounds).
    pub ci: Option<[f64; 2]>,
}

/// One resumed (or reusing) arm of a stack: its latency speedup and/or its rate
/// speedups, or why there is no speedup.
#[derive(Debug, Clone, PartialEq)]
pub struct StackSpeedup {
    pub stack: String,
    /// The resumed / reusing arm.
    pub arm: String,
    /// The row's name on the chart ([`short_label`]).
    pub label: String,
    /// `p50(full) / p50(resumed)`.
    pub latency: Option<Ratio>,
    /// `rate(reuse) / rate(new)` per wall-clock second and per user-CPU second of the
    /// s_time client process.
    pub rate_real: Option<Ratio>,
    pub rate_user: Option<Ratio>,
    /// Set when either arm has no result, or the arm reproduces a known pitfall and did
    /// not resume: then no ratio is shown.
    pub no_speedup: Option<NoResult>,
}

/// "did not resume" and why, for an arm that reproduces a known pitfall.
pub fn did_not_resume(arm: &Arm) -> Option<NoResult> {
    let pitfall = arm.known_pitfall.as_ref()?;
    Some(NoResult::Error(format!("did not resume ({pitfall})")))
}

/// Resume speedups of every stack: latency ratios and rate ratios per resumed arm, plus
/// the arms that reproduce a known pitfall (never a speedup). Empty for a rustls-only run.
pub fn stack_speedups(ev: &Evidence, filter: &ArmFilter) -> Vec<StackSpeedup> {
    let by_id = ArmsById::new(&ev.arms);
    let arm = |id: &str| by_id.get(id);
    let mut out: Vec<StackSpeedup> = Vec::new();
    // The row of each resumed arm id (found in a map: linear in the comparisons).
    let mut rows = FirstIndex::default();
    for c in &ev.comparisons {
        let kind = c.kind;
        if kind != ComparisonKind::ResumeSpeedup && kind != ComparisonKind::ResumeRateSpeedup {
            continue;
        }
        let (Some(resumed), Some(base)) = (arm(&c.candidate), arm(&c.baseline)) else {
            continue;
        };
        if !on_loopback(resumed) || !filter.matches(resumed) {
            continue;
        }
        let i = match rows.insert_first(&resumed.id, out.len()) {
            Some(i) => i,
            None => {
                let why = did_not_resume(resumed).or_else(|| {
                    [resumed, base].into_iter().find_map(|a| {
                        // A rate-only arm has no latencies, which is not a failure here.
                        no_result(a)
                            .filter(NoResult::is_error)
                            .map(|e| NoResult::Error(format!("{}: {e}", a.id)))
                    })
                });
                out.push(StackSpeedup {
                    stack: stack_pair(resumed),
                    arm: resumed.id.clone(),
                    label: short_label(resumed),
                    latency: None,
                    rate_real: None,
                    rate_user: None,
                    no_speedup: why,
                });
                out.len() - 1
            }
        };
        let row = &mut out[i];
        let ratio = Some(Ratio {
            value: c.p50_ratio,
            ci: c.ci95,
        });
        match (kind, c.basis) {
            (ComparisonKind::ResumeSpeedup, _) => row.latency = ratio,
            (_, Some(RateBasis::PerUserS)) => row.rate_user = ratio,
            _ => row.rate_real = ratio,
        }
    }
    for a in ev
        .arms
        .iter()
        .filter(|a| on_loopback(a) && filter.matches(a))
    {
        if let Some(why) = did_not_resume(a) {
            if rows.insert_first(&a.id, out.len()).is_none() {
                out.push(StackSpeedup {
                    stack: stack_pair(a),
                    arm: a.id.clone(),
                    label: short_label(a),
                    latency: None,
                    rate_real: None,
                    rate_user: None,
                    no_speedup: Some(why),
                });
            }
        }
    }
    for row in out.iter_mut().filter(|r| r.no_speedup.is_some()) {
        (row.latency, row.rate_real, row.rate_user) = (None, None, None);
    }
    by_stack(out, |r| &r.stack)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn percentile_panels_are_one_per_stack_and_hold_every_bar_once() {
        let ev = with_peers();
        let panels = percentile_panels(&ev, &ArmFilter::default());
        let mut all: Vec<String> = Vec::new();
        for (stack, bars) in &panels {
            for b in bars {
                let arm = ev.arms.iter().find(|a| a.id == b.label).unwrap();
                assert_eq!(&stack_pair(arm), stack, "{}", b.label);
                all.push(b.label.clone());
            }
        }
        // Every arm with latencies is in exactly one panel; the rate-only s_time arms
        // (their stack has no latencies at all) are in none.
        let ids: Vec<String> = ev
            .arms
            .iter()
            .filter(|a| a.latency_us.is_some())
            .map(|a| a.id.clone())
            .collect();
        assert_eq!(all.len(), ids.len());
        assert!(ids.iter().all(|i| all.contains(i)));
        assert!(panels.len() >= 2, "the peer run has several stacks");
        assert!(
            !panels.iter().any(|p| p.0.starts_with("openssl-s_time")),
            "a stack without latencies gets no empty panel"
        );
        let names: Vec<&String> = panels.iter().map(|p| &p.0).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "one panel per stack: {n}");
        }
    }
    use crate::data::filter::Facet;
    use crate::data::testdata::{sample, with_peers};

    #[test]
    fn a_short_label_puts_what_tells_rows_apart_first() {
        let mut a = shared::sample::arm("x", Protocol::Tls12, Mode::Resumed, None, vec![1.0]);
        (a.client_stack, a.server_stack) = (Stack::Rustls, Stack::Nginx);
        (a.resumption, a.cert) = (
            Some(shared::Resumption::Stateful),
            Some(shared::CertKind::Rsa2048),
        );
        a.kx_group = Some(KxGroup::X25519);
        assert_eq!(short_label(&a), "nginx 1.2 stateful rsa2048");
        // The group is named where it is not X25519 (the hybrid as PQ), a placement
        // control says so, and a client stack other than rustls names the row.
        a.kx_group = Some(KxGroup::X25519Mlkem768);
        (a.client_stack, a.server_stack) = (Stack::PythonSsl, Stack::PythonSsl);
        assert_eq!(short_label(&a), "python 1.2 stateful rsa2048 PQ");
        a.kx_group = Some(KxGroup::Secp256r1);
        a.id = "tls13-full-rsa2048-secp256r1-cpu-same".into();
        assert_eq!(
            short_label(&a),
            "python 1.2 stateful rsa2048 secp256r1 cpu-same"
        );
    }

    #[test]
    fn a_rustls_only_run_has_no_stacks_view() {
        let ev = sample();
        assert!(stack_latencies(&ev, &ArmFilter::default()).is_empty());
        assert!(stack_speedups(&ev, &ArmFilter::default()).is_empty());
    }

    #[test]
    fn each_stack_sits_beside_its_own_tcp_connect() {
        let ev = with_peers();
        let rows = stack_latencies(&ev, &ArmFilter::default());
        let got: Vec<(&str, &str, Option<&str>)> = rows
            .iter()
            .map(|r| (r.stack.as_str(), r.arm.as_str(), r.tcp_arm.as_deref()))
            .collect();
        let rustls = (
            "rustls",
            "tls13-full-ecdsa-p256-x25519",
            Some("tcp-connect"),
        );
        let python = (
            "python-ssl",
            "python-tls13-full",
            Some("python-tcp-connect"),
        );
        let s_server = (
            "rustls → openssl-s_server",
            "rustls-vs-s_server-tls13-full",
            Some("tcp-connect"),
        );
        assert_eq!(
            got,
            [rustls, python, s_server],
            "stacks in first-seen order"
        );
        let py = &ev
            .arms
            .iter()
            .find(|a| a.id == "python-tls13-full")
            .unwrap();
        assert_eq!(rows[1].full_p50, py.latency_us.map(|l| l.p50));
        let mut f = ArmFilter::default();
        f.toggle(Facet::Stack(Stack::PythonSsl));
        assert_eq!(stack_latencies(&ev, &f).len(), 2);
    }

    #[test]
    fn the_server_stacks_get_rows_of_their_own_without_code_of_their_own() {
        let mut ev = with_peers();
        let s_server = ev
            .arms
            .iter()
            .find(|a| a.id == "rustls-vs-s_server-tls13-full")
            .unwrap()
            .clone();
        for (id, server) in [
            ("rustls-vs-nginx-tls13-full", Stack::Nginx),
            ("rustls-vs-caddy-tls13-full", Stack::Caddy),
            ("rustls-vs-gnutls-serv-tls13-full", Stack::GnutlsServ),
        ] {
            let mut a = s_server.clone();
            (a.id, a.stack, a.server_stack) = (id.into(), server, server);
            ev.arms.push(a);
        }
        let rows = stack_latencies(&ev, &ArmFilter::default());
        let stacks: Vec<&str> = rows.iter().map(|r| r.stack.as_str()).collect();
        assert_eq!(
            stacks[3..],
            ["rustls → nginx", "rustls → caddy", "rustls → gnutls-serv"]
        );
        // The s_server arm copied: samples 700 and 720, nearest-rank p50 700.
        assert!(rows[3..].iter().all(|r| r.full_p50 == Some(700.0)));
    }

    #[test]
    fn rate_ratios_sit_beside_latency_ratios_and_the_pitfall_never_speeds_up() {
        let ev = with_peers();
        let rows = stack_speedups(&ev, &ArmFilter::default());
        let by = |id: &str| rows.iter().find(|r| r.arm == id).expect(id);
        let reuse = by("s_time-tls12-reuse-vs-s_server");
        assert_eq!(reuse.rate_real.map(|r| r.value), Some(4.0));
        assert_eq!(reuse.rate_user.map(|r| r.value), Some(6.0));
        assert_eq!(reuse.latency, None);
        assert_eq!(
            by("tls13-resumed-ticket-ecdsa-p256-x25519")
                .latency
                .map(|r| r.value),
            Some(2.0)
        );
        let pit = by("s_time-tls13-reuse-vs-s_server");
        assert!(pit.latency.is_none() && pit.rate_real.is_none() && pit.rate_user.is_none());
        let why = pit.no_speedup.as_ref().unwrap().to_string();
        assert!(why.contains("did not resume"), "{why}");
    }

    #[test]
    fn an_error_arm_gives_no_ratio() {
        let mut ev = with_peers();
        let i = ev
            .arms
            .iter()
            .position(|a| a.id == "tls13-resumed-ticket-ecdsa-p256-x25519")
            .unwrap();
        ev.arms[i].error = Some("0 of 4 resumed".into());
        let rows = stack_speedups(&ev, &ArmFilter::default());
        let row = rows.iter().find(|r| r.arm == ev.arms[i].id).unwrap();
        assert_eq!(row.latency, None);
        assert!(row
            .no_speedup
            .as_ref()
            .unwrap()
            .to_string()
            .contains("0 of 4"));
        // The resumed arm's error leaves its stack's full arm as it was ...
        let full_id = "tls13-full-ecdsa-p256-x25519";
        let full = ev.arms.iter().position(|a| a.id == full_id).unwrap();
        let want = ev.arms[full].latency_us.unwrap().p50;
        let lat = stack_latencies(&ev, &ArmFilter::default());
        let row = lat.iter().find(|r| r.arm == full_id).unwrap();
        assert_eq!((row.full_p50, row.no_result.is_none()), (Some(want), true));
        // ... while an error on the full arm itself hides its p50 and interval.
        ev.arms[full].error = Some("handshake failed: 3 of 40".into());
        let lat = stack_latencies(&ev, &ArmFilter::default());
        let row = lat.iter().find(|r| r.arm == full_id).unwrap();
        assert_eq!((row.full_p50, row.full_ci), (None, None));
        let why = row.no_result.as_ref().unwrap().to_string();
        assert!(why.contains("3 of 40"), "{why}");
    }
}
