//! Setting up the emulated path one command at a time, looking at the run's stop flag
//! before each: a signal (Ctrl-C, SIGTERM, SIGHUP) during setup ends the run as
//! interrupted, with what was made removed, instead of running the next `ip` command
//! into a namespace a second signal may already have deleted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Test hook (tests/e2e/rtt.rs): `HLAB_TEST_SIGNAL_DURING_SETUP=<step>:<SIG>[+<SIG>…]` makes
/// the collector send itself those signals (`INT`, `TERM`, `HUP`) just before that setup
/// step, so a test interrupts setup at a chosen step instead of by timing.
pub const TEST_HOOK: &str = "HLAB_TEST_SIGNAL_DURING_SETUP";

/// The run was asked to stop while the emulated path was being set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetupInterrupted {
    /// The step that was not started.
    pub before: Step,
}

impl std::fmt::Display for SetupInterrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted during setup of the emulated path, before {} ({})",
            self.before.what(),
            self.before.id()
        )
    }
}

impl std::error::Error for SetupInterrupted {}

/// Each setup step, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    RemoveStale,
    ClientNamespace,
    ServerNamespace,
    ClientTun,
    ServerTun,
    ClientAddress,
    ClientLinkUp,
    ClientRoute,
    ServerAddress,
    ServerLinkUp,
    ServerRoute,
    DelayLine,
}

impl Step {
    pub const ALL: [Step; 12] = [
        Step::RemoveStale,
        Step::ClientNamespace,
        Step::ServerNamespace,
        Step::ClientTun,
        Step::ServerTun,
        Step::ClientAddress,
        Step::ClientLinkUp,
        Step::ClientRoute,
        Step::ServerAddress,
        Step::ServerLinkUp,
        Step::ServerRoute,
        Step::DelayLine,
    ];

    /// The name the test hook uses.
    pub fn id(self) -> &'static str {
        match self {
            Step::RemoveStale => "remove-stale",
            Step::ClientNamespace => "client-namespace",
            Step::ServerNamespace => "server-namespace",
            Step::ClientTun => "client-tun",
            Step::ServerTun => "server-tun",
            Step::ClientAddress => "client-address",
            Step::ClientLinkUp => "client-link-up",
            Step::ClientRoute => "client-route",
            Step::ServerAddress => "server-address",
            Step::ServerLinkUp => "server-link-up",
            Step::ServerRoute => "server-route",
            Step::DelayLine => "delay-line",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Step::RemoveStale => "removing namespaces left by earlier runs",
            Step::ClientNamespace => "creating the client's network namespace",
            Step::ServerNamespace => "creating the server's network namespace",
            Step::ClientTun => "opening the client's TUN device",
            Step::ServerTun => "opening the server's TUN device",
            Step::ClientAddress => "giving the client's device its address",
            Step::ClientLinkUp => "bringing the client's device up",
            Step::ClientRoute => "routing the client to the server",
            Step::ServerAddress => "giving the server's device its address",
            Step::ServerLinkUp => "bringing the server's device up",
            Step::ServerRoute => "routing the server to the client",
            Step::DelayLine => "starting the delay line",
        }
    }
}

/// The stop flag setup looks at before each step.
pub struct Setup<'a> {
    stop: &'a AtomicBool,
    hook: Option<(Step, Vec<libc::c_int>)>,
}

impl<'a> Setup<'a> {
    pub fn new(stop: &'a AtomicBool) -> Setup<'a> {
        Setup {
            stop,
            hook: std::env::var(TEST_HOOK).ok().and_then(|v| parse_hook(&v)),
        }
    }

    /// Call before `step`: an error when the run was asked to stop.
    pub fn before(&self, step: Step) -> Result<(), SetupInterrupted> {
        if let Some((at, signals)) = &self.hook {
            if *at == step {
                self.signal_self(signals);
            }
        }
        if self.stop.load(Ordering::SeqCst) {
            return Err(SetupInterrupted { before: step });
        }
        Ok(())
    }

    /// The test hook: sends `signals` to this process and waits until the first has set
    /// the stop flag (the handler's thread sets it), so the check after it sees it.
    fn signal_self(&self, signals: &[libc::c_int]) {
        for &sig in signals {
            // SAFETY: raise(3) with a signal whose handler is installed (run/signals.rs).
            unsafe { libc::raise(sig) };
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.stop.load(Ordering::SeqCst) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// `client-route:INT+TERM` → (ClientRoute, [SIGINT, SIGTERM]); anything else → None.
fn parse_hook(value: &str) -> Option<(Step, Vec<libc::c_int>)> {
    let (step, signals) = value.split_once(':')?;
    let step = Step::ALL.into_iter().find(|s| s.id() == step)?;
    let signals = signals
        .split('+')
        .map(|s| match s {
            "INT" => Some(libc::SIGINT),
            "TERM" => Some(libc::SIGTERM),
            "HUP" => Some(libc::SIGHUP),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((step, signals))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_names_a_step_and_its_signals() {
        assert_eq!(
            parse_hook("client-route:INT+TERM"),
            Some((Step::ClientRoute, vec![libc::SIGINT, libc::SIGTERM]))
        );
        assert_eq!(
            parse_hook("delay-line:HUP"),
            Some((Step::DelayLine, vec![libc::SIGHUP]))
        );
        for bad in [
            "",
            "client-route",
            "nowhere:INT",
            "client-route:KILL",
            "delay-line:",
        ] {
            assert_eq!(parse_hook(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_set_stop_flag_stops_setup_before_the_next_step() {
        let stop = AtomicBool::new(false);
        let setup = Setup {
            stop: &stop,
            hook: None,
        };
        assert_eq!(setup.before(Step::ClientNamespace), Ok(()));
        stop.store(true, Ordering::SeqCst);
        let e = setup.before(Step::ServerTun).unwrap_err();
        assert_eq!(e.before, Step::ServerTun);
        assert_eq!(
            e.to_string(),
            "interrupted during setup of the emulated path, before opening the server's TUN \
             device (server-tun)"
        );
    }

    #[test]
    fn step_ids_are_distinct() {
        let mut ids: Vec<&str> = Step::ALL.iter().map(|s| s.id()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Step::ALL.len());
    }
}
