//! Writing evidence: atomically (temp file + rename, then fsync of the file and the
//! folder), never over another run's file, and keeping `index.json` current under a lock
//! so concurrent runs into one folder all stay listed.

use std::fs;
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use shared::{Evidence, IndexEntry, ResultsIndex};

/// Creates `dir` if needed and proves it is writable, before anything is measured.
pub fn check_writable(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the output folder {}", dir.display()))?;
    let probe = dir.join(format!(".collector-write-test-{}", std::process::id()));
    fs::write(&probe, b"probe")
        .with_context(|| format!("cannot write into the output folder {}", dir.display()))?;
    fs::remove_file(&probe).ok();
    Ok(())
}

/// A temp file next to `path` that no other writer (process or thread) can be using.
fn create_temp(path: &Path) -> std::io::Result<(PathBuf, fs::File)> {
    loop {
        let tmp = path.with_extension(format!(
            "tmp-{}-{:08x}",
            std::process::id(),
            fastrand::u32(..)
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            other => return other.map(|f| (tmp, f)),
        }
    }
}

/// fsync of the folder holding `path`, so a rename or link in it survives a crash.
fn sync_parent(path: &Path) -> std::io::Result<()> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::File::open(parent)?.sync_all()
}

/// Writes `bytes` to a fresh temp file beside `path`, synced; removed again on failure.
fn write_temp(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let (tmp, mut f) = create_temp(path)?;
    let written = f.write_all(bytes).and_then(|_| f.sync_all());
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            fs::remove_file(&tmp).ok();
            Err(e)
        }
    }
}

/// Writes `bytes` to `path` so that readers see the old file or the new one, never half.
/// On failure the old file is untouched and no temp file is left.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let result = write_temp(path, bytes).and_then(|tmp| {
        fs::rename(&tmp, path).inspect_err(|_| {
            fs::remove_file(&tmp).ok();
        })?;
        sync_parent(path)
    });
    result.with_context(|| format!("could not write {}", path.display()))
}

/// Writes `bytes` as `path` only if no file has that name: hard-linking the synced temp
/// file fails atomically when the name is taken. Ok(false) when it was taken.
fn write_new(path: &Path, bytes: &[u8]) -> Result<bool> {
    let tmp =
        write_temp(path, bytes).with_context(|| format!("could not write {}", path.display()))?;
    let linked = fs::hard_link(&tmp, path);
    fs::remove_file(&tmp).ok();
    match linked {
        Ok(()) => {
            sync_parent(path).with_context(|| format!("could not sync {}", path.display()))?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e).with_context(|| format!("could not write {}", path.display())),
    }
}

/// An exclusive `flock` on the folder itself, released when dropped (or when the
/// process dies). Every collector writing into the folder takes it around the whole
/// read-modify-write of `index.json`.
// The file is never read: holding it holds the lock (dropping it releases it).
struct FolderLock(#[allow(dead_code)] fs::File);

impl FolderLock {
    fn take(dir: &Path) -> Result<Self> {
        let f = fs::File::open(dir)
            .with_context(|| format!("could not open {} to lock it", dir.display()))?;
        // SAFETY: flock on a descriptor we own; it blocks until the lock is ours.
        loop {
            if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(Self(f));
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e).with_context(|| format!("could not lock {}", dir.display()));
            }
        }
    }
}

