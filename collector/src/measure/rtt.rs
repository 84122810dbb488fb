//! Arms over an emulated round trip ([`crate::netem`]): the same sessions and timing
//! loop as on loopback, with the client thread in one network namespace and the servers
//! in another, one RTT after the other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use shared::Arm;

use super::{measure_sessions, Plan};
use crate::arms::{ArmSpec, Session, SessionOptions};
use crate::certs::CertStore;
use crate::netem::{DelayPath, SetupInterrupted, METHOD};

/// `20ms`, `0.5ms`: the suffix of an RTT arm's id.
pub fn label(rtt: Duration) -> String {
    let ms = rtt.as_secs_f64() * 1000.0;
    format!("rtt{}ms", trim(ms))
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Measures `specs` at every RTT in `rtts` (request/response mode: the window ends at
/// the first response byte). Stops early, keeping what was measured, when `stop` is set.
pub fn run(
    specs: &[ArmSpec],
    rtts: &[Duration],
    plan: &Plan,
    certs: &CertStore,
    (io_timeout, keepalive_requests): (Duration, u64),
    stop: &AtomicBool,
) -> Result<Vec<Arm>> {
    let path = DelayPath::new(stop).map_err(|e| {
        // A signal during setup is not a missing privilege: say only that (run/mod.rs).
        if e.is::<SetupInterrupted>() {
            e
        } else {
            e.context(
                "emulated round trips (--rtt) need root, `ip` (iproute2) and /dev/net/tun; no RTT result was faked",
            )
        }
    })?;
    let path = &path;
    std::thread::scope(|scope| {
        scope
            .spawn(move || -> Result<Vec<Arm>> {
                // This thread (and the servers it starts) now lives in the client namespace.
                path.client.enter()?;
                let mut arms = Vec::new();
                for &rtt in rtts {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    path.set_rtt(rtt);
                    let opts = SessionOptions {
                        io_timeout: io_timeout + rtt * 10,
                        request: true,
                        placement: path.placement(),
                        keepalive_requests,
                    };
                    let mut sessions: Vec<(ArmSpec, Box<dyn Session>)> = Vec::new();
                    for spec in specs {
                        let session = spec
                            .start(certs, &opts)
                            .with_context(|| format!("starting arm {spec} at {}", label(rtt)))?;
                        sessions.push((*spec, session));
                    }
                    eprintln!(
                        "collector: {} arms at an emulated {} round trip",
                        specs.len(),
                        label(rtt).trim_start_matches("rtt")
                    );
                    for mut arm in measure_sessions(&mut sessions, plan, &label(rtt), stop) {
                        arm.id = format!("{}-{}", arm.id, label(rtt));
                        arm.rtt_ms = Some(rtt.as_secs_f64() * 1000.0);
                        arm.rtt_method = Some(METHOD.to_string());
                        arms.push(arm);
                    }
                }
                Ok(arms)
            })
            .join()
            .expect("the RTT thread does not panic")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_readable() {
        assert_eq!(label(Duration::from_millis(20)), "rtt20ms");
        assert_eq!(label(Duration::ZERO), "rtt0ms");
        assert_eq!(label(Duration::from_micros(500)), "rtt0.5ms");
    }
}
