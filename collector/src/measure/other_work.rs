//! Other programs' work while the run's own arms are timed. Steal shows the hypervisor
//! taking a CPU; a neighbour inside the machine (a build, another benchmark, a backup)
//! takes it as surely and steal does not show it. While rustls and TCP connect arms are
//! timed, their clients and servers are threads of this process, so the machine's busy
//! time (`/proc/stat`: user, nice, system, irq, softirq) less this process's own
//! (`getrusage`, all threads; its system time holds the interrupts it ran, as measured
//! here: a loopback run's softirq time showed up in the collector's own) is what
//! everything else ran: other processes, and kernel threads (whoever they worked for).
//! The peer stacks' loops run other programs on purpose and are not watched.

use std::time::Duration;

use shared::OtherWork;

/// The machine's `cpu` line of `/proc/stat`: (user + nice + system + irq + softirq,
/// every state), ticks.
pub fn parse_machine(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    (v.len() == 8).then(|| (v[0] + v[1] + v[2] + v[5] + v[6], v.iter().sum()))
}

/// This process's user and system time, every thread.
fn own_cpu() -> Option<Duration> {
    // SAFETY: getrusage writes the struct it is handed, nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return None;
    }
    let t = |tv: libc::timeval| Duration::new(tv.tv_sec as u64, tv.tv_usec as u32 * 1000);
    Some(t(u.ru_utime) + t(u.ru_stime))
}

/// Ticks per second of `/proc/stat`.
fn hz() -> f64 {
    // SAFETY: sysconf reads a constant.
    match unsafe { libc::sysconf(libc::_SC_CLK_TCK) } {
        n if n > 0 => n as f64,
        _ => 100.0,
    }
}

/// A reading at the start of a window.
pub struct Watch {
    machine: (u64, u64),
    own: Duration,
}

impl Watch {
    /// Starts watching; None where `/proc/stat` or `getrusage` cannot be read.
    pub fn start() -> Option<Watch> {
        Some(Watch {
            machine: parse_machine(&std::fs::read_to_string("/proc/stat").ok()?)?,
            own: own_cpu()?,
        })
    }

    /// Other programs' work since [`Watch::start`].
    pub fn finish(self) -> Option<OtherWork> {
        let machine = parse_machine(&std::fs::read_to_string("/proc/stat").ok()?)?;
        let own = own_cpu()?;
        Some(other_work(
            self.machine,
            machine,
            own.saturating_sub(self.own),
            hz(),
        ))
    }
}

/// The machine's busy time between two readings (`(busy, total)` ticks at `hz` per
/// second) less `own`: never below 0, since the ticks are coarser than `own`.
pub fn other_work(before: (u64, u64), after: (u64, u64), own: Duration, hz: f64) -> OtherWork {
    let busy = after.0.saturating_sub(before.0) as f64 / hz;
    let total = after.1.saturating_sub(before.1) as f64 / hz;
    OtherWork {
        cpu_s: (busy - own.as_secs_f64()).max(0.0),
        window_cpu_s: total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_line_gives_user_nice_system_and_all_states() {
        let stat = "cpu  100 5 50 800 3 2 1 40 7 0\ncpu0 60 0 20 400 0 0 0 20 7 0\n";
        // busy 100 + 5 + 50 + 2 + 1; all: 100+5+50+800+3+2+1+40 (guest is in user
        // already).
        assert_eq!(parse_machine(stat), Some((158, 1001)));
        assert_eq!(parse_machine("cpu0 1 2 3 4 5 6 7 8\n"), None);
        assert_eq!(parse_machine("cpu  1 2 3\n"), None);
    }

    #[test]
    fn other_work_is_the_machines_busy_time_less_the_collectors_own() {
        // 300 busy ticks at 100/s = 3 s; own 1.25 s: 1.75 s by others, of 20 s.
        let o = other_work(
            (1000, 10_000),
            (1300, 12_000),
            Duration::from_millis(1250),
            100.0,
        );
        assert_eq!(o.cpu_s, 1.75);
        assert_eq!(o.window_cpu_s, 20.0);
        assert_eq!(o.percent(), Some(8.75));
        // Own time a little over the ticks (their 10 ms grain): 0, not negative.
        let o = other_work((0, 0), (100, 200), Duration::from_millis(1004), 100.0);
        assert_eq!(o.cpu_s, 0.0);
    }

    #[test]
    fn this_process_spinning_is_its_own_work() {
        let w = Watch::start().expect("/proc/stat and getrusage on Linux");
        let own = own_cpu().unwrap();
        // Spin until this process has used 300 ms more CPU.
        while own_cpu().unwrap() < own + Duration::from_millis(300) {
            std::hint::black_box(0u64);
        }
        let o = w.finish().unwrap();
        // The window holds at least the 300 ms spun, on some CPU.
        assert!(o.window_cpu_s >= 0.29, "{o:?}");
        assert!(o.cpu_s >= 0.0 && o.cpu_s <= o.window_cpu_s, "{o:?}");
    }
}
