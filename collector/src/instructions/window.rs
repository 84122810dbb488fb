//! The counted windows: one function per window, each the target of callgrind's
//! `--toggle-collect`, so collection is on exactly while the function runs (its callees
//! included) and off everywhere else (`--collect-atstart=no`).
//!
//! Callgrind matches these by their demangled names ([`Window::function`]): each is
//! `#[inline(never)]` (an inlined copy has no name to match) and does something after its
//! last call (so the call cannot become a jump, which would end the window early), and
//! no two have the same body: the compiler merges functions with identical bodies into
//! one symbol, and then one window would toggle for another. The uncounted handshakes
//! (warm-up) call the same work directly, never through these.

use std::hint::black_box;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

use anyhow::{Context, Result};
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, ServerConfig, ServerConnection};

use crate::arms::rustls::drive::{self, End};
use crate::arms::trace::Trace;

/// Which counted function a process toggles collection on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    Client,
    Server,
    /// A loop of known length ([`calibration_loop`]): proves the window on a workload
    /// whose size is known.
    Calibrate,
}

impl Window {
    /// The counted function's name, as callgrind sees it after demangling (the crate
    /// path before it differs by build; the pattern is `*::<name>`).
    pub fn function(self) -> &'static str {
        match self {
            Window::Client => "hlab_counted_client_window",
            Window::Server => "hlab_counted_server_window",
            Window::Calibrate => "hlab_counted_calibrate_window",
        }
    }
}

/// The client's handshake: from creating its `ClientConnection` (the ClientHello: key
/// share, PSK binder) through every flight until it has read the server's first
/// application byte (TLS 1.3 tickets, which come before it, are processed by then).
pub fn client(
    config: &Arc<ClientConfig>,
    name: &ServerName<'static>,
    tcp: &mut TcpStream,
) -> Result<ClientConnection> {
    let mut conn = ClientConnection::new(config.clone(), name.clone())?;
    drive::handshake(&mut conn, tcp, &mut Trace::new(false), End::Client)?;
    let mut byte = [0u8; 1];
    rustls::Stream::new(&mut conn, tcp)
        .read_exact(&mut byte)
        .context("reading the server's first byte")?;
    Ok(conn)
}

/// The server's handshake: from creating its `ServerConnection` through every flight
/// until it has written its first application byte (with a TLS 1.3 server's tickets,
/// queued before it).
pub fn server(config: &Arc<ServerConfig>, tcp: &mut TcpStream) -> Result<ServerConnection> {
    let mut conn = ServerConnection::new(config.clone())?;
    drive::handshake(&mut conn, tcp, &mut Trace::new(false), End::Server)?;
    let mut stream = rustls::Stream::new(&mut conn, tcp);
    stream
        .write_all(b"x")
        .and_then(|()| stream.flush())
        .context("writing the first byte")?;
    Ok(conn)
}

/// `n` rounds of a multiply-add the compiler cannot fold away (each value passes through
/// [`black_box`]): a fixed number of instructions per round.
#[inline(never)]
pub fn calibration_loop(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = black_box(acc.wrapping_mul(31).wrapping_add(i));
    }
    acc
}

/// [`client`], counted.
#[inline(never)]
pub fn hlab_counted_client_window(
    config: &Arc<ClientConfig>,
    name: &ServerName<'static>,
    tcp: &mut TcpStream,
) -> Result<ClientConnection> {
    let conn = client(config, name, tcp);
    black_box(1u8);
    conn
}

/// [`server`], counted.
#[inline(never)]
pub fn hlab_counted_server_window(
    config: &Arc<ServerConfig>,
    tcp: &mut TcpStream,
) -> Result<ServerConnection> {
    let conn = server(config, tcp);
    black_box(2u16);
    conn
}

/// The name of [`hlab_arm_done`], after whose every return callgrind writes what it
/// counted since the last such dump to a file of its own (`--dump-after`).
pub const ARM_DONE: &str = "hlab_arm_done";

/// Called by each end after an arm's last counted handshake: callgrind then dumps that
/// arm's count (`<out>.<k>` for the k-th call) and starts the next from zero.
#[inline(never)]
pub fn hlab_arm_done(arm: usize) -> usize {
    black_box(arm)
}

/// [`calibration_loop`], counted.
#[inline(never)]
pub fn hlab_counted_calibrate_window(n: u64) -> u64 {
    let acc = calibration_loop(n);
    black_box(3u32);
    acc
}
