//! The socket options the run really used, read back with getsockopt from a client socket
//! and an accepted server socket made ready by the arms' own setup code.

use std::net::TcpListener;
use std::time::Duration;

use anyhow::{Context, Result};
use socket2::SockRef;

use crate::arms::server::{ready_accepted, ready_socket};

/// What getsockopt says on each end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketOptions {
    pub client_nodelay: bool,
    pub client_linger: Option<Duration>,
    pub server_nodelay: bool,
    pub server_linger: Option<Duration>,
}

impl SocketOptions {
    /// One loopback connection: a client socket from [`ready_socket`], the accepted one
    /// readied by [`ready_accepted`], as every arm's connection is; then both read back.
    pub fn probe(io_timeout: Duration) -> Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").context("probe listener")?;
        let client = ready_socket(io_timeout)?;
        client
            .connect(&listener.local_addr()?.into())
            .context("probe connect")?;
        let (accepted, _) = listener.accept().context("probe accept")?;
        ready_accepted(&accepted, io_timeout).context("probe: readying the accepted socket")?;
        let server = SockRef::from(&accepted);
        Ok(SocketOptions {
            client_nodelay: client.tcp_nodelay()?,
            client_linger: client.linger()?,
            server_nodelay: server.tcp_nodelay()?,
            server_linger: server.linger()?,
        })
    }

    /// `TCP_NODELAY` on both ends.
    pub fn nodelay(&self) -> bool {
        self.client_nodelay && self.server_nodelay
    }

    /// `SO_LINGER {on, 0}` on the client.
    pub fn linger_zero(&self) -> bool {
        self.client_linger == Some(Duration::ZERO)
    }

    /// Both ends' values in words, for the evidence.
    pub fn describe(&self) -> String {
        let linger = |l: Option<Duration>| match l {
            Some(d) => format!("{{on, {} s}}", d.as_secs()),
            None => "off".into(),
        };
        let on = |b: bool| if b { "on" } else { "off" };
        format!(
            "read back with getsockopt before measuring, from a loopback connection made with the arms' own setup code (ready_socket / ready_accepted): client TCP_NODELAY {}, SO_LINGER {}; accepted server socket TCP_NODELAY {}, SO_LINGER {}",
            on(self.client_nodelay),
            linger(self.client_linger),
            on(self.server_nodelay),
            linger(self.server_linger)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_reads_back_what_the_arms_set() {
        let s = SocketOptions::probe(Duration::from_secs(2)).unwrap();
        assert_eq!(
            s,
            SocketOptions {
                client_nodelay: true,
                client_linger: Some(Duration::ZERO),
                server_nodelay: true,
                server_linger: None,
            }
        );
        assert!(s.nodelay() && s.linger_zero());
        assert!(s
            .describe()
            .contains("client TCP_NODELAY on, SO_LINGER {on, 0 s}"));
    }

    #[test]
    fn one_end_without_nodelay_is_not_nodelay() {
        let s = SocketOptions {
            client_nodelay: true,
            client_linger: None,
            server_nodelay: false,
            server_linger: None,
        };
        assert!(!s.nodelay() && !s.linger_zero());
        assert!(s.describe().contains("server socket TCP_NODELAY off"));
    }
}
