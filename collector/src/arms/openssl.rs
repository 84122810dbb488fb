//! OpenSSL as a peer: `openssl s_server` (a process on 127.0.0.1 serving the run's
//! certificate), `openssl s_time` (run for a fixed slice of wall time, its per-connection
//! progress characters counted), and the rustls ends that face them.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use rustls::{ServerConfig, ServerConnection};
use shared::{KxGroup, Protocol};

use super::s_time::{self, Counts};
use super::server::{Handler, Server};
use super::{tls, ArmSpec, Handshake, Outcome, Session, SessionOptions};
use crate::certs::CertStore;
use crate::peers::private_dir::Guarded;

/// The file s_server serves (`-WWW`) and its content: one byte, like the rustls arms.
pub const WWW_FILE: &str = "x";
/// The request path s_time and the rustls client ask for.
pub const WWW_PATH: &str = "/x";
const REQUEST: &[u8] = b"GET /x HTTP/1.0\r\n\r\n";
const RESPONSE: &[u8] = b"HTTP/1.0 200 ok\r\nContent-type: text/plain\r\n\r\nx";

/// One full handshake to `addr` with the rustls client of `spec` (recording off), which
/// trusts only the run's CA: Ok only if the server presents the run's own leaf for
/// `spec`'s certificate kind. What a peer server must pass before it is measured.
pub fn presents_leaf(
    spec: &ArmSpec,
    certs: &CertStore,
    addr: SocketAddr,
    io_timeout: Duration,
) -> Result<()> {
    let probe = ArmSpec {
        mode: shared::Mode::Full,
        resumption: None,
        early_data: false,
        phases: super::PhaseRecording::Off,
        ..*spec
    };
    let opts = SessionOptions::loopback(io_timeout, false);
    let client = tls::TlsClient::new(&probe, certs, &opts)?;
    let h = client.handshake(addr)?;
    match client.facts(&h).and_then(|f| f.expected_cert) {
        Some(true) => Ok(()),
        _ => bail!("the server on {addr} did not present the run's leaf"),
    }
}

