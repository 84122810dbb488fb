//! Running the peer phase: tools, private files, servers, then every planned arm.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{bail, Result};
use shared::{Arm, CertKind, Comparison, KxGroup, Library};

use super::plan::{self, PeerArm, Tool};
use super::private_dir::PrivateDir;
use super::{openssl_run, rate, which, PeerArgs};
use crate::arms::openssl::{self, PemFiles};
use crate::arms::{python, ArmSpec};
use crate::certs::CertStore;
use crate::measure::{stats, Plan};

/// The run's settings the peer phase needs.
pub struct Context<'a> {
    pub quick: bool,
    pub rounds: u64,
    pub warmup_per_chunk: u64,
    pub seed: u64,
    pub bootstrap: usize,
    pub io_timeout: Duration,
    pub stop: &'a AtomicBool,
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
    /// Per tool: its program and version, or why it cannot run.
    tools: BTreeMap<Tool, std::result::Result<(PathBuf, String), String>>,
    group: Option<KxGroup>,
    all_ids: Vec<String>,
}

/// Everything a tool's arms need while they run.
pub(super) struct Work<'a> {
    pub ctx: &'a Context<'a>,
    pub plan: &'a Plan,
    pub args: &'a PeerArgs,
    pub arms: &'a [PeerArm],
    /// The group OpenSSL pins (None: no OpenSSL arms).
    pub group: Option<KxGroup>,
    pub dir: &'a PrivateDir,
    pub files: &'a BTreeMap<CertKind, PemFiles>,
    pub store: &'a CertStore,
    /// The tool's program and version.
    pub program: &'a Path,
    pub version: &'a str,
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
    ) -> Result<Phase> {
        let group = plan::openssl_group(groups);
        let all = plan::plan(certs, group);
        let all_ids = all.iter().map(PeerArm::id).collect();
        let arms = if args.no_peers || !loopback {
            Vec::new()
        } else {
            plan::filtered(all, filter)
        };
        let mut tools = BTreeMap::new();
        for tool in [Tool::Openssl, Tool::Python] {
            if !arms.iter().any(|a| a.tool() == tool) {
                continue;
            }
            let name = tool.program();
            let found = match which(name) {
                None => Err(format!("`{name}` is not on PATH")),
                Some(p) => match tool {
                    Tool::Openssl => openssl::version(&p),
                    Tool::Python => python::version(&p),
                }
                .map(|v| (p, v))
                .map_err(|e| format!("{e:#}")),
            };
            if let (true, Err(why)) = (args.require_peers, &found) {
                bail!("--require-peers: {why} (needed by the {name} peer arms; install it or drop --require-peers)");
            }
            tools.insert(tool, found);
        }
        Ok(Phase {
            args: args.clone(),
            arms,
            tools,
            group,
            all_ids,
        })
    }

    /// Ids of the planned peer arms (for `--list-arms`).
    pub fn ids(&self) -> Vec<String> {
        self.arms.iter().map(PeerArm::id).collect()
    }

    /// Ids of every peer arm these certs and groups have, before `--arms` and `--no-peers`.
    pub fn all_ids(&self) -> Vec<String> {
        self.all_ids.clone()
    }

    /// Runs every planned arm whose tool is there; the others are recorded as skipped.
    /// Stops early (keeping nothing of the unfinished step) when `ctx.stop` is set.
    pub fn run(&self, ctx: &Context) -> Result<PeerResults> {
        let mut out = PeerResults::default();
        for (tool, found) in &self.tools {
            out.peers.push(Library {
                name: tool.program().into(),
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
        };
        let mut records: Vec<Option<Arm>> = vec![None; self.arms.len()];
        for (i, a) in self.arms.iter().enumerate() {
            let why = match self.tools.get(&a.tool()) {
                Some(Err(why)) => Some(why.clone()),
                _ => a.known_skip(),
            };
            if let Some(why) = why {
                let mut arm = a.empty_arm(None);
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
                .filter_map(|&i| self.arms[i].spec().cert)
                .collect();
            let store = CertStore::generate(certs.iter().copied())?;
            let dir = PrivateDir::create()?;
            let files = write_files(&dir, &store, &certs)?;
            eprintln!(
                "collector: peer arms: {} to run ({} s of s_time per arm, {samples} connections per latency arm)",
                runnable.len(),
                self.args.peer_seconds
            );
            for (tool, found) in &self.tools {
                let Ok((program, version)) = found else {
                    continue;
                };
                let work = Work {
                    ctx,
                    plan: &plan,
                    args: &self.args,
                    arms: &self.arms,
                    group: self.group,
                    dir: &dir,
                    files: &files,
                    store: &store,
                    program,
                    version,
                };
                match tool {
                    Tool::Openssl => openssl_run::run(&work, &mut records)?,
                    Tool::Python => python_arms(&work, &mut records),
                }
            }
        }
        let mut kept_plan = Vec::new();
        for (a, r) in self.arms.iter().zip(records) {
            if let Some(r) = r {
                kept_plan.push(*a);
                out.arms.push(r);
            }
        }
        out.comparisons = rate::comparisons(&kept_plan, &out.arms, ctx.bootstrap, ctx.seed);
        out.settings = self.settings(&plan);
        Ok(out)
    }

    fn settings(&self, plan: &Plan) -> BTreeMap<String, String> {
        let mut s = BTreeMap::new();
        let mut put = |k: &str, v: String| {
            s.insert(k.to_string(), v);
        };
        put("peer_s_time", format!("{} s of s_time per arm in {} slices of {:.3} s, interleaved across arms in an order shuffled per slice from the seed; s_time -connect 127.0.0.1 -tls1_3|-tls1_2 -new|-reuse [-www /x] -time 3600, stopped by the collector with SIGKILL (s_time itself stops only on whole wall-clock seconds); connections and resumptions are its per-connection progress characters (`*` new, `r` reused) after the first; real seconds from the collector reading the first one to the kill (read in 20 ms batches after the first); user CPU is the process's whole user time from wait4 (start-up, certificate loading and -reuse's untimed priming connection included, which s_time's own figure leaves out); s_time's default verification (nothing enforced)", self.args.peer_seconds, self.args.peer_slices, self.args.peer_seconds / self.args.peer_slices as f64));
        put("peer_s_server", format!("openssl s_server -accept 127.0.0.1:<port> -WWW -quiet -groups {} with the run's leaf certificate and key (PEM in a private temporary folder, 0700/0600, removed at the end), serving one 1-byte file /x; one process per certificate, one connection at a time, default session cache and 2 TLS 1.3 tickets; confirmed ready by one untimed full rustls handshake that must present the run's leaf (before any warm-up)", self.group.and_then(openssl::group_name).unwrap_or("-")));
        put("peer_rustls_server_for_s_time", "the collector's rustls server config for the arm's version, cert and group (defaults: 256-entry session cache, no ticketer, so resumption is stateful), one thread; answers a request (-www) with a 1-byte body and closes".into());
        put("peer_rate_comparison", "resume_rate_speedup = rate(-reuse arm) / rate(-new arm) of the same version, cert, group and server, per real second and per user-CPU second of the s_time client process, only where every -reuse connection resumed. The TLS 1.3 -reuse-www arm also writes a request and reads a 1-byte answer per connection, which its -new baseline does not: the ratio slightly understates resumption's gain".into());
        put("peer_rate_ci_method", stats::RATE_CI_METHOD.into());
        put("peer_latency_arms", format!("rustls client ↔ openssl s_server and Python ssl: {} timed connections per arm in {} rounds with {} untimed warm-up connections before each chunk; the shared timing loop and statistics; s_server gives no per-connection report, so for those arms a missing server report is accepted (and only for them) and resumption is counted by the rustls client", plan.samples, plan.rounds, plan.warmup_per_chunk));
        put("peer_python", "collector/peers/python_arm.py (embedded), stdin plan, stdout JSON with one record per connection; TCP_NODELAY on both ends, SO_LINGER {on,0} on the client; client and server threads in one process; resumed arms: one server SSLContext for every connection, the client takes sock.session after reading the app byte; session_reused checked per connection on both ends; groups: OpenSSL defaults (Python 3.11 cannot pin them)".into());
        s
    }
}

/// The Python arms: one run of the embedded script for all of them.
fn python_arms(w: &Work, records: &mut [Option<Arm>]) {
    let idx: Vec<usize> = (0..w.arms.len())
        .filter(|&i| records[i].is_none() && w.arms[i].tool() == Tool::Python)
        .collect();
    if idx.is_empty() || w.ctx.stop.load(Ordering::SeqCst) {
        return;
    }
    eprintln!("collector: peer arms: Python ssl ({} arms)", idx.len());
    let specs: Vec<ArmSpec> = idx.iter().map(|&i| w.arms[i].spec()).collect();
    match python::run(w.program, w.dir, w.files, &specs, w.plan, w.ctx.io_timeout) {
        Ok((reported, runs)) => {
            for (&i, run) in idx.iter().zip(runs) {
                records[i] = Some(w.arms[i].measured_arm(Some(reported.clone()), &run));
            }
        }
        Err(_) if w.ctx.stop.load(Ordering::SeqCst) => {}
        Err(e) => {
            for &i in &idx {
                let mut arm = w.arms[i].empty_arm(Some(w.version.to_string()));
                arm.error = Some(format!("the Python arm script failed: {e:#}"));
                records[i] = Some(arm);
            }
        }
    }
}

/// Writes each cert kind's leaf, key and CA as PEM (0600) into `dir`.
fn write_files(
    dir: &PrivateDir,
    store: &CertStore,
    certs: &[CertKind],
) -> Result<BTreeMap<CertKind, PemFiles>> {
    let mut out = BTreeMap::new();
    for &kind in certs {
        if out.contains_key(&kind) {
            continue;
        }
        let set = store.get(kind)?;
        let pem = |tag: &str, der: &[u8]| pem::encode(&pem::Pem::new(tag, der.to_vec()));
        let files = PemFiles {
            cert: dir.write(
                &format!("{kind}-leaf.pem"),
                pem("CERTIFICATE", set.leaf.as_ref()).as_bytes(),
            )?,
            key: dir.write(
                &format!("{kind}-key.pem"),
                pem("PRIVATE KEY", set.leaf_key().secret_der()).as_bytes(),
            )?,
            ca: dir.write(
                &format!("{kind}-ca.pem"),
                pem("CERTIFICATE", set.ca.as_ref()).as_bytes(),
            )?,
        };
        out.insert(kind, files);
    }
    Ok(out)
}
