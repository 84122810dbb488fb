//! A peer server's own log of each connection, one line per connection, read as the
//! server appends to it and matched to the client's connection by the client's port
//! (nginx's access log, HAProxy's log). Each stack gives the parser of its line format.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use shared::KindCounts;

use crate::arms::rustls::www::ServerView;
use crate::arms::Handshake;

/// One parsed log line: the client's port and what the server saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub port: u16,
    pub handshake: Handshake,
}

impl Line {
    /// A line of a server that logs as OpenSSL names things: the client's `port` (as
    /// text), the handshake `kind` it saw, the `protocol` OpenSSL prints (`TLSv1.3`,
    /// `TLSv1.2`; anything else is an unknown version) and the group where known. The
    /// rest of the server's view (cipher, certificate, early data) is not in such a log.
    pub fn openssl(
        line: &str,
        port: &str,
        kind: rustls::HandshakeKind,
        protocol: &str,
        kx_group: Option<rustls::NamedGroup>,
    ) -> Result<Line> {
        let port: u16 = port
            .parse()
            .with_context(|| format!("bad client port in {line:?}"))?;
        let protocol = match protocol {
            "TLSv1.3" => Some(rustls::ProtocolVersion::TLSv1_3),
            "TLSv1.2" => Some(rustls::ProtocolVersion::TLSv1_2),
            _ => None,
        };
        Ok(Line {
            port,
            handshake: Handshake::seen(kind, protocol, kx_group),
        })
    }
}

/// A log read from where it ended when the reader was made.
pub struct PortLog {
    path: PathBuf,
    offset: u64,
    /// Bytes read after the last complete line.
    partial: String,
    /// Lines read and not yet claimed, by client port (the newest line per port).
    pending: HashMap<u16, Handshake>,
    io_timeout: Duration,
    /// The server's name, for messages.
    server: &'static str,
    /// Its line format: a line it cannot parse is an error.
    parse: fn(&str) -> Result<Line>,
}

impl PortLog {
    /// Reads `path` (written by `server`, lines parsed by `parse`) from its current end on.
    pub fn from_end(
        path: PathBuf,
        io_timeout: Duration,
        server: &'static str,
        parse: fn(&str) -> Result<Line>,
    ) -> Result<PortLog> {
        let offset = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        Ok(PortLog {
            path,
            offset,
            partial: String::new(),
            pending: HashMap::new(),
            io_timeout,
            server,
            parse,
        })
    }

    /// Skips to the end of the log: what was written so far is forgotten.
    pub fn skip_to_end(&mut self) -> Result<()> {
        self.new_lines()?;
        self.pending.clear();
        Ok(())
    }

    /// The complete lines appended since the last call, parsed.
    fn new_lines(&mut self) -> Result<Vec<Line>> {
        let mut f = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", self.path.display())),
        };
        f.seek(SeekFrom::Start(self.offset))?;
        let mut text = String::new();
        let n = f.read_to_string(&mut text)?;
        self.offset += n as u64;
        self.partial.push_str(&text);
        let Some(end) = self.partial.rfind('\n') else {
            return Ok(Vec::new());
        };
        let complete: String = self.partial.drain(..=end).collect();
        complete
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(self.parse)
            .collect()
    }

    /// The handshake kinds of every line appended since the last call (or skip), once
    /// at least `min` lines are in and no more came for a moment (or after the I/O
    /// timeout, with what is there). A server logs a connection once it is over, which
    /// can be after the client has exited: counting at once left a slice's last line to
    /// the next slice (a `-reuse` line counted as a resumption in a `-new` slice).
    pub fn kinds_since(&mut self, min: u64) -> Result<KindCounts> {
        let mut k = KindCounts::default();
        let deadline = Instant::now() + self.io_timeout;
        loop {
            let lines = self.new_lines()?;
            let quiet = lines.is_empty();
            for line in lines {
                match line.handshake.kind {
                    rustls::HandshakeKind::Resumed => k.resumed += 1,
                    _ => k.full += 1,
                }
            }
            if (quiet && k.resumed + k.full >= min) || Instant::now() > deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.pending.clear();
        Ok(k)
    }
}

impl ServerView for PortLog {
    fn connection(&mut self, port: u16) -> Result<Handshake> {
        let deadline = Instant::now() + self.io_timeout;
        loop {
            for line in self.new_lines()? {
                self.pending.insert(line.port, line.handshake);
            }
            if let Some(h) = self.pending.remove(&port) {
                // Connections never overlap: lines of other ports are of connections
                // that are over (failed ones), never claimed.
                self.pending.clear();
                return Ok(h);
            }
            if Instant::now() > deadline {
                bail!(
                    "{} logged no request from client port {port} within {:?}",
                    self.server,
                    self.io_timeout
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