/// `openssl version`'s first line, e.g. `OpenSSL 3.0.19 27 Jan 2026 (Library: ...)`.
pub fn version(program: &Path) -> Result<String> {
    let out = Command::new(program)
        .arg("version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("could not run `{} version`", program.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.lines().next().map(str::trim) {
        Some(line) if out.status.success() && !line.is_empty() => Ok(line.to_string()),
        _ => bail!(
            "`{} version` failed ({}): {}",
            program.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}

/// OpenSSL's name for a group, or None where OpenSSL 3.0 has none (the ML-KEM hybrid).
pub fn group_name(g: KxGroup) -> Option<&'static str> {
    match g {
        KxGroup::X25519 => Some("X25519"),
        KxGroup::Secp256r1 => Some("P-256"),
        KxGroup::Secp384r1 => Some("P-384"),
        KxGroup::X25519Mlkem768 => None,
    }
}

/// One certificate kind's PEM files in the private folder.
#[derive(Debug, Clone)]
pub struct PemFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

/// A running `openssl s_server -WWW` on 127.0.0.1, killed on drop.
pub struct SServer {
    process: Guarded,
    addr: SocketAddr,
    log: PathBuf,
}

impl SServer {
    /// Starts s_server for `files`, serving `www` (which holds [`WWW_FILE`]), with the
    /// key exchange pinned to `group`; waits until `ready` succeeds against it (a
    /// handshake that presents the run's leaf: see [`presents_leaf`]), not merely until
    /// something listens on the port.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        program: &Path,
        files: &PemFiles,
        www: &Path,
        group: KxGroup,
        log: PathBuf,
        io_timeout: Duration,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Self> {
        let group = group_name(group)
            .ok_or_else(|| anyhow!("openssl s_server: OpenSSL 3.0 has no group {group}"))?;
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
            .local_addr()?
            .port();
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let log_file = std::fs::File::create(&log)
            .with_context(|| format!("could not create {}", log.display()))?;
        let mut cmd = Command::new(program);
        cmd.current_dir(www)
            .args(["s_server", "-accept", &addr.to_string(), "-WWW", "-quiet"])
            .args(["-groups", group])
            .arg("-cert")
            .arg(&files.cert)
            .arg("-key")
            .arg(&files.key)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file);
        let mut server = SServer {
            process: Guarded::spawn(&mut cmd, "openssl s_server")?,
            addr,
            log,
        };
        let deadline = Instant::now() + io_timeout;
        loop {
            server.check_alive()?;
            let probe = ready(addr);
            if probe.is_ok() {
                return Ok(server);
            }
            if Instant::now() > deadline {
                let why = probe.err().map(|e| format!("{e:#}")).unwrap_or_default();
                bail!("openssl s_server on {addr} was not ready within {io_timeout:?}: {why}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// An error (with the end of s_server's log) if the process has ended.
    pub fn check_alive(&mut self) -> Result<()> {
        if let Some(status) = self.process.child.try_wait()? {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: String = log.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
            bail!(
                "openssl s_server (pid {}) exited ({status}): {tail}",
                self.process.id()
            );
        }
        Ok(())
    }
}

/// How s_time reuses sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum STimeMode {
    /// `-new`: a new session for every connection.
    New,
    /// `-reuse`: the session of one untimed first connection, offered every time.
    Reuse,
    /// `-reuse -www /x`: the same, reading a response after each handshake.
    ReuseWww,
}

/// One s_time run, cut to a fixed slice of wall time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slice {
    /// Connections completed inside the window (progress characters after the first).
    pub counts: Counts,
    /// The whole process's user CPU (wait4 rusage), start-up included.
    pub user_cpu_s: f64,
    /// From reading s_time's first progress character to killing it.
    pub real_s: f64,
}

/// Runs `openssl s_time` against `addr` for `seconds` of wall time after its first
/// connection completes, then kills it (SIGKILL) and counts what it printed. None when
/// `stop` was set meanwhile (the process is killed and nothing is counted).
pub fn s_time_slice(
    program: &Path,
    addr: SocketAddr,
    protocol: Protocol,
    mode: STimeMode,
    seconds: f64,
    io_timeout: Duration,
    stop: &AtomicBool,
) -> Result<Option<Slice>> {
    let mut cmd = Command::new(program);
    cmd.args(["s_time", "-connect", &addr.to_string()])
        .arg(if protocol == Protocol::Tls12 {
            "-tls1_2"
        } else {
            "-tls1_3"
        })
        .arg(if mode == STimeMode::New {
            "-new"
        } else {
            "-reuse"
        })
        // s_time only stops on whole seconds; the collector stops it sooner.
        .args(["-time", "3600"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if mode == STimeMode::ReuseWww {
        cmd.args(["-www", WWW_PATH]);
    }
    let mut proc = Guarded::spawn(&mut cmd, "openssl s_time")?;
    let mut stdout = proc.child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            if tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                break;
            }
            // Only the first chunk's time matters; read the rest in batches (the pipe
            // holds far more than a slice prints) instead of waking per connection.
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let fail = |proc: &mut Guarded, what: String| -> anyhow::Error {
        let _ = proc.kill_and_reap();
        let mut err = String::new();
        if let Some(mut e) = proc.child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        anyhow!("openssl s_time {what}: {}", err.trim())
    };
    let mut text = Vec::new();
    // The first chunk arrives with the first progress character: s_time's stdout is a
    // pipe, so its header stays buffered until the flush after the first connection.
    let (t0, first) = match rx.recv_timeout(io_timeout) {
        Ok(chunk) => chunk,
        Err(_) => return Err(fail(&mut proc, "completed no connection".into())),
    };
    text.extend_from_slice(&first);
    let before = Counts::of(&s_time::parse(&String::from_utf8_lossy(&text))?.progress);
    if before.connections == 0 {
        return Err(fail(
            &mut proc,
            "printed no progress character first".into(),
        ));
    }
    let end = t0 + Duration::from_secs_f64(seconds);
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        if stop.load(Ordering::SeqCst) {
            let _ = proc.kill_and_reap();
            return Ok(None);
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
    if let Some(status) = proc.child.try_wait()? {
        return Err(fail(&mut proc, format!("stopped by itself ({status})")));
    }
    let real_s = t0.elapsed().as_secs_f64();
    let user_cpu_s = proc.kill_and_reap()?;
    let _ = reader.join();
    rx.try_iter()
        .for_each(|(_, chunk)| text.extend_from_slice(&chunk));
    let all = Counts::of(&s_time::parse(&String::from_utf8_lossy(&text))?.progress);
    Ok(Some(Slice {
        counts: Counts {
            connections: all.connections - before.connections,
            reused: all.reused - before.reused,
        },
        user_cpu_s,
        real_s,
    }))
}

/// A rustls server for s_time: the arm's rustls server config; after the handshake it
/// answers a request (`-www`) with [`RESPONSE`] and closes, or closes when the client does.
#[derive(Clone)]
struct ForSTime {
    config: Arc<ServerConfig>,
}

impl Handler for ForSTime {
    fn handle(
        &mut self,
        mut tcp: TcpStream,
        report: &mut dyn FnMut(std::result::Result<Option<Handshake>, String>),
    ) {
        let mut conn = match ServerConnection::new(self.config.clone()) {
            Ok(c) => c,
            Err(e) => return report(Err(e.to_string())),
        };
        while conn.is_handshaking() {
            if let Err(e) = conn.complete_io(&mut tcp) {
                // s_time without -www closes at once: writing the TLS 1.3 tickets may
                // fail after the handshake itself completed.
                if !conn.is_handshaking() {
                    break;
                }
                return report(Err(format!("handshake: {e}")));
            }
        }
        report(Ok(tls::facts(&conn)));
        let mut stream = rustls::Stream::new(&mut conn, &mut tcp);
        let mut request = Vec::new();
        let mut buf = [0u8; 512];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf) {
                Ok(n @ 1..) => request.extend_from_slice(&buf[..n]),
                _ => return, // closed without a request (s_time without -www)
            }
        }
        if stream.write_all(RESPONSE).is_ok() {
            conn.send_close_notify();
            let _ = conn.complete_io(&mut tcp);
        }
    }
}

/// Starts the rustls server s_time connects to, for `arm` (its cert, group, version).
pub fn rustls_server_for_s_time(
    arm: &ArmSpec,
    certs: &CertStore,
    io_timeout: Duration,
) -> Result<Server> {
    let handler = ForSTime {
        config: Arc::new(tls::server_config(arm, certs)?),
    };
    Server::spawn(&format!("{arm} for s_time"), io_timeout, handler)
}

/// The rustls client against `openssl s_server`: timed like the rustls arms (connect +
/// handshake), then it asks for [`WWW_PATH`] and reads the answer, so TLS 1.3 tickets
/// arrive. s_server reports nothing per connection: `Outcome::server` is None.
pub struct SServerClient {
    client: tls::TlsClient,
    addr: SocketAddr,
}

impl SServerClient {
    pub fn new(
        arm: &ArmSpec,
        certs: &CertStore,
        addr: SocketAddr,
        io_timeout: Duration,
    ) -> Result<Self> {
        // s_server speaks its own `-WWW` protocol after the handshake: the request and
        // the read below, not the rustls arms' request mode.
        let opts = SessionOptions::loopback(io_timeout, false);
        Ok(SServerClient {
            client: tls::TlsClient::new(arm, certs, &opts)?,
            addr,
        })
    }
}

impl Session for SServerClient {
    fn connect_once(&mut self) -> Result<Outcome> {
        let mut h = self.client.handshake(self.addr)?;
        let mut stream = rustls::Stream::new(&mut h.conn, &mut h.tcp);
        stream.write_all(REQUEST).context("sending the request")?;
        let mut answer = Vec::new();
        match stream.read_to_end(&mut answer) {
            Ok(_) => {}
            // s_server closes without close_notify at times; the answer is what counts.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
            Err(e) => return Err(e).context("reading s_server's answer"),
        }
        if !(answer.starts_with(b"HTTP/1.0 200") && answer.ends_with(b"\r\n\r\nx")) {
            bail!(
                "unexpected answer from s_server: {:?}",
                String::from_utf8_lossy(&answer[..answer.len().min(80)])
            );
        }
        Ok(Outcome {
            elapsed: h.elapsed,
            connect: h.connect,
            cycle: h.started.elapsed(),
            client: self.client.facts(&h),
            server: None,
            keepalive: None,
        })
    }

    fn server_reports(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use shared::{CertKind, KxGroup, Mode};

    use super::*;
    use crate::arms::default_set;

    /// Serves one TLS connection on loopback with `certs`' leaf; returns its address.
    fn one_tls_server(certs: &CertStore) -> SocketAddr {
        let set = certs.get(CertKind::EcdsaP256).unwrap();
        let config = ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![set.leaf.clone()], set.leaf_key())
        .unwrap();
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut tcp, _) = listener.accept().unwrap();
            let mut conn = ServerConnection::new(Arc::new(config)).unwrap();
            let _ = conn.complete_io(&mut tcp);
        });
        addr
    }

    #[test]
    fn readiness_needs_a_handshake_with_the_runs_own_leaf() {
        let ours = CertStore::generate([CertKind::EcdsaP256]).unwrap();
        let spec = default_set(&[CertKind::EcdsaP256], &[KxGroup::X25519], false)
            .into_iter()
            .find(|s| s.protocol == Protocol::Tls13 && s.mode == Mode::Full)
            .unwrap();
        let t = Duration::from_secs(5);
        presents_leaf(&spec, &ours, one_tls_server(&ours), t).expect("our own leaf");
        // Another run's certificates on the port: not ready.
        let other = CertStore::generate([CertKind::EcdsaP256]).unwrap();
        assert!(presents_leaf(&spec, &ours, one_tls_server(&other), t).is_err());
        // A listener that is not a TLS server at all: not ready.
        let plain = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let addr = plain.local_addr().unwrap();
        std::thread::spawn(move || {
            let (s, _) = plain.accept().unwrap();
            drop(s);
        });
        assert!(presents_leaf(&spec, &ours, addr, t).is_err());
    }
}
