//! Arms over an emulated link ([`crate::netem`]): the same sessions and timing loop as
//! on loopback, with the client thread in one network namespace and the servers in
//! another. A grid's cells (RTT × loss) are interleaved on one path — every cell's arms
//! in the same shuffled rounds, each cell's servers on a link of their own — so whatever
//! the host does hits every cell alike and a lossy cell pairs with its 0% control; with
//! `--parallel-links`, links run one per path, several at a time, each alone.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};
use shared::Arm;

use super::link_record::{decorate, Cell};
use crate::arms::Plan;
use crate::arms::{ArmSpec, Session, SessionOptions};
use crate::certs::CertStore;
use crate::netem::{DelayPath, LinkSpec, SetupInterrupted};
use crate::progress::Progress;

/// The rounds of an interleaved grid are named this in the evidence (`round_group`).
pub const GRID_GROUP: &str = "link-grid";

/// `20ms`, `0.5ms`: the suffix of an RTT arm's id.
pub fn label(rtt: Duration) -> String {
    let ms = rtt.as_secs_f64() * 1000.0;
    format!("rtt{}ms", trim(ms))
}

/// The suffix of an arm's id on `link`: `-rtt20ms`, or with `label_loss`
/// `-loss3pct-rtt20ms` (the RTT last, so one arm at one loss reads as one line across RTTs).
pub fn suffix(link: &LinkSpec, label_loss: bool) -> String {
    if label_loss {
        format!("-{}-{}", link.loss_label(), label(link.rtt))
    } else {
        format!("-{}", label(link.rtt))
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The loss RNG's seed of the `index`-th link of a run seeded `seed` (recorded per arm).
pub fn link_seed(seed: u64, index: usize) -> u64 {
    seed ^ 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(index as u64 + 1)
}

/// How long a connection may make no progress over `link`: the run's timeout plus ten
/// round trips, and on a lossy link 15 s more, so a SYN lost four times in a row (TCP
/// waits 1 + 2 + 4 + 8 s) is a slow sample, not a failure.
pub fn io_timeout(base: Duration, link: &LinkSpec) -> Duration {
    let lossy = if link.loss > 0.0 {
        Duration::from_secs(15)
    } else {
        Duration::ZERO
    };
    base + link.rtt * 10 + lossy
}

/// Measures `specs` on every link in `links` (request/response mode: the window ends at
/// the first response byte). Stops early, keeping what was measured, when `stop` is set.
///
/// With `parallel` 1, every link is a cell of one path and all cells' arms are
/// interleaved in the same rounds ([`grid`]). With more, `parallel` links are measured
/// at the same time, each on a path of its own (its own namespaces, TUN devices and
/// relay threads: [`DelayPath::numbered`]), the links with the longest RTT and loss
/// first; within a link its arms are interleaved in rounds, but links are not with each
/// other. The arms come back in the order of `links` whatever finished first.
pub fn run(
    specs: &[ArmSpec],
    (links, label_loss): (&[LinkSpec], bool),
    plan: &Plan,
    certs: &CertStore,
    (io_timeout_base, keepalive_requests): (Duration, u64),
    parallel: usize,
    stop: &AtomicBool,
) -> Result<Vec<Arm>> {
    let workers = parallel.clamp(1, links.len().max(1));
    let opts = (io_timeout_base, keepalive_requests, label_loss);
    if workers == 1 {
        let path = open_path(stop, 0)?;
        path.client.enter()?;
        let cells: Vec<(usize, &LinkSpec)> = links.iter().enumerate().collect();
        return grid(&path, specs, &cells, GRID_GROUP, (plan, certs), opts, stop);
    }
    let order = slowest_first(links);
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Vec<Arm>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (order, next, done) = (&order, &next, &done);
                scope.spawn(move || -> Result<()> {
                    let path = open_path(stop, w)?;
                    // This thread (and the servers it starts) now lives in the client
                    // namespace; the relay threads, started above, stay outside.
                    path.client.enter()?;
                    loop {
                        let Some(&index) = order.get(next.fetch_add(1, Ordering::SeqCst)) else {
                            return Ok(());
                        };
                        if stop.load(Ordering::SeqCst) {
                            return Ok(());
                        }
                        // One link alone on its path, its rounds named after it.
                        let link = [(index, &links[index])];
                        let group = suffix(&links[index], label_loss);
                        let group = group.trim_start_matches('-');
                        let arms = grid(&path, specs, &link, group, (plan, certs), opts, stop)?;
                        done.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((index, arms));
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("an emulated-link worker does not panic")?;
        }
        Ok(())
    })?;
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|d| d.0);
    Ok(done.into_iter().flat_map(|d| d.1).collect())
}

/// The `n`-th emulated path of the run, or why there is none.
fn open_path(stop: &AtomicBool, n: usize) -> Result<DelayPath> {
    DelayPath::numbered(stop, n).map_err(|e| {
        // A signal during setup is not a missing privilege: say only that (run/mod.rs).
        if e.is::<SetupInterrupted>() {
            e
        } else {
            e.context(
                "emulated round trips (--rtt, --link, --loss) need root, `ip` (iproute2) and /dev/net/tun; no RTT result was faked",
            )
        }
    })
}

/// Every arm of `specs` on every link of `links` (each with its index in the run's
/// grid), all interleaved in the same rounds (named `group`) on `path`, this thread
/// already in its client namespace: each session's server port gets its cell's link
/// ([`DelayPath::assign`]), so a round visits every cell in shuffled order and drift
/// hits each alike.
fn grid(
    path: &DelayPath,
    specs: &[ArmSpec],
    links: &[(usize, &LinkSpec)],
    group: &str,
    (plan, certs): (&Plan, &CertStore),
    (io_timeout_base, keepalive_requests, label_loss): (Duration, u64, bool),
    stop: &AtomicBool,
) -> Result<Vec<Arm>> {
    let Some((first_index, first)) = links.first() else {
        return Ok(Vec::new());
    };
    // The path's own link sets the devices' MTU, which every cell shares.
    path.set_link(first, link_seed(plan.seed, *first_index))?;
    let mut cells = Vec::new();
    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = Vec::new();
    for &(index, link) in links {
        let seed = link_seed(plan.seed, index);
        let suffix = suffix(link, label_loss);
        let opts = SessionOptions {
            io_timeout: io_timeout(io_timeout_base, link),
            request: plan.request,
            placement: path.placement(),
            keepalive_requests,
        };
        for spec in specs {
            let session = spec
                .start(certs, &opts)
                .with_context(|| format!("starting arm {spec} at{suffix}"))?;
            let port = session.server_port();
            let Some(p) = port else {
                anyhow::bail!("arm {spec} has no server port of its own, so it cannot be one cell of an interleaved grid (--parallel-links 2 measures links apart)");
            };
            path.assign(p, link, seed)?;
            cells.push(Cell {
                link: *link,
                seed,
                suffix: suffix.clone(),
                port,
            });
            sessions.push((*spec, session));
        }
    }
    let asked: Vec<String> = links.iter().map(|(_, l)| l.to_string()).collect();
    eprintln!(
        "collector: {} arms × {} links interleaved on one emulated path ({})",
        specs.len(),
        links.len(),
        asked.join("; ")
    );
    let names: Vec<String> = sessions
        .iter()
        .zip(&cells)
        .map(|((s, _), c)| format!("{}{}", s.id(), c.suffix))
        .collect();
    let progress = Progress::named(&names, plan.samples);
    let runs = super::run(&mut sessions, plan, group, &progress, stop);
    progress.finish();
    Ok(runs
        .iter()
        .zip(&cells)
        .filter(|(r, _)| r.attempted > 0)
        .map(|(r, cell)| decorate(super::build_arm(r), r, cell, path))
        .collect())
}

/// The links' indexes, longest RTT first and, at one RTT, highest loss first: with fewer
/// workers than links, the slow ones start first and the run ends sooner.
pub fn slowest_first(links: &[LinkSpec]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..links.len()).collect();
    order.sort_by(|&a, &b| {
        (links[b].rtt, links[b].loss)
            .partial_cmp(&(links[a].rtt, links[a].loss))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_readable() {
        let link = LinkSpec::parse("rtt=20ms,loss=3%").unwrap();
        assert_eq!(suffix(&link, true), "-loss3pct-rtt20ms");
        assert_eq!(suffix(&link, false), "-rtt20ms");
        assert_eq!(label(Duration::from_millis(20)), "rtt20ms");
        assert_eq!(label(Duration::ZERO), "rtt0ms");
        assert_eq!(label(Duration::from_micros(500)), "rtt0.5ms");
    }

    #[test]
    fn links_run_slowest_first_and_ties_keep_their_order() {
        let links: Vec<LinkSpec> = [
            "rtt=5ms,loss=0%",
            "rtt=5ms,loss=20%",
            "rtt=50ms,loss=0%",
            "rtt=50ms,loss=3%",
            "rtt=5ms,loss=0%",
        ]
        .iter()
        .map(|l| LinkSpec::parse(l).unwrap())
        .collect();
        assert_eq!(slowest_first(&links), [3, 2, 1, 0, 4]);
        assert!(slowest_first(&[]).is_empty());
    }

    #[test]
    fn each_link_of_a_run_has_its_own_seed_and_a_lossy_link_waits_out_syn_retries() {
        let seeds: std::collections::HashSet<u64> = (0..20).map(|i| link_seed(7, i)).collect();
        assert_eq!(seeds.len(), 20);
        let base = Duration::from_secs(5);
        let plain = LinkSpec::parse("rtt=20ms").unwrap();
        assert_eq!(io_timeout(base, &plain), Duration::from_millis(5200));
        let lossy = LinkSpec::parse("rtt=20ms,loss=1%").unwrap();
        assert_eq!(io_timeout(base, &lossy), Duration::from_millis(20_200));
    }
}
