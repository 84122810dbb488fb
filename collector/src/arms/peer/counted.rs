//! A peer server's CPU work per handshake, as a whole-process instruction count: after a
//! stack's timed arms, each setup's server is started once more under a counter
//! ([`ProcessCounter`]: callgrind, lent from `crate::instructions`), and for each of its
//! arms the rustls client makes the warm-up handshakes, the count is zeroed, the counted
//! handshakes are made (each checked as a timed one: a resumed arm that did not resume gets
//! no count) and the count is dumped. Then the server is left idle for [`IDLE`], and what
//! it executes idle per second is taken off each arm's count over that arm's time. Only the server is counted, as a whole process: its event loop, the request, its
//! logging are in it; the client (this process) and the kernel are not.

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use shared::{Arm, CountOutcome, Counted, EndCount, KindCounts};

use super::counter::ProcessCounter;
use super::ready::presents_leaf;
use super::servers::{PeerServer, RustlsAgainst, ServerStack};
use super::work::{Context, Work};
use crate::arms::measured::count_kind;
use crate::arms::rustls::www::WwwClient;
use crate::arms::{verify, Cell, Session};

/// How long a server started under the counter may take to answer its first handshake
/// (valgrind translates its code as it first runs).
const START: Duration = Duration::from_secs(60);
/// The pause after a batch of handshakes before the count is zeroed or dumped, so that
/// the server has served the last connection's close.
const SETTLE: Duration = Duration::from_millis(150);
/// How long the server is left idle to measure what it executes idle.
pub const IDLE: Duration = Duration::from_millis(500);

/// One arm's dump: what the server executed over its counted handshakes, and how long
/// that took (between the zero and the dump).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Busy {
    pub instructions: u64,
    pub took: Duration,
    pub kinds: Option<KindCounts>,
}

/// What the server executed idle: `instructions` over `took`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Idle {
    pub instructions: u64,
    pub took: Duration,
}

/// An arm's count: its dump less the idle rate over as long, over `handshakes`.
pub fn counted(busy: Busy, idle: Idle, handshakes: u64) -> Result<Counted> {
    let rate = idle.instructions as f64 / idle.took.as_secs_f64().max(1e-3);
    let idle_part = rate * busy.took.as_secs_f64();
    let total = busy.instructions as f64 - idle_part;
    if handshakes == 0 || total < 1.0 {
        bail!(
            "the server executed {} instructions over {handshakes} handshakes, no more than idle over as long ({idle_part:.0})",
            busy.instructions
        );
    }
    let total = total.round() as u64;
    Ok(Counted {
        handshakes,
        client: None,
        server: EndCount {
            total,
            per_handshake: total as f64 / handshakes as f64,
            kinds: busy.kinds,
        },
    })
}

/// Counts the server of every arm of `idx` that is a [`RustlsAgainst`] arm measured
/// without error, where the run counts ([`Context::counter`]) and the stack's servers can
/// run under a counter ([`ServerStack::counts_under`]); each gets its record's
/// `instructions`. One server per setup, one more at once than the run has CPUs.
pub fn count_servers<S: ServerStack>(
    stack: &S,
    w: &Work,
    idx: &[usize],
    records: &mut [Option<Arm>],
) {
    let Some(counter) = w.ctx.counter else { return };
    if !stack.counts_under() {
        return;
    }
    let mut setups: std::collections::BTreeMap<S::Setup, Vec<(usize, Cell)>> =
        std::collections::BTreeMap::new();
    for &i in idx {
        let Some(&RustlsAgainst(cell)) = w.arms[i].detail::<RustlsAgainst>() else {
            continue;
        };
        let measured = records[i]
            .as_ref()
            .is_some_and(|r| r.error.is_none() && r.skipped.is_none() && r.succeeded > 0);
        if measured {
            setups
                .entry(stack.setup(&cell, w.args))
                .or_default()
                .push((i, cell));
        }
    }
    if setups.is_empty() {
        return;
    }
    let n: usize = setups.values().map(Vec::len).sum();
    eprintln!(
        "collector: counting {}'s instructions per handshake under callgrind, whole process: {n} arms × {} handshakes (after {} warm-up)",
        stack.server_name(),
        counter.handshakes(),
        counter.warmup()
    );
    let started = Instant::now();
    let setups: Vec<_> = setups.into_iter().collect();
    // Counts do not care about contention: the setups' servers are counted at once (this
    // runs after the stack's timed arms, and the next stack's wait for it), one more than
    // the CPUs the run may use, since each also waits: for its start, for connections to
    // settle, for vgdb to reach it, through its idle interval.
    let threads = crate::cpu::plan().available.len() + 1;
    let failed = |e: &anyhow::Error| CountOutcome::Failed {
        error: format!("{e:#}"),
    };
    let done = crate::cpu::on_every_cpu(&setups, threads, &|| w.stopped(), |k, (setup, arms)| {
        let name = format!("count-{}-{}", stack.server_name(), k + 1);
        match count_setup(stack, w, counter, *setup, arms, &name) {
            Ok(each) => each
                .into_iter()
                .map(|c| c.map_or_else(|e| failed(&e), CountOutcome::Counted))
                .collect(),
            Err(e) => arms.iter().map(|_| failed(&e)).collect::<Vec<_>>(),
        }
    });
    for (k, outcomes) in done {
        for (&(i, _), outcome) in setups[k].1.iter().zip(outcomes) {
            if let Some(rec) = records[i].as_mut() {
                rec.instructions = Some(counter.record(outcome));
            }
        }
    }
    eprintln!(
        "collector: counted {}'s whole process in {:.1} s",
        stack.server_name(),
        started.elapsed().as_secs_f64()
    );
}

