//! Where the client and the server run: CPU placement, applied and observed.
//!
//! On a small machine the scheduler decides, connection by connection, whether the two
//! ends of a loopback handshake share a CPU, and that moves a handshake by tens of µs
//! (measurement-pitfalls §12). So a run decides instead ([`CpuPlacement`]): `split` puts
//! the client threads on one set of CPUs and every server — the in-process rustls server
//! threads and peer processes alike — on another, as on separate hosts; `same` puts both
//! on one CPU (the co-located case); `free` sets no affinity (the scheduler's mixture,
//! recorded as such). The plan is resolved once per run ([`CpuPlan::resolve`]) and held
//! process-wide ([`install`]): affinity is a property of threads and processes, and every
//! server thread and peer process asks here which CPUs it may use. Each connection's ends
//! are then sampled ([`current`], [`process_cpus`]) so the evidence says what held.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use shared::CpuPlacement;

/// A resolved placement: which CPUs each end may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuPlan {
    pub asked: CpuPlacement,
    /// What was applied: `asked`, or `free` where it cannot be done (then `reason`).
    pub applied: CpuPlacement,
    pub reason: Option<String>,
    /// CPUs this process may run on (its affinity mask at start).
    pub available: Vec<u16>,
    /// CPUs for the client threads and for every server (empty under `free`: any).
    pub client: Vec<u16>,
    pub server: Vec<u16>,
}

impl CpuPlan {
    /// The plan for `asked` on a process allowed to run on `available` (in order).
    /// `split` gives the client the first half of the CPUs and the servers the rest;
    /// `same` gives both the first CPU. With one CPU, `split` falls back to `free` and
    /// says why.
    pub fn resolve(asked: CpuPlacement, available: &[u16]) -> CpuPlan {
        let mut plan = CpuPlan {
            asked,
            applied: asked,
            reason: None,
            available: available.to_vec(),
            client: Vec::new(),
            server: Vec::new(),
        };
        match asked {
            CpuPlacement::Free => {}
            _ if available.is_empty() => {
                plan.applied = CpuPlacement::Free;
                plan.reason =
                    Some("this process's CPU affinity could not be read; no affinity set".into());
            }
            CpuPlacement::Same => {
                plan.client = vec![available[0]];
                plan.server = vec![available[0]];
            }
            CpuPlacement::Split if available.len() < 2 => {
                plan.applied = CpuPlacement::Free;
                plan.reason = Some(format!(
                    "split needs at least 2 CPUs and this process may run on 1 (CPU {}): \
                     client and server share it as the scheduler decides",
                    available[0]
                ));
            }
            CpuPlacement::Split => {
                let half = available.len() / 2;
                plan.client = available[..half].to_vec();
                plan.server = available[half..].to_vec();
            }
        }
        plan
    }

    /// The plan a control arm uses: `variant` on the same available CPUs.
    pub fn with(&self, variant: CpuPlacement) -> CpuPlan {
        CpuPlan::resolve(variant, &self.available)
    }

    /// Whether one connection whose client ran on `client` and server on `server` ran
    /// as this plan asks (`free` asks nothing).
    pub fn held(&self, client: u16, server: &[u16]) -> bool {
        match self.applied {
            CpuPlacement::Free => true,
            CpuPlacement::Same => server.iter().all(|s| *s == client),
            CpuPlacement::Split => {
                self.client.contains(&client) && server.iter().all(|s| self.server.contains(s))
            }
        }
    }

    /// The evidence's record of the run's placement.
    pub fn record(&self) -> shared::RunPlacement {
        shared::RunPlacement {
            asked: self.asked,
            applied: self.applied,
            reason: self.reason.clone(),
            available_cpus: self.available.clone(),
            client_cpus: self.client.clone(),
            server_cpus: self.server.clone(),
        }
    }
}

/// How an in-process session samples its two ends' CPUs (written into the evidence).
pub const IN_PROCESS: &str = "client: sched_getcpu in the client thread; server: sched_getcpu in the in-process server thread (rustls: when each handshake completed; otherwise when it reported the connection)";

static PLAN: OnceLock<CpuPlan> = OnceLock::new();

/// The run's plan; `free` on every available CPU until [`install`] is called (tests,
/// `probe`, `serve`).
pub fn plan() -> &'static CpuPlan {
    PLAN.get_or_init(|| CpuPlan::resolve(CpuPlacement::Free, &available()))
}

