//! Python's `ssl` as a peer stack: its arms and how the phase runs them.

use anyhow::Result;
use shared::{Arm, CertKind, Protocol, Stack};

use super::{arms, run, version, TCP_WINDOW, TIMED_WINDOW};
use crate::arms::peer::{PeerArgs, PeerArm, PeerStack, Tool, Work};
use crate::arms::ArmSpec;
use crate::arms::Plan;

/// The `python3` program.
pub const PYTHON: Tool = Tool {
    program: "python3",
    version,
};

/// Python's `ssl` module, client and server in one process: the original lab's Arm A.
pub struct Peer;

impl PeerStack for Peer {
    fn name(&self) -> &'static str {
        "python"
    }
    fn no_ml_dsa(&self) -> Option<&'static str> {
        Some("Python's ssl loads keys through the OpenSSL it links, which has ML-DSA from 3.5 on")
    }

    fn plan(&self, certs: &[CertKind], _groups: &[shared::KxGroup]) -> Vec<PeerArm> {
        arms(certs)
            .into_iter()
            .map(|spec| {
                PeerArm::new(
                    self.name(),
                    format!("python-{spec}"),
                    spec,
                    (Stack::PythonSsl, Stack::PythonSsl, Stack::PythonSsl),
                    vec![PYTHON],
                    if spec.protocol() == Protocol::Tcp {
                        TCP_WINDOW
                    } else {
                        TIMED_WINDOW
                    }
                    .into(),
                    (),
                )
            })
            .collect()
    }

    /// One run of the embedded script for all of its arms.
    fn run(&self, w: &Work, idx: &[usize], records: &mut [Option<Arm>]) -> Result<()> {
        let (program, version) = w.tool(PYTHON.program)?;
        eprintln!("collector: peer arms: Python ssl ({} arms)", idx.len());
        let specs: Vec<ArmSpec> = idx.iter().map(|&i| w.arms[i].spec).collect();
        match run(program, w.dir, w.files, &specs, w.plan, w.ctx.io_timeout) {
            Ok((reported, runs)) => {
                for (&i, run) in idx.iter().zip(runs) {
                    records[i] = Some(w.measured_arm(i, Some(reported.clone()), &run));
                }
            }
            Err(_) if w.stopped() => {}
            Err(e) => {
                for &i in idx {
                    records[i] = Some(w.error_arm(
                        i,
                        Some(version.to_string()),
                        format!("the Python arm script failed: {e:#}"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn settings(&self, _args: &PeerArgs, _plan: &Plan) -> Vec<(&'static str, String)> {
        vec![("peer_python", "collector/peers/python_arm.py (embedded), stdin plan, stdout JSON with one record per connection; TCP_NODELAY on both ends, SO_LINGER {on,0} on the client; client and server threads in one process; resumed arms: one server SSLContext for every connection, the client takes sock.session after reading the app byte; session_reused checked per connection on both ends; groups: OpenSSL defaults (Python 3.11 cannot pin them)".into())]
    }
}
