//! `cargo xtask lab`: the main job.

use std::process::ExitCode;

use anyhow::Result;

use crate::tools::{cargo, root, status, step};
use crate::{serve, site_build};

pub fn run(args: &[String]) -> Result<ExitCode> {
    let (own, passthrough): (&[String], Vec<&String>) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], args[i + 1..].iter().collect()),
        None => (args, Vec::new()),
    };
    let no_serve = match own {
        [] => false,
        [flag] if flag == "--no-serve" => true,
        _ => anyhow::bail!(
            "unknown lab flag(s) {own:?}; lab takes `--no-serve`, and collector flags after `--`, e.g. `cargo xtask lab -- --quick`"
        ),
    };
    // The default run includes the peer arms (openssl s_time / s_server, Python ssl,
    // nginx, Caddy, GnuTLS).
    crate::tools::ensure_peer_stacks()?;
    // The counting phase (instructions per handshake) runs under valgrind's callgrind.
    crate::tools::ensure_apt("valgrind", &["valgrind"])?;
    let results = root().join("results");
    crate::tools::announce_native_rustflags();
    step(format!(
        "collecting on defaults (release build) into {}",
        results.display()
    ));
    let st = status(
        cargo()
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "collector",
                "--",
                "run",
                "--out",
            ])
            .arg(&results)
            .args(passthrough),
    )?;
    // Exit 3: the evidence was written but an arm carries an error; the site shows it,
    // so build and serve it anyway and end with that status.
    let arm_error = st.code() == Some(3);
    if !st.success() && !arm_error {
        eprintln!(
            "xtask: the collector exited with {st}; its evidence (if any) is in {}",
            results.display()
        );
        return Ok(ExitCode::from(st.code().unwrap_or(1).clamp(1, 255) as u8));
    }
    if arm_error {
        eprintln!("xtask: an arm's evidence carries an error (see above); building the site so it can be seen");
    }
    let status_at_end = if arm_error {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    };
    step(format!(
        "evidence is in {} (index: {})",
        results.display(),
        results.join("index.json").display()
    ));
    let out = site_build::default_out();
    site_build::build(std::slice::from_ref(&results), &out, None)?;
    crate::docs::into_site(&out)?;
    if no_serve {
        step(format!(
            "not serving (--no-serve); serve it with `cargo xtask serve {}`",
            out.display()
        ));
        return Ok(status_at_end);
    }
    serve::serve(&out, serve::DEFAULT_PORT)?;
    Ok(status_at_end)
}
