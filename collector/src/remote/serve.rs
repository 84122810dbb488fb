//! `collector serve`: the server side of every arm on one host, for a client on another.

use std::collections::{BTreeMap, HashMap};
use std::net::{SocketAddr, TcpListener};
use std::process::ExitCode;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};

pub use super::args::ServeArgs;
use super::secure;
use super::session::{accept_control, guard_all, Control};
use super::wire::{Manifest, ServedArm, PROTOCOL_VERSION};
use crate::arms::server::Server;
use crate::arms::{self, rustls as tls, tcp, SessionOptions};
use crate::certs::CertStore;
use crate::evidence::{environment, write};
use crate::netem::Placement;

/// Refuses a non-loopback address unless the user said `--allow-remote`.
pub fn check_address(addr: &SocketAddr, allow_remote: bool, flag: &str) -> Result<()> {
    if !addr.ip().is_loopback() && !allow_remote {
        bail!("{flag} {addr} is not a loopback address: add --allow-remote to use a real network (servers bind loopback only by default)");
    }
    Ok(())
}

pub fn serve(args: ServeArgs) -> Result<ExitCode> {
    check_address(&args.listen, args.allow_remote, "--listen")?;
    let std::net::IpAddr::V4(ip) = args.listen.ip() else {
        bail!("--listen needs an IPv4 address")
    };
    let control = TcpListener::bind(args.listen).with_context(|| {
        format!(
            "could not listen on {} (is another server using that port?)",
            args.listen
        )
    })?;
    let mut specs = arms::default_set(&args.set.certs, &args.set.groups, args.request);
    if args.break_resumption {
        specs
            .iter_mut()
            .for_each(|s| s.fault = arms::Fault::NoSessionStore);
    }
    // The control channel's TLS uses the first cert kind's leaf (made even if no arm
    // uses it), so its CA is in the bundle the client trusts.
    let control_kind = args
        .set
        .certs
        .first()
        .copied()
        .unwrap_or(shared::CertKind::EcdsaP256);
    let certs = CertStore::chained(
        specs
            .iter()
            .filter_map(|s| s.cert())
            .chain(std::iter::once(control_kind)),
        args.set.chain_depth,
    )?;
    write::write_atomic(&args.ca_out, certs.ca_bundle().as_bytes())?;
    let io_timeout = Duration::from_millis(args.io_timeout_ms);
    let opts = SessionOptions {
        io_timeout,
        request: args.request,
        placement: Placement {
            server_ns: None,
            server_ip: ip,
        },
        keepalive_requests: crate::arms::keepalive::DEFAULT_REQUESTS,
    };
    let mut servers: HashMap<String, Server> = HashMap::new();
    let mut served = Vec::new();
    for spec in &specs {
        let server = match spec.protocol() {
            shared::Protocol::Tcp => tcp::start_server(&opts)?,
            _ => tls::start_server(spec, &certs, &opts, 1)?,
        };
        served.push(ServedArm::new(spec, server.addr().port()));
        servers.insert(spec.id(), server);
    }
    let leaves: BTreeMap<_, _> = args
        .set
        .certs
        .iter()
        .filter_map(|&k| Some((k, certs.get(k).ok()?.leaf.to_vec())))
        .collect();
    let manifest = Manifest {
        protocol_version: PROTOCOL_VERSION,
        environment: environment::collect(environment::load_average()),
        request: args.request,
        arms: served,
        leaves,
    };
    let token = new_token()?;
    eprintln!(
        "collector serve: {} arms on {ip}, control on {}; CA certificates (no keys) in {}\n\
         client: collector run --target {} --ca {} --token {token}{}\n\
         Ctrl-C stops the servers.",
        specs.len(),
        args.listen,
        args.ca_out.display(),
        args.listen,
        args.ca_out.display(),
        if args.listen.ip().is_loopback() {
            ""
        } else {
            " --allow-remote"
        }
    );
    let control_state = Arc::new(Control {
        manifest,
        token,
        io_timeout,
        tls: secure::server_config(&certs, control_kind)?,
        servers: Mutex::new(HashMap::new()),
        connections: AtomicUsize::new(0),
    });
    // Nobody reaches an arm until a client has a session.
    guard_all(&servers, &control_state, None)?;
    *control_state
        .servers
        .lock()
        .map_err(|_| anyhow::anyhow!("servers poisoned"))? = servers;
    accept_control(control, control_state);
    Ok(ExitCode::SUCCESS)
}

/// A new random token: 128 bits, hex.
pub fn new_token() -> Result<String> {
    let mut bytes = [0u8; 16];
    aws_lc_rs::rand::fill(&mut bytes).map_err(|_| anyhow::anyhow!("no random bytes"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
