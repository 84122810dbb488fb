//! SIGINT (Ctrl-C), SIGTERM (CI cancel, `timeout`) and SIGHUP (a closed terminal) all stop
//! a run the same way: the first asks the run to stop and save what it measured
//! (`complete: false`), a second removes the peer key folders and the network namespaces
//! and exits at once. The exit status is 128 + the first signal's number: 130 (SIGINT),
//! 143 (SIGTERM), 129 (SIGHUP).
//!
//! A signal during setup (network namespaces, TUN devices) ends the run the same way, with
//! the same status, saying so ([`outcome`]); nothing is written then, as nothing was measured.
//!
//! The handler itself only records the signal and writes a byte to a pipe
//! (async-signal-safe); a thread reading the pipe does the rest.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};

use crate::arms::peer::private_dir;
use crate::netem::{netns, SetupInterrupted};

/// The first signal received (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// Write end of the pipe the handler wakes the thread with.
static PIPE_W: AtomicI32 = AtomicI32::new(-1);

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(sig: libc::c_int) {
    let _ = FIRST.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    let byte = sig as u8;
    // SAFETY: write(2) is async-signal-safe; the byte outlives the call.
    unsafe {
        libc::write(
            PIPE_W.load(Ordering::SeqCst),
            (&byte as *const u8).cast(),
            1,
        )
    };
}

/// The exit status after the first signal (128 + its number), if one came.
pub fn exit_status() -> Option<u8> {
    match FIRST.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(128 + sig as u8),
    }
}

/// How the first signal is named in the evidence and on stderr.
pub fn name() -> &'static str {
    match FIRST.load(Ordering::SeqCst) {
        libc::SIGINT => "Ctrl-C (SIGINT)",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The run's status once it has ended: after a signal, an error ends the run with the
/// signal's status too (the user asked it to stop; the signal is the cause to report),
/// saying whether it stopped during setup. Without a signal, `result` as it is.
pub fn outcome(result: Result<ExitCode>) -> Result<ExitCode> {
    let (Err(e), Some(status)) = (&result, exit_status()) else {
        return result;
    };
    let during_setup = e
        .downcast_ref::<SetupInterrupted>()
        .or_else(|| e.chain().find_map(|c| c.downcast_ref::<SetupInterrupted>()));
    match during_setup {
        Some(setup) => eprintln!(
            "collector: stopped by {}: {setup}; no arm was measured and no evidence written; \
             what setup had made is removed",
            name()
        ),
        None => eprintln!(
            "collector: stopped by {}; while stopping, the run ended with: {e:#}",
            name()
        ),
    }
    Ok(ExitCode::from(status))
}

/// Installs the handlers; `stop` is set on the first signal.
pub fn install(stop: Arc<AtomicBool>) -> Result<()> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        bail!(
            "could not make the signal pipe: {}",
            std::io::Error::last_os_error()
        );
    }
    PIPE_W.store(fds[1], Ordering::SeqCst);
    let read_fd = fds[0];
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut seen = 0;
            loop {
                let mut byte = 0u8;
                // SAFETY: reads one byte into a local.
                let n = unsafe { libc::read(read_fd, (&mut byte as *mut u8).cast(), 1) };
                if n != 1 {
                    if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                        continue;
                    }
                    return;
                }
                seen += 1;
                if seen == 1 {
                    stop.store(true, Ordering::SeqCst);
                    eprintln!(
                        "\ncollector: {} received; saving what was measured (send it again to quit at once)",
                        name()
                    );
                } else {
                    private_dir::remove_all_now();
                    netns::remove_all_now();
                    std::process::exit(exit_status().unwrap_or(130).into());
                }
            }
        })?;
    for sig in SIGNALS {
        // SAFETY: a zeroed sigaction with a handler that only does async-signal-safe work.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            act.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            if libc::sigaction(sig, &act, std::ptr::null_mut()) != 0 {
                bail!(
                    "could not install the handler for signal {sig}: {}",
                    std::io::Error::last_os_error()
                );
            }
        }
    }
    Ok(())
}
