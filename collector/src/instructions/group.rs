//! Some arms' counts: one server and one client process, each under callgrind, serving
//! the arms one after the other over loopback TCP (the kernel's work on either end is not
//! counted either way). The server starts first and says its port; for each arm both ends
//! make the warm-up handshakes, then the counted ones, report the kinds of their counted
//! handshakes, and let callgrind write the arm's count to a file of its own. A handshake
//! that was not of its arm's kind fails that arm's count instead of giving a number.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use shared::{CountOutcome, Counted, EndCount};

use super::handoff::{self, For};
use super::process::{Counting, Spec};
use super::side::{self, SideReport};
use super::valgrind::{read_count, Files, Valgrind};
use super::window::Window;
use crate::arms::ArmSpec;
use crate::certs::CertStore;

/// What every group's count shares.
pub struct Setup<'a> {
    pub valgrind: &'a Valgrind,
    /// The collector binary (this one), run as `count-side`.
    pub program: &'a Path,
    /// The run's private folder for callgrind's files (removed with it).
    pub dir: &'a Path,
    pub warmup: u64,
    pub handshakes: u64,
    /// Longest one arm may take; also the sockets' I/O timeout (under valgrind a
    /// process's first handshake, translated as it runs, is slow, and a peer that stalls
    /// is stopped at the group's deadline anyway).
    pub per_arm: Duration,
    pub break_resumption: bool,
    /// Set by Ctrl-C: running processes are stopped.
    pub stop: &'a AtomicBool,
}

/// Each of `arms`' counts, or why there is none, in order. `name` names the group's
/// files (unique in the run).
pub fn count(
    setup: &Setup<'_>,
    name: &str,
    arms: &[ArmSpec],
    certs: &CertStore,
) -> Vec<CountOutcome> {
    match run(setup, name, arms, certs) {
        Ok(outcomes) => outcomes,
        Err(e) => {
            let error = format!("{e:#}");
            arms.iter()
                .map(|_| CountOutcome::Failed {
                    error: error.clone(),
                })
                .collect()
        }
    }
}

fn run(
    setup: &Setup<'_>,
    name: &str,
    arms: &[ArmSpec],
    certs: &CertStore,
) -> Result<Vec<CountOutcome>> {
    let deadline = Instant::now() + Duration::from_secs(30) + setup.per_arm * arms.len() as u32;
    let ids: Vec<String> = arms.iter().map(ArmSpec::id).collect();
    let mut kinds: Vec<_> = arms.iter().filter_map(|a| a.cert()).collect();
    kinds.sort();
    kinds.dedup();
    let sets = kinds
        .iter()
        .map(|&k| Ok((k, certs.get(k)?)))
        .collect::<Result<Vec<_>>>()?;
    let args = |role: &str| -> Vec<String> {
        let mut a: Vec<String> = ["count-side", role, "--arms"].map(String::from).into();
        a.push(ids.join(","));
        for (flag, v) in [
            ("--warmup", setup.warmup),
            ("--handshakes", setup.handshakes),
            ("--io-timeout-ms", setup.per_arm.as_millis() as u64),
        ] {
            a.extend([flag.to_string(), v.to_string()]);
        }
        a
    };
    let files = |role: &str| Files::in_dir(setup.dir, &format!("{name}-{role}"));
    let spec_of = |role: &str, window: Window, args: Vec<String>, stdin: String| Spec {
        valgrind: setup.valgrind,
        window,
        files: files(role),
        program: setup.program,
        args,
        stdin,
        what: format!("the {role} counting {}", ids.join(", ")),
    };
    let mut server_args = args("server");
    if setup.break_resumption {
        server_args.push("--break-resumption".into());
    }
    let mut server = Counting::start(spec_of(
        "server",
        Window::Server,
        server_args,
        handoff::encode(sets.iter().copied(), For::Server),
    ))?;
    let line = server.next_line(deadline)?;
    let port = side::port_of(&line)
        .with_context(|| format!("the server printed `{line}`, not its port"))?;
    let mut client_args = args("client");
    client_args.extend(["--port".to_string(), port.to_string()]);
    let client = Counting::start(spec_of(
        "client",
        Window::Client,
        client_args,
        handoff::encode(sets.iter().copied(), For::Client),
    ))?;
    let c = client.finish(deadline, setup.stop);
    // A client that failed leaves the server waiting for its next connection: its own
    // error, if it has one, comes at once.
    let s = server.finish(
        if c.is_ok() {
            deadline
        } else {
            Instant::now() + Duration::from_secs(2)
        },
        setup.stop,
    );
    let (c, s) = match (c, s) {
        (Ok(c), Ok(s)) => (c, s),
        (Err(ce), Err(se)) => bail!("{se:#}; {ce:#}"),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => return Err(e),
    };
    let reports = |lines: &[String], side: &str| -> Result<Vec<SideReport>> {
        let reports = lines
            .iter()
            .map(|l| serde_json::from_str(l).with_context(|| format!("the {side}'s report `{l}`")))
            .collect::<Result<Vec<SideReport>>>()?;
        if reports.iter().map(|r| &r.arm).ne(ids.iter()) {
            bail!("the {side} reported other arms than it was given");
        }
        Ok(reports)
    };
    let (client, server) = (reports(&c, "client")?, reports(&s, "server")?);
    let grace = Instant::now() + Duration::from_secs(5);
    let (cf, sf) = (files("client"), files("server"));
    Ok((0..arms.len())
        .map(|k| {
            arm(
                setup.handshakes,
                [
                    (&client[k], read_count(&cf.dump(k + 1), grace)),
                    (&server[k], read_count(&sf.dump(k + 1), grace)),
                ],
            )
            .map_or_else(
                |e| CountOutcome::Failed {
                    error: format!("{e:#}"),
                },
                CountOutcome::Counted,
            )
        })
        .collect())
}

/// One arm's count from its two ends' reports and dumps (client first).
fn arm(handshakes: u64, ends: [(&SideReport, Result<u64>); 2]) -> Result<Counted> {
    let problems = ends.iter().flat_map(|(r, _)| r.problems.iter());
    if let Some(most) = problems.clone().map(|(_, n)| *n).max() {
        let list: Vec<String> = problems.map(|(p, n)| format!("{n}× {p}")).collect();
        bail!(
            "{most} of {handshakes} counted handshakes were not what this arm counts: {}",
            list.join("; ")
        );
    }
    let [client, server] = ends.map(|(report, count)| -> Result<EndCount> {
        side::check_count(report, handshakes)?;
        let total = count?;
        if total == 0 {
            bail!("callgrind counted no instruction in the window: its function was not found");
        }
        Ok(EndCount {
            total,
            per_handshake: total as f64 / handshakes as f64,
            kinds: Some(report.kinds),
        })
    });
    Ok(Counted {
        handshakes,
        client: Some(client.context("the client")?),
        server: server.context("the server")?,
    })
}
