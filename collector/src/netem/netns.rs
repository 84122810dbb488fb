//! Network namespaces made for one run (`ip netns`), entered per thread with setns(2).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

/// Namespaces that exist now and must not outlive the process (see [`remove_all_now`]).
static LIVE: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Deletes every live namespace at once: for exits that skip destructors (a second
/// signal calls `process::exit`).
pub fn remove_all_now() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for name in live {
        let _ = ip(&["netns", "del", &name]);
    }
}

/// A named network namespace that exists as long as this value does.
pub struct Netns {
    pub name: String,
    file: File,
}

impl Netns {
    /// Creates `name` (with its loopback up). Needs root (CAP_SYS_ADMIN).
    pub fn create(name: &str) -> Result<Netns> {
        {
            // The list stays locked while `ip netns add` runs: a second signal's
            // [`remove_all_now`] waits for it and then removes this namespace too,
            // instead of missing one that is being made.
            let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
            ip(&["netns", "add", name]).with_context(|| {
                format!("could not create network namespace {name} (emulated round trips need root and `ip` from iproute2)")
            })?;
            live.push(name.to_string());
        }
        let ns = Netns {
            name: name.to_string(),
            file: File::open(format!("/var/run/netns/{name}"))
                .with_context(|| format!("could not open network namespace {name}"))?,
        };
        ns.ip(&["link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// Runs `ip -n <this namespace> args…`.
    pub fn ip(&self, args: &[&str]) -> Result<()> {
        let mut full = vec!["-n", self.name.as_str()];
        full.extend_from_slice(args);
        ip(&full)
    }

    /// Moves the calling thread into this namespace for good.
    pub fn enter(&self) -> Result<()> {
        setns(&self.file)
            .with_context(|| format!("could not enter network namespace {}", self.name))
    }

    /// Runs `f` with the calling thread inside this namespace, then moves it back.
    /// Sockets and devices made in `f` stay in this namespace.
    pub fn within<R>(&self, f: impl FnOnce() -> R) -> Result<R> {
        let home = File::open("/proc/thread-self/ns/net")
            .context("could not open this thread's network namespace")?;
        self.enter()?;
        let result = f();
        setns(&home).context("could not return to the original network namespace")?;
        Ok(result)
    }
}

/// A sysctl the lab sets in both namespaces of a path, and its value: Linux's per-destination
/// TCP metrics cache (`ip tcp_metrics`) otherwise carries a closed connection's RTT,
/// RTT variance, ssthresh and congestion window into the next connection to the same
/// address — and every cell of a grid shares the client's and the server's address, so
/// a lossy cell's connections could set the control's starting RTO and window.
pub const SYSCTLS: [(&str, &str); 1] = [("net/ipv4/tcp_no_metrics_save", "1")];

/// `net.ipv4.tcp_no_metrics_save=1`: [`SYSCTLS`] as the evidence records them.
pub fn applied() -> String {
    SYSCTLS
        .iter()
        .map(|(k, v)| format!("{}={v}", k.replace('/', ".")))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Netns {
    /// Sets `/proc/sys/<key>` to `value` inside this namespace and reads it back: an
    /// error when the kernel kept another value.
    pub fn sysctl(&self, key: &str, value: &str) -> Result<()> {
        let path = format!("/proc/sys/{key}");
        self.within(|| std::fs::write(&path, value))?
            .with_context(|| format!("could not set {path} in namespace {}", self.name))?;
        let got = self.read_sysctl(key)?;
        if got != value {
            bail!(
                "{path} in namespace {} reads {got:?} after setting {value:?}",
                self.name
            );
        }
        Ok(())
    }

    /// `/proc/sys/<key>` as this namespace sees it.
    pub fn read_sysctl(&self, key: &str) -> Result<String> {
        let path = format!("/proc/sys/{key}");
        let got = self.within(|| std::fs::read_to_string(&path))?;
        Ok(got
            .with_context(|| format!("could not read {path}"))?
            .trim()
            .to_string())
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|n| n != &self.name);
    }
}

fn setns(file: &File) -> std::io::Result<()> {
    // SAFETY: setns only reads the descriptor; CLONE_NEWNET limits it to the network namespace.
    if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn ip(args: &[&str]) -> Result<()> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .context("could not run `ip` (iproute2)")?;
    if !out.status.success() {
        bail!(
            "`ip {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// Removes namespaces with `prefix` left by earlier runs that are over (a run killed with
/// SIGKILL cannot clean up after itself; a container restart can give us the dead run's
/// pid), never one this process holds.
pub fn remove_stale(prefix: &str) {
    let Ok(out) = Command::new("ip").args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        let Some(rest) = name.strip_prefix(prefix) else {
            continue;
        };
        let pid: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let live = LIVE
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .any(|n| n == name);
        if pid.is_some_and(crate::stale::run_is_over) && !live {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sysctl_is_set_in_the_namespace_read_back_there_and_left_alone_outside() {
        if !shared::testing::needs_root(
            "a_sysctl_is_set_in_the_namespace_read_back_there_and_left_alone_outside",
        ) {
            return;
        }
        let key = "net/ipv4/tcp_no_metrics_save";
        let host = std::fs::read_to_string(format!("/proc/sys/{key}")).unwrap();
        let ns = Netns::create(&format!(
            "{}{}-sysctl",
            super::super::NS_PREFIX,
            std::process::id()
        ))
        .unwrap();
        // A new namespace starts from the kernel's default: metrics are saved.
        assert_eq!(ns.read_sysctl(key).unwrap(), "0");
        for (key, value) in SYSCTLS {
            ns.sysctl(key, value).unwrap();
            assert_eq!(ns.read_sysctl(key).unwrap(), value);
        }
        assert_eq!(
            std::fs::read_to_string(format!("/proc/sys/{key}")).unwrap(),
            host
        );
        // A value the kernel refuses is an error, not a silent default.
        assert!(ns.sysctl(key, "not a number").is_err());
    }
}
