//! What peer tools are handed: a private temporary folder (0700, files 0600) that is
//! removed at the end of the run, on error and on Ctrl-C; and child processes that die
//! with the collector.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::Mutex;

use anyhow::{Context, Result};

/// Folders that exist now and must not outlive the process (see [`remove_all_now`]).
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A folder only this user can read, removed (with everything in it) on drop.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
}

impl PrivateDir {
    /// Creates `<temp>/handshake-lab-peers-<pid>-<random>` with mode 0700.
    pub fn create() -> Result<Self> {
        let path = std::env::temp_dir().join(format!(
            "handshake-lab-peers-{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        ));
        DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .with_context(|| format!("could not create the private folder {}", path.display()))?;
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(path.clone());
        Ok(PrivateDir { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `name` (a plain file name, or `sub/name` below an existing sub-folder) with
    /// mode 0600; refuses to overwrite.
    pub fn write(&self, name: &str, contents: &[u8]) -> Result<PathBuf> {
        let path = self.path.join(name);
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .with_context(|| format!("could not create {}", path.display()))?;
        f.write_all(contents)
            .with_context(|| format!("could not write {}", path.display()))?;
        Ok(path)
    }

    /// Creates the sub-folder `name` (mode 0700).
    pub fn subdir(&self, name: &str) -> Result<PathBuf> {
        let path = self.path.join(name);
        DirBuilder::new()
            .mode(0o700)
            .create(&path)
            .with_context(|| format!("could not create {}", path.display()))?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|p| p != &self.path);
    }
}

/// Whether a run with process id `pid` is over: its process is gone, or it is this
/// process, which made nothing yet when it sweeps (after a container restart our own pid
/// is often the same as the dead run's).
pub fn run_is_over(pid: u32) -> bool {
    pid == std::process::id() || !Path::new(&format!("/proc/{pid}")).exists()
}

/// Removes `handshake-lab-peers-<pid>-*` folders of runs that are over (killed with
/// SIGKILL, or a machine or container that stopped) from the temp folder, leaving this
/// process's live folders alone. Returns the folders removed.
pub fn remove_stale() -> Vec<PathBuf> {
    remove_stale_in(&std::env::temp_dir())
}

fn remove_stale_in(base: &Path) -> Vec<PathBuf> {
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let Ok(entries) = fs::read_dir(base) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|n| n.strip_prefix("handshake-lab-peers-"))
        else {
            continue;
        };
        let pid: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let path = entry.path();
        if pid.is_some_and(run_is_over)
            && !live.contains(&path)
            && fs::remove_dir_all(&path).is_ok()
        {
            removed.push(path);
        }
    }
    removed
}

/// Removes every live [`PrivateDir`] at once: for exits that skip destructors (a second
/// Ctrl-C calls `process::exit`).
pub fn remove_all_now() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for p in live {
        let _ = fs::remove_dir_all(p);
    }
}

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

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn private_dir_is_private_and_goes_away() {
        let d = PrivateDir::create().unwrap();
        let p = d.path().to_path_buf();
        let f = d.write("key.pem", b"secret").unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o700);
        assert_eq!(mode(&f), 0o600);
        assert!(d.write("key.pem", b"again").is_err(), "no overwrite");
        drop(d);
        assert!(!p.exists());
    }

    #[test]
    fn remove_all_now_removes_live_dirs() {
        let d = PrivateDir::create().unwrap();
        let p = d.path().to_path_buf();
        remove_all_now();
        assert!(!p.exists());
        drop(d);
    }

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

    #[test]
    fn stale_folders_of_runs_that_are_over_are_swept() {
        let base = std::env::temp_dir().join(format!("sweep-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(&base).unwrap();
        // Above the kernel's largest pid (4194304): never a live process.
        let dead = base.join("handshake-lab-peers-4194305-0badc0de");
        let ours = base.join(format!(
            "handshake-lab-peers-{}-00000001",
            std::process::id()
        ));
        let alive = base.join("handshake-lab-peers-1-00000002"); // init is always running
        let other = base.join("not-ours-4194305");
        for d in [&dead, &ours, &alive, &other] {
            fs::create_dir_all(d).unwrap();
            fs::write(d.join("key.pem"), "secret").unwrap();
        }
        let mut removed = remove_stale_in(&base);
        removed.sort();
        let mut expected = vec![dead.clone(), ours.clone()];
        expected.sort();
        assert_eq!(removed, expected);
        assert!(alive.is_dir() && other.is_dir());
        fs::remove_dir_all(&base).unwrap();
    }
}
