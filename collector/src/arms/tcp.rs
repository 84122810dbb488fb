//! The plain TCP connect arm: the floor every TLS arm stands on.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::server::{drain, ready_socket, Handler, Server};
use super::{Handshake, Outcome, Session};

#[derive(Clone)]
struct TcpHandler;

impl Handler for TcpHandler {
    fn handle(
        &mut self,
        mut stream: TcpStream,
        report: &mut dyn FnMut(Result<Option<Handshake>, String>),
    ) {
        report(Ok(None));
        if stream.write_all(b"x").is_ok() {
            drain(stream);
        }
    }
}

pub struct TcpSession {
    server: Server,
    io_timeout: Duration,
}

impl TcpSession {
    pub fn start(io_timeout: Duration) -> Result<Self> {
        Ok(TcpSession {
            server: Server::spawn("tcp-connect", io_timeout, TcpHandler)?,
            io_timeout,
        })
    }
}

impl Session for TcpSession {
    fn connect_once(&mut self) -> Result<Outcome> {
        let socket = ready_socket(self.io_timeout)?;
        let addr = self.server.addr().into();
        let start = Instant::now();
        socket.connect(&addr).context("connect")?;
        let elapsed = start.elapsed();
        let mut stream: TcpStream = socket.into();
        let mut byte = [0u8; 1];
        stream
            .read_exact(&mut byte)
            .context("reading the server's byte")?;
        let port = stream.local_addr()?.port();
        self.server.report_for(port, self.io_timeout)?;
        drop(stream);
        Ok(Outcome {
            elapsed,
            cycle: start.elapsed(),
            client: None,
            server: None,
        })
    }
}
