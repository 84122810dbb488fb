//! Limits for arm servers that face a real network (`collector serve`): only the
//! control client's host may connect, each connection has a deadline over its whole
//! life (a peer dripping a byte just inside the read timeout cannot hold an arm), and
//! unclaimed reports are capped. Off (one atomic load per connection) on loopback runs.

use std::net::{IpAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Reports waiting to be claimed beyond this are dropped (a guarded server only).
pub const MAX_PENDING_REPORTS: usize = 4096;

#[derive(Default)]
pub struct Guard {
    on: AtomicBool,
    /// The one host allowed to connect; None: nobody (no session).
    allowed: Mutex<Option<IpAddr>>,
    /// Whole-connection deadline in ms.
    deadline_ms: AtomicU64,
    /// Connections being served: id, a handle to shut them down, their deadline.
    live: Mutex<Vec<(u64, TcpStream, Instant)>>,
    next_id: AtomicU64,
    /// Reports sent and not yet received.
    pub pending: AtomicUsize,
    pub stop: AtomicBool,
}

impl Guard {
    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Turns the guard on with `deadline` per connection, and starts the thread that
    /// shuts down connections past it.
    pub fn enable(self: &Arc<Self>, deadline: Duration) -> std::io::Result<()> {
        self.deadline_ms
            .store(deadline.as_millis().max(1) as u64, Ordering::SeqCst);
        if self.on.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let guard = self.clone();
        std::thread::Builder::new()
            .name("arm deadline".into())
            .spawn(move || guard.watch())
            .map(drop)
    }

    /// The host allowed to connect (the control client's), or None for nobody.
    pub fn allow(&self, ip: Option<IpAddr>) {
        *self.allowed.lock().unwrap_or_else(|p| p.into_inner()) = ip;
    }

    /// Whether a connection from `peer` may be served; if so, it is watched until
    /// [`Guard::release`] with the returned id.
    pub fn admit(&self, stream: &TcpStream, peer: Option<IpAddr>) -> Option<u64> {
        let allowed = *self.allowed.lock().unwrap_or_else(|p| p.into_inner());
        if peer.is_none() || peer != allowed {
            return None;
        }
        let handle = stream.try_clone().ok()?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let deadline =
            Instant::now() + Duration::from_millis(self.deadline_ms.load(Ordering::SeqCst));
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((id, handle, deadline));
        Some(id)
    }

    pub fn release(&self, id: u64) {
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(i, _, _)| *i != id);
    }

    fn watch(&self) {
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
            let now = Instant::now();
            let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
            live.retain(|(_, stream, deadline)| {
                if *deadline > now {
                    return true;
                }
                // The handler's next read or write fails, and it reports the failure.
                let _ = stream.shutdown(std::net::Shutdown::Both);
                false
            });
        }
    }
}

#[cfg(test)]
#[path = "guard_tests.rs"]
mod tests;
