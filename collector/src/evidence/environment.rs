//! Facts about the machine, read from /proc and /etc (Linux).

use std::collections::BTreeMap;

use shared::{Environment, Library, LoadAverage};

/// `/proc/loadavg`'s three averages; zeros where it cannot be read.
pub fn load_average() -> [f64; 3] {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut it = text.split_whitespace().map(|x| x.parse().unwrap_or(0.0));
    [
        it.next().unwrap_or(0.0),
        it.next().unwrap_or(0.0),
        it.next().unwrap_or(0.0),
    ]
}

pub fn hostname() -> String {
    read_trimmed("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown-host".into())
}

/// The guest's idle settings that decide what a wake-up costs (see
/// `shared::Environment::cpu_idle`): the cpuidle driver and governor, and every
/// parameter of the `haltpoll` module where it is loaded.
pub fn cpu_idle() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (key, path) in [
        (
            "cpuidle.driver",
            "/sys/devices/system/cpu/cpuidle/current_driver",
        ),
        (
            "cpuidle.governor",
            "/sys/devices/system/cpu/cpuidle/current_governor_ro",
        ),
        (
            "cpuidle.governor",
            "/sys/devices/system/cpu/cpuidle/current_governor",
        ),
    ] {
        if let Some(v) = read_trimmed(path) {
            out.entry(key.to_string()).or_insert(v);
        }
    }
    if let Ok(dir) = std::fs::read_dir("/sys/module/haltpoll/parameters") {
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(v) = read_trimmed(&entry.path().to_string_lossy()) {
                out.insert(format!("haltpoll.{name}"), v);
            }
        }
    }
    out
}

/// The machine as it is now; `load_before` is the load average taken before measuring.
pub fn collect(load_before: [f64; 3]) -> Environment {
    Environment {
        hostname: hostname(),
        os: os_name(),
        kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
        cpu_model: cpu_model(),
        // The CPUs the process may use, read before any thread was pinned (the client
        // thread's own mask is only its half under `--placement split`).
        logical_cpus: crate::cpu::plan().available.len() as u64,
        load_average: LoadAverage {
            before: load_before,
            after: load_average(),
        },
        tls_library: Library {
            name: "rustls".into(),
            version: env!("LAB_RUSTLS_VERSION").into(),
        },
        crypto_provider: Library {
            name: "aws-lc-rs".into(),
            version: format!(
                "{} (aws-lc-sys {})",
                env!("LAB_AWS_LC_RS_VERSION"),
                env!("LAB_AWS_LC_SYS_VERSION")
            ),
        },
        peers: Vec::new(),
        server_host: None,
        steal_percent: BTreeMap::new(),
        cpu_idle: cpu_idle(),
        other_work: None,
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn os_name() -> String {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

fn cpu_model() -> String {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    text.lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}
