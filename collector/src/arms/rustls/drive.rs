//! Drives one rustls handshake over a blocking socket, flight by flight, marking each
//! flight in a [`Trace`]: what `complete_io` does, with the moments made visible.

use std::io::{Read, Write};

use anyhow::{bail, Context, Result};
use rustls::{ConnectionCommon, ProtocolVersion, SideData};

use crate::arms::trace::{flight, Event, Trace};

/// Which end this is: its own flights are `c…` or `s…`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Client,
    Server,
}

/// Runs the handshake to completion. Each flight this end sends is marked `<f>_ready`
/// (built, before the write) and `<f>_written`; each flight of the peer `<f>_read` (a
/// blocking read returned its first bytes); `done` when the handshake is complete and
/// this end's last handshake flight is written. A TLS 1.3 server's tickets are not part
/// of the handshake: they stay queued for the caller's first write.
pub fn handshake<D: SideData, S: Read + Write>(
    conn: &mut ConnectionCommon<D>,
    tcp: &mut S,
    trace: &mut Trace,
    end: End,
) -> Result<()> {
    let (me, peer) = match end {
        End::Client => ('c', 's'),
        End::Server => ('s', 'c'),
    };
    let (mut sent, mut got) = (0, 0);
    loop {
        let post_handshake = !conn.is_handshaking()
            && end == End::Server
            && conn.protocol_version() == Some(ProtocolVersion::TLSv1_3);
        if conn.wants_write() && !post_handshake {
            sent += 1;
            trace.mark(flight(me, sent, Event::Ready));
            write_all(conn, tcp)?;
            trace.mark(flight(me, sent, Event::Written));
        }
        if !conn.is_handshaking() {
            break;
        }
        got += 1;
        read(conn, tcp)?;
        trace.mark(flight(peer, got, Event::Read));
        process(conn, tcp)?;
        // The rest of the peer's flight, if it came in more than one read.
        while conn.is_handshaking() && !conn.wants_write() {
            read(conn, tcp)?;
            process(conn, tcp)?;
        }
    }
    trace.mark("done");
    Ok(())
}

/// Writes everything rustls has queued.
pub fn write_all<D: SideData, S: Write>(conn: &mut ConnectionCommon<D>, tcp: &mut S) -> Result<()> {
    while conn.wants_write() {
        conn.write_tls(tcp).context("writing")?;
    }
    tcp.flush().context("writing")?;
    Ok(())
}

fn read<D: SideData, S: Read>(conn: &mut ConnectionCommon<D>, tcp: &mut S) -> Result<()> {
    if conn.read_tls(tcp).context("reading")? == 0 {
        bail!("the peer closed the connection during the handshake");
    }
    Ok(())
}

fn process<D: SideData, S: Write>(conn: &mut ConnectionCommon<D>, tcp: &mut S) -> Result<()> {
    if let Err(e) = conn.process_new_packets() {
        // Send the alert rustls queued, so the peer learns why.
        let _ = write_all(conn, tcp);
        return Err(e).context("handshake");
    }
    Ok(())
}
