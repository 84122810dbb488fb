//! A small static file server for the site, bound to 127.0.0.1 only.
//!
//! `cargo xtask serve [DIR] [--port N]`: `--port 0` lets the system pick; when the asked
//! port is taken the next free one is used and said. The first line on stdout is the URL.
//! Ctrl-C stops it.
//!
//! Only `Host: 127.0.0.1:PORT` and `localhost:PORT` are answered (a page elsewhere that
//! rebinds its DNS name to 127.0.0.1 is refused with 421), no file outside the folder is
//! served (symlinks included), and each connection is bounded in size, time and number.

mod http;

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::{Answer, HeadError};

use anyhow::{bail, Context, Result};

use crate::site_build;

/// The port `cargo xtask lab` tries first.
pub const DEFAULT_PORT: u16 = 8000;

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut dir = None;
    let mut port = DEFAULT_PORT;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--port" => {
                port = it
                    .next()
                    .and_then(|p| p.parse().ok())
                    .context("--port needs a number (0: any free port)")?
            }
            flag if flag.starts_with('-') => bail!("unknown serve flag `{flag}`"),
            path => dir = Some(PathBuf::from(path)),
        }
    }
    serve(&dir.unwrap_or_else(site_build::default_out), port)?;
    Ok(ExitCode::SUCCESS)
}

/// Binds 127.0.0.1 on `port` (or the next free port within 20; 0: any).
pub fn bind(port: u16) -> Result<TcpListener> {
    let mut last = None;
    let candidates: Vec<u16> = if port == 0 {
        vec![0]
    } else {
        (port..=port.saturating_add(20)).collect()
    };
    for p in candidates {
        match TcpListener::bind((Ipv4Addr::LOCALHOST, p)) {
            Ok(l) => {
                if p != port {
                    eprintln!("xtask: port {port} is in use; using {p} instead");
                }
                return Ok(l);
            }
            Err(e) => last = Some(e),
        }
    }
    let e = last.map(|e| e.to_string()).unwrap_or_default();
    bail!(
        "no free port on 127.0.0.1 from {port} to {} ({e}); pass --port 0",
        port.saturating_add(20)
    )
}

/// What one connection may cost. Hand-written rather than a server crate: the site is
/// static and loopback-only, and these few limits are all it needs.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Longest request line (414 beyond).
    pub max_request_line: usize,
    /// Largest request head, request line and headers (431 beyond).
    pub max_head: usize,
    /// The whole head must arrive within this, however it is dripped (408 after).
    pub head_deadline: Duration,
    /// Each write of the answer (a reader that stops reading is dropped).
    pub write_timeout: Duration,
    /// Connections served at once; one more gets 503 and is closed.
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_line: 4096,
            max_head: 16 * 1024,
            head_deadline: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_connections: 32,
        }
    }
}

/// Serves `dir` until the process is stopped.
pub fn serve(dir: &Path, port: u16) -> Result<()> {
    if !dir.is_dir() {
        bail!(
            "{} is not a folder; build the site first (cargo xtask site)",
            dir.display()
        );
    }
    if !dir.join("index.html").is_file() {
        eprintln!(
            "xtask: note: {} has no index.html; serving its files (a site in a sub-folder?)",
            dir.display()
        );
    }
    let listener = bind(port)?;
    let addr = listener.local_addr()?;
    println!("http://{addr}/");
    eprintln!(
        "xtask: serving {} at http://{addr}/ (Ctrl-C stops)",
        dir.display()
    );
    let _ = std::io::stdout().flush();
    accept_loop(listener, dir, Limits::default())
}

/// Accepts forever. The root is canonicalised once, so every file's real path can be
/// checked against it.
pub fn accept_loop(listener: TcpListener, dir: &Path, limits: Limits) -> Result<()> {
    let root = Arc::new(
        dir.canonicalize()
            .with_context(|| format!("cannot resolve {}", dir.display()))?,
    );
    let port = listener.local_addr()?.port();
    let limits = Arc::new(limits);
    let busy = Arc::new(AtomicUsize::new(0));
    let mut backoff = Duration::ZERO;
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => {
                backoff = Duration::ZERO;
                s
            }
            Err(e) => {
                // Out of file descriptors (EMFILE) fails every accept until one is freed:
                // wait, longer each time, rather than spin.
                backoff = (backoff * 2).clamp(Duration::from_millis(10), Duration::from_secs(1));
                eprintln!("xtask: accept failed ({e}); retrying in {backoff:?}");
                std::thread::sleep(backoff);
                continue;
            }
        };
        if busy.fetch_add(1, Ordering::SeqCst) >= limits.max_connections {
            busy.fetch_sub(1, Ordering::SeqCst);
            refuse_busy(stream);
            continue;
        }
        let guard = Slot(busy.clone());
        let (root, limits) = (root.clone(), limits.clone());
        // The stream is shared so it can still be answered if no thread can be made.
        let shared = Arc::new(stream);
        let theirs = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("serve-conn".into())
            .spawn(move || {
                let _guard = guard;
                if let Ok(stream) = theirs.try_clone() {
                    drop(theirs);
                    let _ = respond(stream, &root, port, &limits);
                }
            });
        if let Err(e) = spawned {
            eprintln!("xtask: cannot start a thread ({e}); answering 503");
            if let Ok(stream) = Arc::try_unwrap(shared) {
                refuse_busy(stream);
            }
        }
    }
    Ok(())
}

/// Decrements the connection count when a connection's thread ends (or never started).
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn refuse_busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(200)));
    let _ = http::reply_text(&mut stream, 503, "busy: too many connections\n", true);
}

/// Closes after an early answer without losing it: closing with unread request bytes
/// makes the kernel send a reset that can discard the answer at the client, so stop
/// writing, then read and drop what is still arriving (bounded in bytes and time).
fn drain(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    let mut sink = [0u8; 8192];
    let until = Instant::now() + Duration::from_secs(1);
    let mut left: usize = 4 << 20;
    while Instant::now() < until && left > 0 {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

fn respond(mut stream: TcpStream, root: &Path, port: u16, limits: &Limits) -> std::io::Result<()> {
    stream.set_write_timeout(Some(limits.write_timeout))?;
    let deadline = Instant::now() + limits.head_deadline;
    let head = match http::read_head(&mut stream, limits, deadline) {
        Ok(head) => head,
        Err(e) => {
            let (code, text) = match e {
                HeadError::LineTooLong => (414, "request line too long\n"),
                HeadError::HeadTooLarge => (431, "request head too large\n"),
                HeadError::Timeout => (408, "request not received in time\n"),
                HeadError::Closed => return Ok(()),
            };
            http::reply_text(&mut stream, code, text, true)?;
            drain(&mut stream);
            return Ok(());
        }
    };
    match http::answer(&head, root, port) {
        Answer::Status(code, text, with_body) => {
            http::reply_text(&mut stream, code, text, with_body)
        }
        Answer::File(path, with_body) => {
            let Ok(mut file) = std::fs::File::open(&path) else {
                return http::reply_text(&mut stream, 404, "not found\n", with_body);
            };
            let len = file.metadata()?.len();
            let mut out = std::io::BufWriter::new(&mut stream);
            http::reply_head(&mut out, 200, http::content_type(&path), len)?;
            if with_body {
                std::io::copy(&mut (&mut file).take(len), &mut out)?;
            }
            out.flush()
        }
    }
}

#[cfg(test)]
mod tests;
