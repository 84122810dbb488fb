//! Whether an earlier run is over, so that what it left behind (a killed run cannot clean
//! up after itself) can be swept: the peer phase's private folders and the emulated
//! link's network namespaces both carry the pid of the run that made them. Below both, so
//! neither names the other.

use std::path::Path;

/// Whether a run with process id `pid` is over: its process is gone, or it is this
/// process, which made nothing yet when it sweeps (after a container restart our own pid
/// is often the same as the dead run's).
pub fn run_is_over(pid: u32) -> bool {
    pid == std::process::id() || !Path::new(&format!("/proc/{pid}")).exists()
}
