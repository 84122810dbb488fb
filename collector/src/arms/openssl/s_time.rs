//! `openssl s_time` as a client: run for a fixed slice of wall time, its per-connection
//! progress characters counted; and the rustls server it is also run against.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use rustls::{ServerConfig, ServerConnection};
use shared::Protocol;

use super::s_time_output::{self as s_time, Counts};
use super::{RESPONSE, WWW_PATH};
use crate::arms::peer::process::Guarded;
use crate::arms::rustls as tls;
use crate::arms::server::{Handler, Server};
use crate::arms::{ArmSpec, Handshake};
use crate::certs::CertStore;

/// How s_time reuses sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum STimeMode {
    /// `-new`: a new session for every connection.
    New,
    /// `-reuse`: the session of one untimed first connection, offered every time.
    Reuse,
    /// `-reuse -www /x`: the same, reading a response after each handshake.
    ReuseWww,
    /// `-new -www /x`: a new session for every connection, each reading a response.
    NewWww,
}

impl STimeMode {
    /// Whether each connection offers the earlier session (`-reuse`).
    pub fn reuses(self) -> bool {
        matches!(self, STimeMode::Reuse | STimeMode::ReuseWww)
    }

    /// Whether each connection asks for [`WWW_PATH`] and reads the answer (`-www`).
    pub fn www(self) -> bool {
        matches!(self, STimeMode::ReuseWww | STimeMode::NewWww)
    }

    /// Its part of an arm id: `new`, `reuse`, `reuse-www`, `new-www`.
    pub fn as_str(self) -> &'static str {
        match self {
            STimeMode::New => "new",
            STimeMode::Reuse => "reuse",
            STimeMode::ReuseWww => "reuse-www",
            STimeMode::NewWww => "new-www",
        }
    }
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
        .arg(if !mode.reuses() { "-new" } else { "-reuse" })
        // s_time only stops on whole seconds; the collector stops it sooner.
        .args(["-time", "3600"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if mode.www() {
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
