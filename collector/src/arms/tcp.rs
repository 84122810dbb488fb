//! The plain TCP connect arm: the floor every TLS arm stands on.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::server::{drain, ready_socket, Handler, Server};
use super::{Handshake, Outcome, Session, SessionOptions, END, REQUEST, RESPONSE};

#[derive(Clone)]
struct TcpHandler {
    request: bool,
}

impl Handler for TcpHandler {
    fn handle(
        &mut self,
        mut stream: TcpStream,
        report: &mut dyn FnMut(Result<Option<Handshake>, String>),
    ) {
        let answered = if self.request {
            let mut req = vec![0u8; REQUEST.len()];
            stream
                .read_exact(&mut req)
                .and_then(|_| stream.write_all(RESPONSE))
                .and_then(|_| stream.write_all(END))
        } else {
            stream.write_all(b"x")
        };
        match answered {
            Ok(()) => {
                drain(stream);
                report(Ok(None));
            }
            Err(e) => report(Err(format!("answering: {e}"))),
        }
    }
}

/// Starts the TCP arm's server, placed per `opts`.
pub fn start_server(opts: &SessionOptions) -> Result<Server> {
    let handler = TcpHandler {
        request: opts.request,
    };
    Server::spawn_at(
        "tcp-connect",
        opts.placement,
        None,
        opts.io_timeout,
        1,
        handler,
    )
}

/// The client half: one connection (and in request mode one request) against `addr`.
/// The timer starts before the socket is created, as for every other arm. Returns the
/// outcome (no handshake facts) and the client's local port.
/// With `tcp_info`, the socket's TCP counters are read after the window, before close.
pub fn once(
    addr: SocketAddr,
    io_timeout: Duration,
    request: bool,
    tcp_info: bool,
) -> Result<(Outcome, u16)> {
    let start = Instant::now();
    let socket = ready_socket(io_timeout)?;
    socket.connect(&addr.into()).context("connect")?;
    let connect = start.elapsed();
    let mut stream: TcpStream = socket.into();
    if request {
        stream.write_all(REQUEST).context("sending the request")?;
    }
    let mut byte = [0u8; 1];
    stream
        .read_exact(&mut byte)
        .context("reading the server's byte")?;
    let elapsed = if request { start.elapsed() } else { connect };
    if request {
        let mut rest = vec![0u8; RESPONSE.len() - 1 + END.len()];
        stream
            .read_exact(&mut rest)
            .context("reading the rest of the response")?;
    }
    let port = stream.local_addr()?.port();
    let tcp = if tcp_info {
        super::tcp_info::read(&stream)
    } else {
        None
    };
    drop(stream);
    Ok((
        Outcome {
            elapsed,
            connect,
            cycle: start.elapsed(),
            client: None,
            server: None,
            keepalive: None,
            tcp,
        },
        port,
    ))
}

pub struct TcpSession {
    server: Server,
    io_timeout: Duration,
    request: bool,
    tcp_info: bool,
}

impl TcpSession {
    pub fn start(opts: &SessionOptions) -> Result<Self> {
        Ok(TcpSession {
            server: start_server(opts)?,
            io_timeout: opts.io_timeout,
            request: opts.request,
            tcp_info: opts.tcp_info(),
        })
    }
}

impl Session for TcpSession {
    fn connect_once(&mut self) -> Result<Outcome> {
        let (outcome, port) = once(
            self.server.addr(),
            self.io_timeout,
            self.request,
            self.tcp_info,
        )?;
        self.server.report_for(port, self.io_timeout)?;
        Ok(outcome)
    }

    fn server_cpus(&self) -> (Vec<u16>, &'static str) {
        (
            self.server.last_cpu().into_iter().collect(),
            crate::cpu::IN_PROCESS,
        )
    }

    fn server_port(&self) -> Option<u16> {
        Some(self.server.addr().port())
    }
}