/// Writes `evidence` as `dir/<run id>.json` and adds it to `dir/index.json`.
/// When a file of that name exists already (two runs in the same second with the same
/// suffix), the run id gets `-2`, `-3`, … rather than overwriting it.
/// An unreadable or foreign existing index (not UTF-8, not JSON, not an index) is kept
/// aside as `index.json.unreadable-<run id>` and rebuilt from the evidence files in
/// `dir`, so no earlier run drops out of it.
/// Returns the evidence file's path, and a warning if the index had to be rebuilt.
pub fn write_run(dir: &Path, evidence: &Evidence) -> Result<(PathBuf, Option<String>)> {
    let _lock = FolderLock::take(dir)?;
    let mut evidence = std::borrow::Cow::Borrowed(evidence);
    let base = evidence.run.id.clone();
    let mut n = 1;
    let (file, path) = loop {
        let file = format!("{}.json", evidence.run.id);
        let path = dir.join(&file);
        if write_new(&path, evidence.to_json().as_bytes())? {
            break (file, path);
        }
        n += 1;
        evidence.to_mut().run.id = format!("{base}-{n}");
    };

    let index_path = dir.join("index.json");
    let mut warning = None;
    let read = match fs::read(&index_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ResultsIndex::default()),
        Err(e) => {
            return Err(e).with_context(|| format!("could not read {}", index_path.display()))
        }
        Ok(bytes) => match std::str::from_utf8(&bytes) {
            Err(e) => Err(format!("not UTF-8: {e}")),
            Ok(text) => serde_json::from_str::<ResultsIndex>(text)
                .map_err(|e| format!("not a results index: {e}")),
        },
    };
    let mut index = match read {
        Ok(index) => index,
        Err(why) => {
            let aside = set_aside(&index_path, &evidence.run.id)?;
            warning = Some(format!(
                "{} was unreadable ({why}); kept it as {} and rebuilt the index from the evidence files in {}",
                index_path.display(),
                aside.display(),
                dir.display()
            ));
            rebuild_index(dir)?
        }
    };
    index.upsert(entry(&file, &evidence));
    let json = serde_json::to_string_pretty(&index).expect("index serializes");
    write_atomic(&index_path, json.as_bytes())?;
    Ok((path, warning))
}

/// Writes evidence that breaks its own invariants as `dir/<run id>.invalid.json`
/// (`-2`, `-3`, … when taken), beside the valid runs and never listed in
/// `index.json`: kept for the bug report, never shown as a result.
pub fn write_invalid(dir: &Path, evidence: &Evidence) -> Result<PathBuf> {
    let id = &evidence.run.id;
    let bytes = evidence.to_json();
    let mut n = 1;
    loop {
        let name = match n {
            1 => format!("{id}.invalid.json"),
            _ => format!("{id}-{n}.invalid.json"),
        };
        let path = dir.join(name);
        if write_new(&path, bytes.as_bytes())? {
            return Ok(path);
        }
        n += 1;
    }
}

/// Renames `index_path` to a free `index.json.unreadable-<id>[-n]` name.
fn set_aside(index_path: &Path, id: &str) -> Result<PathBuf> {
    let mut aside = index_path.with_file_name(format!("index.json.unreadable-{id}"));
    let mut n = 1;
    while aside.exists() {
        n += 1;
        aside = index_path.with_file_name(format!("index.json.unreadable-{id}-{n}"));
    }
    fs::rename(index_path, &aside)
        .with_context(|| format!("could not move aside {}", index_path.display()))?;
    Ok(aside)
}

fn entry(file: &str, e: &Evidence) -> IndexEntry {
    IndexEntry {
        file: file.to_string(),
        run_id: e.run.id.clone(),
        host: e.environment.hostname.clone(),
        started_at: e.run.started_at.clone(),
        complete: e.run.complete,
    }
}

/// An index of every valid evidence file in `dir`.
fn rebuild_index(dir: &Path) -> Result<ResultsIndex> {
    let mut index = ResultsIndex::default();
    for item in fs::read_dir(dir)? {
        let path = item?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        if !name.ends_with(".json") || name == "index.json" {
            continue;
        }
        if let Ok(e) = fs::read_to_string(&path)
            .map_err(|_| ())
            .and_then(|t| Evidence::from_json(&t).map_err(|_| ()))
        {
            index.upsert(entry(&name, &e));
        }
    }
    Ok(index)
}

#[cfg(test)]
#[path = "write_tests.rs"]
pub(crate) mod tests;
