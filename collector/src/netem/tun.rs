//! TUN devices: the kernel hands us every IP packet routed to the device, and takes
//! every packet we write to it as received.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::time::Duration;

use anyhow::{bail, Context, Result};

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// An open TUN device (layer 3, no packet-info header), non-blocking: a read returns at
/// once when no packet waits ([`Tun::wait`] sleeps until one does); a write never waits.
pub struct Tun {
    file: File,
}

impl Tun {
    /// Creates device `name` in the calling thread's network namespace.
    pub fn open(name: &str) -> Result<Tun> {
        if name.len() >= libc::IFNAMSIZ {
            bail!("TUN name {name} is too long");
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/net/tun")
            .context(
                "could not open /dev/net/tun (emulated round trips need root and TUN support)",
            )?;
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
            _pad: [0; 22],
        };
        for (dst, src) in req.name.iter_mut().zip(name.bytes()) {
            *dst = src as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads and writes one `struct ifreq`, which IfReq lays out.
        if unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req) } < 0 {
            return Err(std::io::Error::last_os_error()).context("TUNSETIFF failed");
        }
        Ok(Tun { file })
    }

    /// Waits up to `timeout` until a packet can be read.
    pub fn wait(&self, timeout: Duration) -> std::io::Result<bool> {
        let mut pfd = libc::pollfd {
            fd: self.file.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: one valid pollfd and a valid timespec; no signal mask change.
        let n = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(n > 0)
    }

    /// Reads one packet if one is waiting (the device is opened non-blocking); its length.
    pub fn try_recv(&mut self, buf: &mut [u8]) -> std::io::Result<Option<usize>> {
        match self.file.read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn send(&mut self, packet: &[u8]) -> std::io::Result<()> {
        self.file.write_all(packet)
    }

    pub fn try_clone(&self) -> Result<Tun> {
        Ok(Tun {
            file: self.file.try_clone()?,
        })
    }
}
