//! `cargo xtask docs`: the book under `docs/` (mdBook). Regenerates its two reference
//! pages from the program (`collector reference cli|evidence`: clap's help and the
//! evidence's JSON Schema), installs mdbook when missing, and builds the book, failing on
//! any warning mdbook prints. `cargo xtask site` and `lab` put the built book beside the
//! results (`SITE/docs/`) and reveal the page's links to it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

use crate::tools::{cargo, describe, root, step};

/// The mdbook the book is built with (installed into target/tools when missing).
pub const MDBOOK_VERSION: &str = "0.5.4";

/// The generated pages: `collector reference NAME` writes `docs/src/reference/NAME.md`.
const GENERATED: [&str; 2] = ["cli", "evidence"];

/// The README's picture of the site's first screen.
const SCREENSHOT: &str = "docs/src/images/first-screen.png";

pub fn run(args: &[String]) -> Result<ExitCode> {
    let mut out = root().join("target").join("book");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--out" => {
                out = it
                    .next()
                    .map(PathBuf::from)
                    .context("--out needs a folder")?
            }
            "--screenshot" => {
                let results = it.next().map(PathBuf::from).context(
                    "--screenshot needs the results folder of a default run, e.g. results",
                )?;
                screenshot(&results)?;
            }
            _ => bail!(
                "unknown docs flag `{arg}`: `cargo xtask docs [--out DIR] [--screenshot RESULTS]`"
            ),
        }
    }
    build(&out)?;
    step(format!(
        "the book is in {} (open index.html)",
        out.display()
    ));
    Ok(ExitCode::SUCCESS)
}

/// Regenerates the reference pages and builds the book into `out`.
pub fn build(out: &Path) -> Result<()> {
    regenerate()?;
    let mdbook = ensure_mdbook()?;
    let mut cmd = Command::new(&mdbook);
    cmd.arg("build")
        .arg("--dest-dir")
        .arg(out)
        .arg(root().join("docs"));
    step(format!("building the book: {}", describe(&cmd)));
    let output = cmd
        .output()
        .with_context(|| format!("could not start {}", describe(&cmd)))?;
    let said = String::from_utf8_lossy(&output.stderr);
    eprint!("{said}");
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
        .collect();
    if !output.status.success() || !warnings.is_empty() {
        bail!(
            "mdbook build failed ({}) or warned ({} line(s) above): the book is built with no \
             warnings",
            output.status,
            warnings.len()
        );
    }
    Ok(())
}

/// Writes each generated page from the collector built from this tree.
fn regenerate() -> Result<()> {
    for page in GENERATED {
        let file = root().join("docs/src/reference").join(format!("{page}.md"));
        step(format!(
            "generating {} (collector reference {page})",
            file.display()
        ));
        let mut cmd = cargo();
        cmd.args([
            "run",
            "--quiet",
            "--locked",
            "-p",
            "collector",
            "--",
            "reference",
            page,
        ]);
        let output = cmd
            .output()
            .with_context(|| format!("could not start {}", describe(&cmd)))?;
        if !output.status.success() {
            bail!(
                "{} failed ({}):\n{}",
                describe(&cmd),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::fs::write(&file, &output.stdout)
            .with_context(|| format!("could not write {}", file.display()))?;
    }
    Ok(())
}

/// mdbook at [`MDBOOK_VERSION`]: on PATH, else under target/tools, else installed there.
fn ensure_mdbook() -> Result<PathBuf> {
    let tools = root().join("target").join("tools");
    let local = tools.join("bin").join("mdbook");
    for candidate in [PathBuf::from("mdbook"), local.clone()] {
        let version = Command::new(&candidate).arg("--version").output();
        if version.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(MDBOOK_VERSION)) {
            return Ok(candidate);
        }
    }
    step(format!(
        "mdbook {MDBOOK_VERSION} is missing: installing it into {} (cargo install mdbook \
         --locked, without its serve and watch features; once)",
        tools.display()
    ));
    crate::tools::run(
        cargo()
            .args(["install", "mdbook", "--locked", "--version", MDBOOK_VERSION])
            .args(["--no-default-features", "--features", "search", "--root"])
            .arg(&tools),
    )?;
    Ok(local)
}

/// Marks the page's links to the book: hidden until a site has the book beside it.
pub const LINK_MARK: &str = "data-book hidden";

/// Builds the book into `site/docs` and shows the page's links to it.
pub fn into_site(site: &Path) -> Result<()> {
    build(&site.join("docs"))?;
    let page = site.join("index.html");
    let text = std::fs::read_to_string(&page)
        .with_context(|| format!("could not read {}", page.display()))?;
    if !text.contains(LINK_MARK) {
        bail!("index.html has no link to the book (`{LINK_MARK}`)");
    }
    std::fs::write(&page, text.replace(LINK_MARK, "data-book"))
        .with_context(|| format!("could not write {}", page.display()))
}

/// Writes [`SCREENSHOT`]: the site built from `results` (a default run's evidence), served
/// on 127.0.0.1, as headless Chromium shows it at 1400×900.
fn screenshot(results: &Path) -> Result<()> {
    crate::tools::ensure_apt("chromium", &["chromium"])?;
    let site = root().join("target").join("screenshot-site");
    crate::site_build::build(&[results.to_path_buf()], &site, None)?;
    let listener = crate::serve::bind(0)?;
    let port = listener.local_addr()?.port();
    let dir = site.clone();
    std::thread::spawn(move || {
        crate::serve::accept_loop(listener, &dir, crate::serve::Limits::default())
    });
    let png = root().join(SCREENSHOT);
    std::fs::create_dir_all(png.parent().expect("a folder"))?;
    let _ = std::fs::remove_file(&png);
    let profile = root().join("target").join("screenshot-profile");
    let _ = std::fs::remove_dir_all(&profile);
    let mut cmd = Command::new("chromium");
    cmd.args(crate::bench::webdriver::CHROMIUM_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args([
            "--window-size=1400,900",
            "--hide-scrollbars",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("http://127.0.0.1:{port}/"));
    step(format!(
        "taking the README's screenshot: {}",
        describe(&cmd)
    ));
    let output = cmd
        .output()
        .with_context(|| format!("could not start {}", describe(&cmd)))?;
    let _ = std::fs::remove_dir_all(&profile);
    if !output.status.success() || !png.is_file() {
        bail!(
            "chromium --screenshot failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    step(format!("wrote {}", png.display()));
    Ok(())
}