/// One setup's server under the counter, and each of `arms`' counts.
fn count_setup<S: ServerStack>(
    stack: &S,
    w: &Work,
    counter: &dyn ProcessCounter,
    setup: S::Setup,
    arms: &[(usize, Cell)],
    name: &str,
) -> Result<Vec<Result<Counted>>> {
    let (program, _) = w.tool(stack.server_tool().program)?;
    let under = counter.under(w.dir.path(), name);
    let ctx = Context {
        io_timeout: START.max(w.ctx.io_timeout),
        ..*w.ctx
    };
    let counted_work = Work {
        ctx: &ctx,
        under: Some(&under),
        ..*w
    };
    let probe = arms.first().context("no arm")?.1.full().spec();
    let ready = |addr: SocketAddr| presents_leaf(&probe, w.store, addr, ctx.io_timeout);
    let mut server = stack
        .start(program, setup, &counted_work, &ready)
        .with_context(|| format!("{} under callgrind did not start", stack.server_name()))?;
    let pid = server
        .pid()
        .context("the server's process id is not known: it cannot be counted")?;
    // Off the servers' CPUs of the timed arms' placement: onto any the run may use.
    crate::cpu::set_affinity(pid as libc::pid_t, &crate::cpu::plan().available)
        .context("moving the counted server onto every CPU")?;
    let mut dumps = 0;
    let mut busy = Vec::new();
    for &(_, cell) in arms {
        if w.stopped() {
            bail!("the run was stopped before this arm was counted");
        }
        busy.push(count_arm(
            stack,
            &mut server,
            (&ctx, w),
            counter,
            cell,
            (pid, name, &mut dumps),
        ));
    }
    let idle = measure_idle(counter, w.dir.path(), (pid, name, &mut dumps))?;
    server.check_alive()?;
    if let Some(problem) = server.problem() {
        bail!("{problem}");
    }
    let handshakes = counter.handshakes();
    Ok(busy
        .into_iter()
        .map(|b| counted(b?, idle, handshakes))
        .collect())
}

/// Arm `cell`'s counted handshakes against `server`: warm-up, zero, handshakes, dump.
fn count_arm<S: ServerStack>(
    stack: &S,
    server: &mut S::Server,
    (ctx, w): (&Context, &Work),
    counter: &dyn ProcessCounter,
    cell: Cell,
    (pid, name, dumps): (u32, &str, &mut usize),
) -> Result<Busy> {
    let spec = cell.spec();
    let mut client = WwwClient::new(
        &spec,
        w.store,
        server.addr(),
        ctx.io_timeout,
        stack.server_name(),
        server.view()?,
    )?
    .with_exchange(stack.exchange());
    let reports = client.server_reports();
    let mut kinds = KindCounts::default();
    let one = |client: &mut WwwClient, kinds: &mut KindCounts| -> Result<()> {
        let o = client.connect_once()?;
        let problems = verify::check(&spec, &o, reports);
        if !problems.is_empty() {
            bail!(
                "a counted handshake was not this arm's: {}",
                problems.join("; ")
            );
        }
        if let Some(h) = o.server {
            count_kind(kinds, h.kind);
        }
        Ok(())
    };
    // The warm-up primes resumption (a resumed arm's first handshake is full): it must
    // connect, and is not checked.
    for _ in 0..counter.warmup() {
        client.connect_once().context("a warm-up handshake")?;
    }
    std::thread::sleep(SETTLE);
    counter.zero(pid)?;
    let t = Instant::now();
    for _ in 0..counter.handshakes() {
        one(&mut client, &mut kinds)?;
    }
    std::thread::sleep(SETTLE);
    *dumps += 1;
    let instructions = counter.dump(pid, w.dir.path(), name, *dumps)?;
    Ok(Busy {
        instructions,
        took: t.elapsed(),
        kinds: reports.then_some(kinds),
    })
}

/// What the server executes idle over [`IDLE`].
fn measure_idle(
    counter: &dyn ProcessCounter,
    dir: &Path,
    (pid, name, dumps): (u32, &str, &mut usize),
) -> Result<Idle> {
    counter.zero(pid)?;
    let t = Instant::now();
    std::thread::sleep(IDLE);
    *dumps += 1;
    let instructions = counter.dump(pid, dir, name, *dumps)?;
    Ok(Idle {
        instructions,
        took: t.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    #[test]
    fn the_idle_rate_over_the_arms_time_is_taken_off_before_dividing() {
        // 10 handshakes in 2 s, 5,000,000 instructions; idle: 30,000 in 3 s (10,000/s),
        // so 20,000 of them are idle: (5,000,000 - 20,000) / 10 = 498,000.
        let busy = Busy {
            instructions: 5_000_000,
            took: 2 * SEC,
            kinds: None,
        };
        let idle = Idle {
            instructions: 30_000,
            took: 3 * SEC,
        };
        let c = counted(busy, idle, 10).unwrap();
        assert_eq!(c.handshakes, 10);
        assert_eq!(c.client, None);
        assert_eq!(c.server.total, 4_980_000);
        assert_eq!(c.server.per_handshake, 498_000.0);
    }

    #[test]
    fn a_dump_no_larger_than_idle_is_no_count() {
        let busy = Busy {
            instructions: 1_000,
            took: SEC,
            kinds: None,
        };
        let idle = Idle {
            instructions: 2_000,
            took: SEC,
        };
        let e = counted(busy, idle, 10).unwrap_err();
        assert!(format!("{e}").contains("no more than idle"), "{e}");
        assert!(counted(
            Busy {
                instructions: 5,
                ..busy
            },
            Idle {
                instructions: 0,
                took: SEC
            },
            0
        )
        .is_err());
    }
}
