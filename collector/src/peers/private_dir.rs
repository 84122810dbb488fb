//! What peer tools are handed: a private temporary folder (0700, files 0600) that is
//! removed at the end of the run, on error and on Ctrl-C; and child processes that die
//! with the collector.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
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

/// Removes every live [`PrivateDir`] at once: for exits that skip destructors (a second
/// Ctrl-C calls `process::exit`).
pub fn remove_all_now() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for p in live {
        let _ = fs::remove_dir_all(p);
    }
}

/// A child process killed and reaped on drop. Spawned with `PR_SET_PDEATHSIG`, so it
/// also dies if the collector is killed outright. Spawn it from the main thread: the
/// signal follows the spawning thread, not the process.
pub struct Guarded {
    pub child: Child,
    reaped: bool,
}

impl Guarded {
    pub fn spawn(cmd: &mut Command, what: &str) -> Result<Self> {
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
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
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Kills the process (if still running) and reaps it, returning its user CPU time
    /// in seconds as the kernel accounted it (`wait4` rusage).
    pub fn kill_and_reap(&mut self) -> Result<f64> {
        let _ = self.child.kill();
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
            let _ = self.child.kill();
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
}
