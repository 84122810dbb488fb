//! Peer processes: children that die with the collector ([`Guarded`]), and a peer server
//! on loopback ([`ServerProcess`]) that counts as started only when a handshake with it
//! presents the run's own leaf (see [`super::ready`]).

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// A child process killed and reaped on drop. Spawned in its own process group (so a
/// terminal's Ctrl-C reaches the collector alone, which then stops its peers in order)
/// and with `PR_SET_PDEATHSIG`, so it also dies if the collector is killed outright.
/// Spawn it from the main thread: the signal follows the spawning thread, not the process.
pub struct Guarded {
    pub child: Child,
    reaped: bool,
    status: Option<ExitStatus>,
}

impl Guarded {
    pub fn spawn(cmd: &mut Command, what: &str) -> Result<Self> {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        cmd.process_group(0);
        // SAFETY: prctl, getppid and raise are async-signal-safe and touch no memory of
        // the parent.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The collector may have died between fork and prctl: then no death
                // signal will ever come, so die now.
                if libc::getppid() != parent {
                    libc::raise(libc::SIGKILL);
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("could not start {what}"))?;
        Ok(Guarded {
            child,
            reaped: false,
            status: None,
        })
    }

    /// How the process ended, once [`Guarded::reap`] has waited for it.
    pub fn status(&self) -> Option<ExitStatus> {
        self.status
    }

    /// SIGKILL to the process's whole group (it leads it), unless already reaped (here
    /// or by `Child::try_wait`): a group whose leader is unreaped, even a zombie, keeps
    /// its id, so the signal cannot reach a stranger.
    pub fn kill(&mut self) {
        if self.reaped {
            return;
        }
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: waitid with WNOWAIT only looks (it reaps nothing); info is plain data.
        let looked = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        if looked == 0 {
            // SAFETY: see above; the group is ours.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process (if still running) and reaps it, returning its user CPU time
    /// in seconds as the kernel accounted it (`wait4` rusage).
    pub fn kill_and_reap(&mut self) -> Result<f64> {
        self.kill();
        self.reap()
    }

    /// Waits for the process to end and returns its user CPU seconds.
    pub fn reap(&mut self) -> Result<f64> {
        let pid = self.child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: rusage is plain old data; wait4 fills it.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = loop {
            // SAFETY: waits for our own child, with valid pointers.
            let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            break r;
        };
        self.reaped = true;
        if r == pid {
            self.status = Some(ExitStatus::from_raw(status));
        }
        if r != pid {
            anyhow::bail!(
                "wait4 on process {pid}: {}",
                std::io::Error::last_os_error()
            );
        }
        Ok(usage.ru_utime.tv_sec as f64 + usage.ru_utime.tv_usec as f64 / 1e6)
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill();
            let _ = self.child.wait();
        }
    }
}

/// A free port on 127.0.0.1 (bound, read, released) for a peer server to listen on.
pub fn free_loopback_addr() -> Result<SocketAddr> {
    let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port();
    Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
}

/// A peer server process on loopback (`openssl s_server`, nginx, Caddy, `gnutls-serv`):
/// its process group is killed on drop, so on every way out.
pub struct ServerProcess {
    process: Guarded,
    addr: SocketAddr,
    /// Where its stderr (and for some, its error log) goes: quoted when it fails.
    log: PathBuf,
    what: String,
}

impl ServerProcess {
    /// Spawns `cmd` (its stdout and stderr already set up by the caller) and waits until
    /// `ready` succeeds against `addr` (a handshake that presents the run's leaf), not
    /// merely until something listens on the port.
    pub fn start(
        cmd: &mut Command,
        what: &str,
        addr: SocketAddr,
        log: PathBuf,
        io_timeout: Duration,
        ready: &dyn Fn(SocketAddr) -> Result<()>,
    ) -> Result<Self> {
        // Every server runs on the servers' CPUs (`--placement`), set before exec so
        // that every thread it ever starts inherits them.
        let cpus = crate::cpu::plan().server.clone();
        // SAFETY: the closure makes one system call on memory allocated before the fork
        // (async-signal-safe), and touches nothing else of the parent.
        unsafe {
            cmd.pre_exec(move || crate::cpu::set_affinity(0, &cpus));
        }
        let process = Guarded::spawn(cmd, what)?;
        crate::cpu::register_peer_server(process.id());
        let mut server = ServerProcess {
            process,
            addr,
            log,
            what: what.to_string(),
        };
        let deadline = Instant::now() + io_timeout;
        loop {
            server.check_alive()?;
            let probe = ready(addr);
            if probe.is_ok() {
                return Ok(server);
            }
            if Instant::now() > deadline {
                let why = probe.err().map(|e| format!("{e:#}")).unwrap_or_default();
                bail!("{what} on {addr} was not ready within {io_timeout:?}: {why}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.process.id()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The last `n` lines of its log, joined with ` | `.
    pub fn log_tail(&self, n: usize) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let mut lines: Vec<&str> = log.lines().rev().take(n).collect();
        lines.reverse();
        lines.join(" | ")
    }

    /// An error (with the end of its log) if the process has ended.
    pub fn check_alive(&mut self) -> Result<()> {
        if let Some(status) = self.process.child.try_wait()? {
            bail!(
                "{} (pid {}) exited ({status}): {}",
                self.what,
                self.process.id(),
                self.log_tail(5)
            );
        }
        Ok(())
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        crate::cpu::unregister_peer_server(self.process.id());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guarded_child_is_reaped_with_its_cpu_time() {
        let mut g = Guarded::spawn(Command::new("sleep").arg("30"), "sleep").unwrap();
        let user = g.kill_and_reap().unwrap();
        assert!((0.0..1.0).contains(&user), "{user}");
    }

    #[test]
    fn a_busy_child_reports_the_user_cpu_it_spent() {
        // A shell loop that spends a fraction of a second of user CPU, then exits.
        let busy = "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done";
        let mut g = Guarded::spawn(Command::new("sh").args(["-c", busy]), "sh").unwrap();
        let user = g.reap().unwrap();
        assert!(user > 0.0 && user.is_finite(), "measured user CPU: {user}");
        assert_eq!(g.status().and_then(|s| s.code()), Some(0));
    }

    #[test]
    fn a_guarded_child_leads_its_own_process_group() {
        let mut g = Guarded::spawn(Command::new("sleep").arg("30"), "sleep").unwrap();
        let pid = g.id() as libc::pid_t;
        // SAFETY: plain queries of process ids.
        let (group, ours) = unsafe { (libc::getpgid(pid), libc::getpgid(0)) };
        assert_eq!(group, pid, "the child leads its own group");
        assert_ne!(group, ours);
        g.kill_and_reap().unwrap();
    }

    #[test]
    fn reap_reads_the_exit_status() {
        let mut g = Guarded::spawn(Command::new("sh").args(["-c", "exit 7"]), "sh").unwrap();
        g.reap().unwrap();
        assert_eq!(g.status().and_then(|s| s.code()), Some(7));
    }
}
