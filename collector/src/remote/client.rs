//! `collector run --target ADDR --ca FILE`: the client side against `collector serve`.

use std::io::BufReader;
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;

use super::secure::{self, ClientStream};
use super::wire::{self, HelloReply, Manifest, ReportReply, Request, PROTOCOL_VERSION};
use std::sync::atomic::AtomicBool;

use crate::arms::Plan;
use crate::arms::{rustls as tls, tcp, ArmSpec, Handshake, Outcome, Session, SessionOptions};
use crate::measure::measure_sessions;

/// The control connection to a `collector serve`.
pub struct Remote {
    pub manifest: Manifest,
    target: SocketAddr,
    control: Mutex<BufReader<ClientStream>>,
}

impl Remote {
    /// Connects over TLS, trusting only `roots` (the run's CA), and says hello with
    /// `token`.
    pub fn connect(
        target: SocketAddr,
        token: &str,
        roots: RootCertStore,
        timeout: Duration,
    ) -> Result<Remote> {
        let stream = TcpStream::connect_timeout(&target, timeout)
            .with_context(|| format!("could not reach `collector serve` at {target}"))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(timeout * 2))?;
        stream.set_write_timeout(Some(timeout * 2))?;
        let tls = secure::client(secure::client_config(roots)?, stream)?;
        let mut reader = BufReader::new(tls);
        // The TLS handshake runs here, on the first write.
        wire::send(
            reader.get_mut(),
            &Request::Hello {
                protocol_version: PROTOCOL_VERSION,
                token: token.to_string(),
            },
        )
        .with_context(|| {
            format!("the TLS handshake with `collector serve` at {target} failed (--ca must be the file that serve wrote with --ca-out)")
        })?;
        let reply: HelloReply = wire::receive(&mut reader)
            .with_context(|| {
                format!("{target} did not answer as `collector serve` {PROTOCOL_VERSION} would (an older collector?)")
            })?
            .ok_or_else(|| anyhow!("{target} closed the control connection"))?;
        let manifest = reply.map_err(|e| anyhow!("collector serve at {target}: {e}"))?;
        if manifest.protocol_version != PROTOCOL_VERSION {
            bail!(
                "{target} speaks control protocol {}, this collector {PROTOCOL_VERSION}: use the same collector version on both hosts",
                manifest.protocol_version
            );
        }
        Ok(Remote {
            manifest,
            target,
            control: Mutex::new(reader),
        })
    }

    fn report(&self, arm: &str, port: u16) -> Result<Option<Handshake>> {
        let mut guard = self
            .control
            .lock()
            .map_err(|_| anyhow!("control connection poisoned"))?;
        let reader = &mut *guard;
        wire::send(
            reader.get_mut(),
            &Request::Report {
                arm: arm.to_string(),
                port,
            },
        )?;
        let reply: ReportReply = wire::receive(reader)?
            .ok_or_else(|| anyhow!("the server closed the control connection"))?;
        match reply {
            Ok(facts) => facts.map(Handshake::try_from).transpose(),
            Err(e) => bail!("server side: {e}"),
        }
    }

    /// Sessions for the served arms whose ids pass `keep`, trusting exactly `roots`.
    pub fn sessions(
        self: &Arc<Self>,
        roots: &RootCertStore,
        keep: impl Fn(&ArmSpec) -> bool,
        io_timeout: Duration,
    ) -> Result<Vec<(ArmSpec, Box<dyn Session>)>> {
        let opts = SessionOptions::loopback(io_timeout, self.manifest.request);
        let mut out: Vec<(ArmSpec, Box<dyn Session>)> = Vec::new();
        for served in &self.manifest.arms {
            let spec = served.spec();
            if !keep(&spec) {
                continue;
            }
            let addr = SocketAddr::new(self.target.ip(), served.port);
            let client = match spec.cert() {
                None => None,
                Some(kind) => {
                    let leaf = self
                        .manifest
                        .leaves
                        .get(&kind)
                        .with_context(|| format!("no {kind} leaf in the manifest"))?;
                    let config = tls::client_config_trusting(&spec, roots.clone())?;
                    Some(tls::TlsClient::with_config(
                        &spec,
                        config,
                        CertificateDer::from(leaf.clone()),
                        &opts,
                    )?)
                }
            };
            out.push((
                spec,
                Box::new(RemoteSession {
                    remote: self.clone(),
                    id: served.id.clone(),
                    addr,
                    client,
                    opts,
                }),
            ));
        }
        Ok(out)
    }
}

struct RemoteSession {
    remote: Arc<Remote>,
    id: String,
    addr: SocketAddr,
    /// None for the plain TCP arm.
    client: Option<tls::TlsClient>,
    opts: SessionOptions<'static>,
}

impl Session for RemoteSession {
    fn connect_once(&mut self) -> Result<Outcome> {
        match &self.client {
            None => {
                let (outcome, port) =
                    tcp::once(self.addr, self.opts.io_timeout, self.opts.request, false)?;
                self.remote.report(&self.id, port)?;
                Ok(outcome)
            }
            Some(client) => {
                let c = client.once(self.addr)?;
                let server = self.remote.report(&self.id, c.local_port)?;
                Ok(c.into_outcome(server))
            }
        }
    }
}

/// Measures the arms `collector serve` at `target` offers (those matching `filter`),
/// returning their evidence and the server host's environment.
// One call site (run/mod.rs), each argument a separate run flag.
#[allow(clippy::too_many_arguments)]
pub fn arms(
    target: SocketAddr,
    ca_file: &Path,
    token: &str,
    allow_remote: bool,
    filter: Option<&str>,
    plan: &Plan,
    io_timeout: Duration,
    stop: &AtomicBool,
) -> Result<(Vec<shared::Arm>, shared::Environment)> {
    super::serve::check_address(&target, allow_remote, "--target")?;
    let roots = secure::load_roots(ca_file)?;
    let remote = Arc::new(Remote::connect(target, token, roots.clone(), io_timeout)?);
    let served: Vec<ArmSpec> = remote.manifest.arms.iter().map(|a| a.spec()).collect();
    let keep: Vec<ArmSpec> = match filter {
        Some(f) => crate::arms::filter(served.clone(), f),
        None => served.clone(),
    };
    if keep.is_empty() {
        let ids: Vec<String> = served.iter().map(ArmSpec::id).collect();
        bail!(
            "--arms matches none of the arms {target} serves:\n  {}",
            ids.join("\n  ")
        );
    }
    let mut sessions = remote.sessions(&roots, |s| keep.contains(s), io_timeout)?;
    eprintln!(
        "collector: {} arms against collector serve at {target}",
        sessions.len()
    );
    // The servers decide request/response mode; the client follows.
    let plan = Plan {
        request: remote.manifest.request,
        ..*plan
    };
    let arms = measure_sessions(&mut sessions, &plan, "remote", stop);
    drop(sessions);
    let host = match Arc::try_unwrap(remote) {
        Ok(r) => r.manifest.environment,
        Err(shared) => shared.manifest.environment.clone(),
    };
    Ok((arms, host))
}
