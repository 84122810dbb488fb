//! Running the peer phase: tools, private files, then every planned arm, stack by stack.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, Result};
use shared::{Arm, CertKind, Comparison, KxGroup, Library};

use super::plan;
use super::stacks::{self, STACKS};
use super::which;
use crate::arms::peer::files::write_files;
use crate::arms::peer::private_dir::PrivateDir;
use crate::arms::peer::work::Found;
use crate::arms::peer::{Context, Lent, PeerArgs, PeerArm, Work};
use crate::arms::{ArmRun, ArmSpec, Plan, Session};
use crate::certs::CertStore;
use crate::measure;
use crate::progress::Progress;

/// What the driver lends every stack (through [`Work`]): the timing loop and the
/// evidence record of a run, both above `arms`.
const LENT: Lent = Lent {
    timing_loop,
    build_arm: measure::build_arm,
};

/// [`measure::run`] with a progress display over `sessions`.
fn timing_loop(
    sessions: &mut [(ArmSpec, Box<dyn Session>)],
    plan: &Plan,
    round_group: &str,
    stop: &AtomicBool,
) -> Vec<ArmRun> {
    let specs: Vec<ArmSpec> = sessions.iter().map(|(s, _)| *s).collect();
    let progress = Progress::new(&specs, plan.samples);
    let runs = measure::run(sessions, plan, round_group, &progress, stop);
    progress.finish();
    runs
}

/// What the peer phase adds to the evidence.
#[derive(Debug, Default)]
pub struct PeerResults {
    pub arms: Vec<Arm>,
    pub comparisons: Vec<Comparison>,
    /// `Environment.peers`: each tool looked for, with its version or why it is missing.
    pub peers: Vec<Library>,
    /// Entries for `settings.extra`.
    pub settings: BTreeMap<String, String>,
}

/// The peer arms of a run, with their tools looked up (before measuring, so that
/// `--require-peers` fails fast).
pub struct Phase {
    args: PeerArgs,
    arms: Vec<PeerArm>,
    tools: BTreeMap<&'static str, Found>,
    all_ids: Vec<String>,
}

/// Why a peer arm's certificate cannot be served by its stack, found out before running
/// it: an ML-DSA key its library cannot load (with the version of its tool found), or a
/// chain with intermediates (peer servers are given the leaf alone).
fn cell_skip(
    a: &PeerArm,
    tools: &BTreeMap<&'static str, Found>,
    chain_depth: u8,
) -> Option<String> {
    let cert = a.spec.cert()?;
    let stack = STACKS.iter().find(|s| s.name() == a.stack)?;
    if crate::certs::ml_dsa(cert) {
        if let Some(why) = stack.no_ml_dsa() {
            let found = a
                .tools
                .iter()
                .find_map(|t| tools.get(t.program)?.as_ref().ok())
                .map_or(String::new(), |(_, v)| format!(" (found: {v})"));
            return Some(format!("{cert} certificate: {why}{found}"));
        }
    }
    (chain_depth > 0).then(|| {
        format!("--chain-depth {chain_depth}: peer servers are given the leaf alone, so chains are measured on the rustls arms only")
    })
}

impl Phase {
    /// Plans the peer arms (none with `--no-peers` or when `loopback` is false: they run
    /// on plain loopback only) and looks up their tools.
    pub fn prepare(
        args: &PeerArgs,
        certs: &[CertKind],
        groups: &[KxGroup],
        filter: Option<&str>,
        loopback: bool,
        chain_depth: u8,
    ) -> Result<Phase> {
        let all = stacks::plan(certs, groups);
        let all_ids = all.iter().map(|a| a.id.clone()).collect();
        let arms = if args.no_peers || !loopback {
            Vec::new()
        } else {
            plan::filtered(all, filter)
        };
        // Servers bind loopback only: a stack that cannot runs only when asked by name.
        let wide = stacks::beyond_loopback();
        let arms: Vec<_> = arms
            .into_iter()
            .filter(|a| match wide.iter().find(|(name, _)| *name == a.stack) {
                None => true,
                Some((name, why)) => {
                    let asked = filter.is_some_and(|f| f.contains(name));
                    if asked {
                        eprintln!("collector: warning: {name} arms asked for by --arms: {why}");
                    }
                    asked
                }
            })
            .collect();
        if filter.is_none() && !args.no_peers && loopback {
            for (name, why) in &wide {
                eprintln!("collector: {name} arms are not in the default run ({why}); ask for them with --arms '*{name}*'");
            }
        }
        let mut tools = BTreeMap::new();
        for (name, (tool, stacks)) in plan::tools(&arms) {
            let found = match which(name) {
                None => Err(format!("`{name}` is not on PATH")),
                Some(p) => (tool.version)(&p)
                    .map(|v| (p, v))
                    .map_err(|e| format!("{e:#}")),
            };
            if let (true, Err(why)) = (args.require_peers, &found) {
                bail!(
                    "--require-peers: {why} (needed by the {} peer arms; install it or drop --require-peers)",
                    stacks.join(", ")
                );
            }
            tools.insert(name, found);
        }
        let mut arms = arms;
        for a in arms.iter_mut().filter(|a| a.known_skip.is_none()) {
            a.known_skip = cell_skip(a, &tools, chain_depth);
        }
        Ok(Phase {
            args: args.clone(),
            arms,
            tools,
            all_ids,
        })
    }

