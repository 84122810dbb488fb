//! What peer tools are handed: a private temporary folder (0700, files 0600) that is
//! removed at the end of the run, on error and on Ctrl-C (the processes that use it are in
//! [`super::process`]).

use std::fs::{self, DirBuilder, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

use crate::stale::run_is_over;

/// Folders that exist now and must not outlive their registry's owner.
#[derive(Debug)]
struct Registry(Mutex<Vec<PathBuf>>);

impl Registry {
    const fn new() -> Registry {
        Registry(Mutex::new(Vec::new()))
    }

    fn live(&self) -> std::sync::MutexGuard<'_, Vec<PathBuf>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Removes every folder of this registry at once.
    fn remove_all_now(&self) {
        let live = std::mem::take(&mut *self.live());
        for p in live {
            let _ = fs::remove_dir_all(p);
        }
    }
}

/// The process's folders (see [`remove_all_now`]). Tests that remove folders at once use
/// a registry of their own: this one holds the folders of every test running beside them.
static LIVE: Registry = Registry::new();

/// A folder only this user can read, removed (with everything in it) on drop.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
    registry: &'static Registry,
}

impl PrivateDir {
    /// Creates `<temp>/handshake-lab-peers-<pid>-<random>` with mode 0700.
    pub fn create() -> Result<Self> {
        Self::create_in(&LIVE)
    }

    /// [`Self::create`], listed in `registry`.
    fn create_in(registry: &'static Registry) -> Result<Self> {
        let path = std::env::temp_dir().join(format!(
            "handshake-lab-peers-{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        ));
        DirBuilder::new()
            .mode(0o700)
            .recursive(true)
            .create(&path)
            .with_context(|| format!("could not create the private folder {}", path.display()))?;
        registry.live().push(path.clone());
        Ok(PrivateDir { path, registry })
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

    /// Creates the sub-folder `name` (mode 0700), or finds it there (a server started again
    /// for the same setup).
    pub fn subdir(&self, name: &str) -> Result<PathBuf> {
        let path = self.path.join(name);
        DirBuilder::new()
            .mode(0o700)
            .recursive(true)
            .create(&path)
            .with_context(|| format!("could not create {}", path.display()))?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
        self.registry.live().retain(|p| p != &self.path);
    }
}

/// Removes `handshake-lab-peers-<pid>-*` folders of runs that are over (killed with
/// SIGKILL, or a machine or container that stopped) from the temp folder, leaving this
/// process's live folders alone. Returns the folders removed.
pub fn remove_stale() -> Vec<PathBuf> {
    remove_stale_in(&std::env::temp_dir())
}

fn remove_stale_in(base: &Path) -> Vec<PathBuf> {
    let live = LIVE.live().clone();
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
    LIVE.remove_all_now();
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
        // A registry of this test's own: the process's one lists the folders of the
        // tests running beside it, which `remove_all_now` would delete under them.
        static OWN: Registry = Registry::new();
        let d = PrivateDir::create_in(&OWN).unwrap();
        let p = d.path().to_path_buf();
        let other = PrivateDir::create().unwrap();
        OWN.remove_all_now();
        assert!(!p.exists());
        assert!(other.path().is_dir(), "a folder of another registry stays");
        drop(d);
        assert!(OWN.live().is_empty());
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
