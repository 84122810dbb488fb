//! The run card: the environment and settings that move numbers (the honesty label).

use shared::{ArmsById, ComparisonKind, Evidence, FirstIndex};

use super::filter::ArmFilter;
use super::format::{fmt_ci_ratio, fmt_ratio};

/// A run's card: `(label, value)` lines in reading order; `more` holds what is long
/// (the timed windows when the arms differ, the free-form `settings.extra`), shown folded.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    pub main: Vec<(String, String)>,
    pub more: Vec<(String, String)>,
}

pub fn run_card(ev: &Evidence) -> Card {
    let env = &ev.environment;
    let run = &ev.run;
    let s = &run.settings;
    let list = |v: Vec<String>| {
        if v.is_empty() {
            "–".to_string()
        } else {
            v.join(", ")
        }
    };
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let load = |l: [f64; 3]| format!("{:.2} {:.2} {:.2}", l[0], l[1], l[2]);
    let mut windows: Vec<&str> = ev.arms.iter().map(|a| a.timed_window.as_str()).collect();
    shared::order::sort_dedup(&mut windows);
    let mut lines = vec![
        ("run id", run.id.clone()),
        ("host", env.hostname.clone()),
        (
            "CPU",
            format!("{} ({} logical CPUs)", env.cpu_model, env.logical_cpus),
        ),
        ("OS / kernel", format!("{} / {}", env.os, env.kernel)),
        (
            "TLS library",
            format!(
                "{} {} with {} {}",
                env.tls_library.name,
                env.tls_library.version,
                env.crypto_provider.name,
                env.crypto_provider.version
            ),
        ),
        (
            "tool",
            format!(
                "{} {}{}",
                run.tool.name,
                run.tool.version,
                run.tool
                    .git_commit
                    .as_ref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            ),
        ),
        (
            "run",
            format!(
                "{} → {}{}",
                run.started_at,
                run.finished_at,
                if run.complete { "" } else { " (INCOMPLETE)" }
            ),
        ),
        (
            "certs",
            list(s.certs.iter().map(|c| c.to_string()).collect()),
        ),
        (
            "groups",
            list(s.kx_groups.iter().map(|g| g.to_string()).collect()),
        ),
        ("TCP_NODELAY", yes_no(s.tcp_nodelay)),
        ("SO_LINGER 0", yes_no(s.so_linger_zero)),
        (
            "samples",
            format!(
                "{} per arm, {} warm-up, {} rounds",
                s.samples, s.warmup, s.rounds
            ),
        ),
        (
            "timed window",
            match windows.len() {
                1 => list(windows.iter().map(|w| w.to_string()).collect()),
                n => format!("{n} different windows (arms of different tools); listed below"),
            },
        ),
        (
            "load (1/5/15 min)",
            format!(
                "before {}, after {}",
                load(env.load_average.before),
                load(env.load_average.after)
            ),
        ),
        ("threads", threads(ev)),
        ("clock", s.clock.clone()),
        ("percentiles", s.percentile_definition.clone()),
        (
            "CI method",
            format!(
                "{} (seed {}, {} resamples)",
                s.ci_method, s.bootstrap_seed, s.bootstrap_resamples
            ),
        ),
    ];
    if !env.peers.is_empty() {
        let peers = env
            .peers
            .iter()
            .map(|p| format!("{} {}", p.name, p.version))
            .collect();
        lines.insert(4, ("peer tools", list(peers)));
    }
    let versions = distinct(ev.arms.iter().filter_map(|a| a.peer_version.as_deref()));
    if !versions.is_empty() {
        lines.push(("peer versions (arms)", versions.join("; ")));
    }
    let methods = distinct(ev.arms.iter().filter_map(|a| a.rtt_method.as_deref()));
    if !methods.is_empty() {
        lines.push(("RTT method", methods.join("; ")));
    }
    if let Some(link) = s.extra.get("link") {
        lines.push(("emulated link", link.clone()));
    }
    if let Some(server) = &env.server_host {
        lines.push((
            "server host",
            format!(
                "{} · {} ({} logical CPUs) · {} / {} · {} {}",
                server.hostname,
                server.cpu_model,
                server.logical_cpus,
                server.os,
                server.kernel,
                server.tls_library.name,
                server.tls_library.version
            ),
        ));
    }
    if let Some(f) = &s.arms_filter {
        lines.push(("arms filter", f.clone()));
    }
    let mut more: Vec<(String, String)> = Vec::new();
    if windows.len() > 1 {
        more.extend(
            windows
                .iter()
                .enumerate()
                .map(|(i, w)| (format!("timed window {}", i + 1), w.to_string())),
        );
    }
    more.extend(s.extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    Card {
        main: lines.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        more,
    }
}

/// Each `tls_over_tcp` comparison whose TLS arm passes the filter, as
/// `(TLS arm, "24.50× [22.00× – 26.00×]")`: how many TCP connects a handshake costs.
pub fn tls_over_tcp(ev: &Evidence, filter: &ArmFilter) -> Vec<(String, String)> {
    let by_id = ArmsById::new(&ev.arms);
    ev.comparisons
        .iter()
        .filter(|c| c.kind == ComparisonKind::TlsOverTcp)
        .filter(|c| by_id.get(&c.candidate).is_some_and(|a| filter.matches(a)))
        .map(|c| {
            let ci = c.ci95.map_or_else(|| "(CI n/a)".into(), fmt_ci_ratio);
            (
                c.candidate.clone(),
                format!("{} {ci} of {}", fmt_ratio(c.p50_ratio), c.baseline),
            )
        })
        .collect()
}

/// At most this many thread counts are named on the card (a file can hold any number
/// of capacity arms; the arm table has every arm's).
const MAX_THREAD_COUNTS: usize = 8;

/// `1 server, 1 client`, plus the arms that ran with other counts (capacity arms), up to
/// [`MAX_THREAD_COUNTS`] counts in all, then `…`.
fn threads(ev: &Evidence) -> String {
    let s = &ev.run.settings;
    let mut out = format!("{} server, {} client", s.server_threads, s.client_threads);
    let mut seen: Vec<(u64, u64)> = vec![(s.server_threads, s.client_threads)];
    for a in &ev.arms {
        if let (Some(sv), Some(c)) = (a.server_threads, a.client_threads) {
            if !seen.contains(&(sv, c)) {
                if seen.len() == MAX_THREAD_COUNTS {
                    out += "; …";
                    break;
                }
                seen.push((sv, c));
                out += &format!("; {sv} server, {c} client in {}", a.id);
            }
        }
    }
    out
}

/// Each text once, in first-seen order (a map of those seen: linear however many).
fn distinct<'a>(texts: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    let mut seen = FirstIndex::default();
    for t in texts {
        if seen.insert_first(t, out.len()).is_none() {
            out.push(t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;

    #[test]
    fn card_names_what_moves_numbers() {
        let mut ev = sample();
        ev.run.complete = false;
        ev.run
            .settings
            .extra
            .insert("governor".into(), "performance".into());
        let card = run_card(&ev);
        let get = |k: &str| {
            card.main
                .iter()
                .chain(&card.more)
                .find(|(l, _)| l == k)
                .map(|(_, v)| v.as_str())
                .unwrap_or_else(|| panic!("no {k} in {card:?}"))
        };
        assert_eq!(get("CPU"), "test (2 logical CPUs)");
        assert_eq!(get("certs"), "ecdsa-p256");
        assert_eq!(get("groups"), "x25519");
        assert_eq!(get("TCP_NODELAY"), "yes");
        assert_eq!(get("threads"), "1 server, 1 client");
        assert_eq!(get("samples"), "4 per arm, 1 warm-up, 1 rounds");
        assert_eq!(
            get("timed window"),
            "connect start to handshake complete on the client"
        );
        assert!(get("run").ends_with("(INCOMPLETE)"));
        assert_eq!(
            get("load (1/5/15 min)"),
            "before 0.00 0.00 0.00, after 0.00 0.00 0.00"
        );
        assert_eq!(get("governor"), "performance");
        assert_eq!(card.more.len(), 1);
        ev.arms[0].timed_window = "another window".into();
        let card = run_card(&ev);
        assert!(card
            .main
            .iter()
            .any(|(k, v)| k == "timed window" && v.starts_with("2 different")));
        assert_eq!(
            card.more[0],
            ("timed window 1".into(), "another window".into())
        );
        assert_eq!(card.more.len(), 3);
        assert!(!card.main.iter().any(|(k, _)| k == "peer tools"));
        ev.environment.peers.push(shared::Library {
            name: "openssl".into(),
            version: "3.0.19".into(),
        });
        assert_eq!(
            run_card(&ev).main[4],
            ("peer tools".into(), "openssl 3.0.19".into())
        );
    }

    #[test]
    fn card_names_peer_versions_rtt_method_and_the_server_host() {
        let mut ev = crate::data::testdata::with_peers();
        let line = |ev: &Evidence, k: &str| {
            run_card(ev)
                .main
                .into_iter()
                .find(|(l, _)| l == k)
                .map(|(_, v)| v)
        };
        assert_eq!(
            line(&ev, "peer versions (arms)").as_deref(),
            Some("OpenSSL 3.0.19 27 Jan 2026"),
            "listed once"
        );
        assert_eq!(line(&ev, "RTT method"), None);
        let n = ev.arms.len();
        for a in &mut ev.arms[n - 2..] {
            (a.server_threads, a.client_threads) = (Some(2), Some(2));
        }
        let first = ev.arms[n - 2].id.clone();
        assert_eq!(
            line(&ev, "threads"),
            Some(format!("1 server, 1 client; 2 server, 2 client in {first}")),
            "arms with other thread counts are named (the first of each count)"
        );
        assert_eq!(line(&ev, "server host"), None);
        ev.arms[0].rtt_method = Some("user-space delay line".into());
        let mut server = ev.environment.clone();
        server.hostname = "far-away".into();
        ev.environment.server_host = Some(Box::new(server));
        assert_eq!(
            line(&ev, "RTT method").as_deref(),
            Some("user-space delay line")
        );
        assert_eq!(line(&ev, "emulated link"), None);
        ev.run
            .settings
            .extra
            .insert("link".into(), "--loss 0%,3% (2 links)".into());
        assert_eq!(
            line(&ev, "emulated link").as_deref(),
            Some("--loss 0%,3% (2 links)")
        );
        assert!(line(&ev, "server host")
            .unwrap()
            .starts_with("far-away · test"));
    }

    #[test]
    fn many_thread_counts_are_cut_after_eight() {
        let mut ev = sample();
        let arm = ev.arms[0].clone();
        ev.arms.clear();
        for n in 2..=30u64 {
            let mut a = arm.clone();
            a.id = format!("cap-{n}");
            (a.server_threads, a.client_threads) = (Some(n), Some(n));
            ev.arms.push(a);
        }
        let line = run_card(&ev)
            .main
            .into_iter()
            .find(|(l, _)| l == "threads")
            .unwrap()
            .1;
        assert_eq!(
            line,
            "1 server, 1 client; 2 server, 2 client in cap-2; 3 server, 3 client in cap-3; \
             4 server, 4 client in cap-4; 5 server, 5 client in cap-5; 6 server, 6 client in cap-6; \
             7 server, 7 client in cap-7; 8 server, 8 client in cap-8; …"
        );
    }

    #[test]
    fn tls_over_tcp_ratios_are_listed_for_the_arms_shown() {
        let mut ev = sample();
        let mut c = ev.comparisons[0].clone();
        c.kind = ComparisonKind::TlsOverTcp;
        (c.baseline, c.candidate) = ("tcp-connect".into(), ev.arms[1].id.clone());
        (c.p50_ratio, c.ci95) = (24.5, Some([22.0, 26.0]));
        ev.comparisons.push(c);
        assert!(ev.violations().is_empty(), "{:?}", ev.violations());
        assert_eq!(
            tls_over_tcp(&ev, &ArmFilter::default()),
            [(
                "tls13-full-ecdsa-p256-x25519".to_string(),
                "24.50× [22.00× – 26.00×] of tcp-connect".to_string()
            )]
        );
        let mut f = ArmFilter::default();
        f.toggle(crate::data::filter::Facet::Protocol(
            shared::Protocol::Tls13,
        ));
        assert!(tls_over_tcp(&ev, &f).is_empty());
        assert_eq!(
            run_card(&ev).main[0],
            ("run id".to_string(), ev.run.id.clone())
        );
    }
}
