//! The rustls client against a peer web server (`openssl s_server -WWW`, nginx, Caddy,
//! `gnutls-serv --http`): timed like the rustls arms (connect + handshake), then, untimed,
//! it asks for `/x` and reads the answer to the end, so TLS 1.3 tickets arrive. Where the
//! server tells what its end saw of each connection ([`ServerView`]: nginx's access log,
//! matched by the client's port), that is the server's report; otherwise there is none.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::TlsClient;
use crate::arms::{ArmSpec, Handshake, Outcome, Session, SessionOptions};
use crate::certs::CertStore;

/// The request the client sends after the handshake, and the path it asks for.
pub const REQUEST: &[u8] = b"GET /x HTTP/1.0\r\n\r\n";

/// A peer server's own view of each connection.
pub trait ServerView {
    /// What the server saw of the connection from the client's `port` (waiting for it,
    /// at most the io timeout). An error when it has no such connection.
    fn connection(&mut self, port: u16) -> Result<Handshake>;
}

/// What the client sends after the handshake (untimed) and which answer it waits for:
/// the servers' own protocol (HTTP for web servers, a line echoed back for an echo server).
#[derive(Clone, Copy)]
pub struct Exchange {
    pub request: &'static [u8],
    /// Whether the answer read so far is complete (else the client reads on, until the
    /// server closes).
    pub complete: fn(&[u8]) -> bool,
    /// Whether the whole answer is the expected one.
    pub expected: fn(&[u8]) -> bool,
}

/// `GET /x`, answered with the 1-byte file `x` and a close.
pub const HTTP_X: Exchange = Exchange {
    request: REQUEST,
    complete: |_| false,
    expected: is_the_file,
};

pub struct WwwClient {
    client: TlsClient,
    exchange: Exchange,
    addr: SocketAddr,
    /// The server's name, for messages.
    server: &'static str,
    view: Option<Box<dyn ServerView>>,
}

impl WwwClient {
    pub fn new(
        arm: &ArmSpec,
        certs: &CertStore,
        addr: SocketAddr,
        io_timeout: Duration,
        server: &'static str,
        view: Option<Box<dyn ServerView>>,
    ) -> Result<Self> {
        // The request and the read below, not the rustls arms' request mode.
        let opts = SessionOptions::loopback(io_timeout, false);
        Ok(WwwClient {
            client: TlsClient::new(arm, certs, &opts)?,
            exchange: HTTP_X,
            addr,
            server,
            view,
        })
    }
}

/// Whether `answer` is an HTTP 200 whose body is the 1-byte file `x`.
pub fn is_the_file(answer: &[u8]) -> bool {
    let status_ok = answer.starts_with(b"HTTP/1.") && answer.get(8..13) == Some(b" 200 ");
    status_ok && answer.ends_with(b"\r\n\r\nx")
}

impl WwwClient {
    /// The same client with another request and answer.
    pub fn with_exchange(self, exchange: Exchange) -> Self {
        WwwClient { exchange, ..self }
    }
}

impl Session for WwwClient {
    fn connect_once(&mut self) -> Result<Outcome> {
        let mut h = self.client.handshake(self.addr)?;
        let port = h.tcp.local_addr().context("the client's own port")?.port();
        let mut stream = rustls::Stream::new(&mut h.conn, &mut h.tcp);
        stream
            .write_all(self.exchange.request)
            .context("sending the request")?;
        let mut answer = Vec::new();
        let mut chunk = [0u8; 512];
        while !(self.exchange.complete)(&answer) {
            match stream.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // Some servers close without close_notify; the answer is what counts.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => {
                    return Err(e).with_context(|| format!("reading {}'s answer", self.server))
                }
            }
        }
        if !(self.exchange.expected)(&answer) {
            bail!(
                "unexpected answer from {}: {:?}",
                self.server,
                String::from_utf8_lossy(&answer[..answer.len().min(80)])
            );
        }
        let server = match self.view.as_mut() {
            Some(view) => Some(view.connection(port)?),
            None => None,
        };
        Ok(Outcome {
            elapsed: h.elapsed,
            connect: h.connect,
            cycle: h.started.elapsed(),
            client: self.client.facts(&h),
            server,
            keepalive: None,
            tcp: None,
        })
    }

    fn server_reports(&self) -> bool {
        self.view.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::is_the_file;

    #[test]
    fn only_a_200_with_the_one_byte_body_is_the_file() {
        // s_server -WWW, nginx, Caddy (Go) answers, as recorded.
        assert!(is_the_file(
            b"HTTP/1.0 200 ok\r\nContent-type: text/plain\r\n\r\nx"
        ));
        assert!(is_the_file(b"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx"));
        assert!(!is_the_file(b"HTTP/1.1 404 Not Found\r\n\r\nx"));
        assert!(!is_the_file(b"HTTP/1.1 200 OK\r\n\r\nxx\r\n\r\ny"));
        assert!(!is_the_file(b""));
    }
}