    /// Ids of the planned peer arms (for `--list-arms`).
    pub fn ids(&self) -> Vec<String> {
        self.arms.iter().map(|a| a.id.clone()).collect()
    }

    /// Whether a planned arm's server will be counted as a whole process (a rustls-client
    /// arm of a stack that counts its servers), where the run counts instructions.
    pub fn counts_servers(&self) -> bool {
        self.arms.iter().any(|a| {
            a.detail::<crate::arms::peer::servers::RustlsAgainst>()
                .is_some()
                && STACKS
                    .iter()
                    .any(|s| s.name() == a.stack && s.counts_servers())
        })
    }

    /// Ids of every peer arm these certs and groups have, before `--arms` and `--no-peers`.
    pub fn all_ids(&self) -> Vec<String> {
        self.all_ids.clone()
    }

    /// Runs every planned arm whose tools are there; the others are recorded as skipped.
    /// Stops early (keeping nothing of the unfinished step) when `ctx.stop` is set.
    pub fn run(&self, ctx: &Context) -> Result<PeerResults> {
        let mut out = PeerResults::default();
        for (name, found) in &self.tools {
            out.peers.push(Library {
                name: name.to_string(),
                version: match found {
                    Ok((_, v)) => v.clone(),
                    Err(why) => format!("not used: {why}"),
                },
            });
        }
        if self.arms.is_empty() || ctx.stop.load(Ordering::SeqCst) {
            return Ok(out);
        }
        let samples = self
            .args
            .peer_samples
            .unwrap_or(if ctx.quick { 100 } else { 300 });
        let plan = Plan {
            samples,
            warmup_per_chunk: ctx.warmup_per_chunk,
            rounds: ctx.rounds.min(samples),
            seed: ctx.seed,
            request: false,
            trace_every: 0,
            noise: ctx.noise,
        };
        let mut records: Vec<Option<Arm>> = vec![None; self.arms.len()];
        for (i, a) in self.arms.iter().enumerate() {
            let missing = a
                .tools
                .iter()
                .find_map(|t| match self.tools.get(t.program) {
                    Some(Err(why)) => Some(why.clone()),
                    _ => None,
                });
            if let Some(why) = missing.or_else(|| a.known_skip.clone()) {
                let mut arm = a.empty_arm(LENT.build_arm, None);
                arm.skipped = Some(why);
                records[i] = Some(arm);
            }
        }
        let runnable: Vec<usize> = (0..self.arms.len())
            .filter(|&i| records[i].is_none())
            .collect();
        if !runnable.is_empty() {
            let certs: Vec<CertKind> = runnable
                .iter()
                .filter_map(|&i| self.arms[i].spec.cert())
                .collect();
            let store = CertStore::generate(certs.iter().copied())?;
            let dir = PrivateDir::create()?;
            let files = write_files(&dir, &store, &certs)?;
            eprintln!(
                "collector: peer arms: {} to run ({} s of s_time per arm, {samples} connections per latency arm)",
                runnable.len(),
                self.args.peer_seconds
            );
            let work = Work {
                ctx,
                plan: &plan,
                args: &self.args,
                arms: &self.arms,
                dir: &dir,
                files: &files,
                store: &store,
                tools: &self.tools,
                lent: LENT,
                under: None,
            };
            for stack in STACKS {
                let idx: Vec<usize> = runnable
                    .iter()
                    .copied()
                    .filter(|&i| self.arms[i].stack == stack.name())
                    .collect();
                if !idx.is_empty() && !work.stopped() {
                    stack.run(&work, &idx, &mut records)?;
                }
            }
        }
        let mut kept_plan = Vec::new();
        for (a, r) in self.arms.iter().zip(records) {
            if let Some(r) = r {
                kept_plan.push(a.clone());
                out.arms.push(r);
            }
        }
        for stack in STACKS {
            out.comparisons.extend(stack.comparisons(
                &kept_plan,
                &out.arms,
                ctx.bootstrap,
                ctx.seed,
            ));
        }
        out.settings = self.settings(&plan);
        Ok(out)
    }

    fn settings(&self, plan: &Plan) -> BTreeMap<String, String> {
        let mut s = BTreeMap::new();
        s.insert("peer_latency_arms".to_string(), format!("rustls client ↔ peer servers, and Python ssl: {} timed connections per arm in {} rounds with {} untimed warm-up connections before each chunk; the shared timing loop and statistics; where a peer server gives no per-connection report (openssl s_server, Caddy, botan tls_server) a missing server report is accepted (and only for its arms), resumption is counted by the client and the arm records its server end as unverified (verified.server)", plan.samples, plan.rounds, plan.warmup_per_chunk));
        for stack in STACKS {
            if self.arms.iter().any(|a| a.stack == stack.name()) {
                for (k, v) in stack.settings(&self.args, plan) {
                    s.insert(k.to_string(), v);
                }
            }
        }
        s
    }
}