/// Resolves `asked`, holds it for the process and pins the calling thread — the thread
/// that makes the client's connections, whose children (capacity clients, peer client
/// tools) inherit its mask — to the client's CPUs. Call once, from the main thread,
/// before any server starts. Returns the plan in force (the first one installed).
pub fn install(asked: CpuPlacement) -> std::io::Result<&'static CpuPlan> {
    let plan = PLAN.get_or_init(|| CpuPlan::resolve(asked, &available()));
    pin_thread(&plan.client)?;
    Ok(plan)
}

/// `f(index, item)` for each of `items`, `threads` at a time, each thread pinned to every
/// CPU the run may use whatever the timed arms' placement (the processes it starts
/// inherit that): for work that does not care about contention, such as instruction
/// counts. Items not begun when `stopped()` turns true are left out. Returns each begun
/// item's index and result, in the order they ended.
pub fn on_every_cpu<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    stopped: &(dyn Fn() -> bool + Sync),
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<(usize, R)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            s.spawn(|| {
                let _ = pin_thread(&plan().available);
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(item) = items.get(k) else { break };
                    if stopped() {
                        break;
                    }
                    let r = f(k, item);
                    done.lock().unwrap_or_else(|e| e.into_inner()).push((k, r));
                }
            });
        }
    });
    done.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Pins the calling thread to `cpus` (no-op when empty: any CPU).
pub fn pin_thread(cpus: &[u16]) -> std::io::Result<()> {
    set_affinity(0, cpus)
}

/// Pins the calling server thread per the run's plan, or per `variant` for a control arm.
pub fn pin_server_thread(variant: Option<CpuPlacement>) -> std::io::Result<()> {
    match variant {
        Some(v) => pin_thread(&plan().with(v).server),
        None => pin_thread(&plan().server),
    }
}

/// Sets the affinity of `pid` (0: the calling thread) to `cpus`; `cpus` empty: every
/// available CPU. Async-signal-safe (one system call on a stack buffer), so it may run in
/// a child between fork and exec.
pub fn set_affinity(pid: libc::pid_t, cpus: &[u16]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_ZERO/CPU_SET write inside it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if cpus.is_empty() {
        return Ok(());
    }
    for &c in cpus {
        // SAFETY: `c` < CPU_SETSIZE is checked by the kernel's answer; CPU_SET ignores
        // indices past the set's size.
        unsafe { libc::CPU_SET(usize::from(c), &mut set) };
    }
    // SAFETY: a valid cpu_set_t of the size given.
    let rc = unsafe { libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The CPUs this process may run on (its main thread's mask at the time of the call).
pub fn available() -> Vec<u16> {
    // SAFETY: cpu_set_t is plain data, filled by the kernel.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid, writable cpu_set_t of the size given; pid = this process.
    let rc = unsafe {
        libc::sched_getaffinity(
            libc::getpid(),
            std::mem::size_of::<libc::cpu_set_t>(),
            &mut set,
        )
    };
    if rc != 0 {
        return Vec::new();
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: reads a bit inside the set.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .filter_map(|c| u16::try_from(c).ok())
        .collect()
}

/// The CPU the calling thread runs on now (`sched_getcpu`), if the kernel tells.
pub fn current() -> Option<u16> {
    // SAFETY: no arguments, no memory.
    let c = unsafe { libc::sched_getcpu() };
    u16::try_from(c).ok()
}

/// The CPU each thread of process `pid` last ran on (`/proc/<pid>/task/*/stat`, field
/// 39), sorted and without repeats; empty when the process is gone.
pub fn process_cpus(pid: u32) -> Vec<u16> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut cpus = BTreeSet::new();
    for t in tasks.flatten() {
        if let Ok(stat) = std::fs::read_to_string(t.path().join("stat")) {
            if let Some(c) = last_cpu(&stat) {
                cpus.insert(c);
            }
        }
    }
    cpus.into_iter().collect()
}

/// Field 39 (`processor`) of a `/proc/…/stat` line. The command name (field 2) is in
/// parentheses and may hold spaces and parentheses, so fields are counted after the last `)`.
fn last_cpu(stat: &str) -> Option<u16> {
    let after = &stat[stat.rfind(')')? + 1..];
    // Field 3 is the first after the name: field 39 is the 37th from there.
    after.split_whitespace().nth(36)?.parse().ok()
}

static PEER_SERVERS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Records `pid` as a running peer server (its CPUs are sampled after each connection).
pub fn register_peer_server(pid: u32) {
    if let Ok(mut v) = PEER_SERVERS.lock() {
        v.push(pid);
    }
}

/// Forgets a peer server that stopped.
pub fn unregister_peer_server(pid: u32) {
    if let Ok(mut v) = PEER_SERVERS.lock() {
        v.retain(|p| *p != pid);
    }
}

/// The CPUs the threads of every running peer server last ran on; empty when none runs.
pub fn peer_server_cpus() -> Vec<u16> {
    let pids = PEER_SERVERS.lock().map(|v| v.clone()).unwrap_or_default();
    let mut cpus: Vec<u16> = pids.into_iter().flat_map(process_cpus).collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_gives_each_end_its_own_half() {
        let p = CpuPlan::resolve(CpuPlacement::Split, &[0, 1]);
        assert_eq!(
            (p.client.as_slice(), p.server.as_slice()),
            (&[0][..], &[1][..])
        );
        assert_eq!(p.applied, CpuPlacement::Split);
        assert!(p.reason.is_none());
        let p = CpuPlan::resolve(CpuPlacement::Split, &[2, 3, 5, 7]);
        assert_eq!(
            (p.client.as_slice(), p.server.as_slice()),
            (&[2, 3][..], &[5, 7][..])
        );
        // An odd count gives the servers the extra CPU.
        let p = CpuPlan::resolve(CpuPlacement::Split, &[0, 1, 2]);
        assert_eq!(
            (p.client.as_slice(), p.server.as_slice()),
            (&[0][..], &[1, 2][..])
        );
    }

    #[test]
    fn same_puts_both_ends_on_the_first_cpu() {
        let p = CpuPlan::resolve(CpuPlacement::Same, &[4, 6]);
        assert_eq!(
            (p.client.as_slice(), p.server.as_slice()),
            (&[4][..], &[4][..])
        );
    }

    #[test]
    fn split_on_one_cpu_falls_back_to_free_with_the_reason() {
        let p = CpuPlan::resolve(CpuPlacement::Split, &[3]);
        assert_eq!(p.asked, CpuPlacement::Split);
        assert_eq!(p.applied, CpuPlacement::Free);
        assert!(p.client.is_empty() && p.server.is_empty());
        let why = p.reason.unwrap();
        assert!(
            why.contains("at least 2 CPUs") && why.contains("CPU 3"),
            "{why}"
        );
        let p = CpuPlan::resolve(CpuPlacement::Same, &[]);
        assert_eq!(p.applied, CpuPlacement::Free);
        assert!(p.reason.is_some());
    }

    #[test]
    fn free_pins_nothing_and_everything_holds() {
        let p = CpuPlan::resolve(CpuPlacement::Free, &[0, 1]);
        assert!(p.client.is_empty() && p.server.is_empty() && p.reason.is_none());
        assert!(p.held(0, &[0]) && p.held(1, &[0, 1]));
    }

    #[test]
    fn held_checks_each_end_against_its_set() {
        let split = CpuPlan::resolve(CpuPlacement::Split, &[0, 1]);
        assert!(split.held(0, &[1]));
        assert!(!split.held(1, &[1]), "client on the server's CPU");
        assert!(!split.held(0, &[0]), "server on the client's CPU");
        assert!(
            !split.held(0, &[1, 0]),
            "one server thread on the client's CPU"
        );
        let same = CpuPlan::resolve(CpuPlacement::Same, &[0, 1]);
        assert!(same.held(0, &[0]));
        assert!(!same.held(0, &[1]));
    }

    #[test]
    fn the_processor_field_is_read_past_a_name_with_spaces() {
        // A real line's shape: pid (comm) state, then 49 more fields; field 39 = 1.
        let mut fields: Vec<String> = (3..=52).map(|i| format!("{}", i * 10)).collect();
        fields[36] = "1".into();
        let line = format!("4242 (a (weird) name) {}", fields.join(" "));
        assert_eq!(last_cpu(&line), Some(1));
        assert_eq!(last_cpu("4242 (x) S 1 2"), None);
    }

    #[test]
    fn a_pinned_thread_runs_where_it_was_pinned() {
        let cpus = available();
        assert!(!cpus.is_empty(), "this process runs somewhere");
        let target = *cpus.last().unwrap();
        let seen = std::thread::spawn(move || {
            pin_thread(&[target]).unwrap();
            // Keep the thread busy a moment so the scheduler has had to honour the mask.
            let mut x = 0u64;
            for i in 0..200_000u64 {
                x = std::hint::black_box(x.wrapping_add(i));
            }
            (
                current(),
                process_cpus(std::process::id()).contains(&target),
            )
        })
        .join()
        .unwrap();
        assert_eq!(seen.0, Some(target));
        assert!(seen.1, "/proc shows a thread on CPU {target}");
    }
}
