//! Writing evidence: atomically (temp file + rename), and keeping `index.json` current
//! without losing earlier runs.

use std::fs;
use std::io::Write;
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

/// Writes `bytes` to `path` so that readers see the old file or the new one, never half.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        fs::remove_file(&tmp).ok();
    }
    result.with_context(|| format!("could not write {}", path.display()))
}

/// Writes `evidence` as `dir/<run id>.json` and adds it to `dir/index.json`.
/// An unreadable existing index is kept aside as `index.json.unreadable-<run id>` and
/// rebuilt from the evidence files in `dir`, so no earlier run drops out of it.
/// Returns the evidence file's path, and a warning if the index had to be rebuilt.
pub fn write_run(dir: &Path, evidence: &Evidence) -> Result<(PathBuf, Option<String>)> {
    let file = format!("{}.json", evidence.run.id);
    let path = dir.join(&file);
    write_atomic(&path, evidence.to_json().as_bytes())?;

    let index_path = dir.join("index.json");
    let mut warning = None;
    let mut index = match fs::read_to_string(&index_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => ResultsIndex::default(),
        Err(e) => {
            return Err(e).with_context(|| format!("could not read {}", index_path.display()))
        }
        Ok(text) => match serde_json::from_str::<ResultsIndex>(&text) {
            Ok(index) => index,
            Err(e) => {
                let aside = dir.join(format!("index.json.unreadable-{}", evidence.run.id));
                fs::rename(&index_path, &aside)
                    .with_context(|| format!("could not move aside {}", index_path.display()))?;
                warning = Some(format!(
                    "{} was unreadable ({e}); kept it as {} and rebuilt the index from the evidence files in {}",
                    index_path.display(),
                    aside.display(),
                    dir.display()
                ));
                rebuild_index(dir)?
            }
        },
    };
    index.upsert(entry(&file, evidence));
    let json = serde_json::to_string_pretty(&index).expect("index serializes");
    write_atomic(&index_path, json.as_bytes())?;
    Ok((path, warning))
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
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("collector-write-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn evidence(id: &str, started: &str) -> Evidence {
        let mut e = shared::sample::evidence();
        e.run.id = id.into();
        e.run.started_at = started.into();
        e
    }

    #[test]
    fn index_keeps_earlier_runs_and_replaces_same_file() {
        let d = scratch("keep");
        write_run(&d, &evidence("b", "2026-01-02T00:00:00Z")).unwrap();
        write_run(&d, &evidence("a", "2026-01-01T00:00:00Z")).unwrap();
        write_run(&d, &evidence("b", "2026-01-02T00:00:00Z")).unwrap();
        let index: ResultsIndex =
            serde_json::from_str(&fs::read_to_string(d.join("index.json")).unwrap()).unwrap();
        let files: Vec<_> = index.runs.iter().map(|e| e.file.as_str()).collect();
        assert_eq!(files, ["a.json", "b.json"]);
        assert!(Evidence::from_json(&fs::read_to_string(d.join("a.json")).unwrap()).is_ok());
        assert_eq!(
            fs::read_dir(&d).unwrap().count(),
            3,
            "no temp files left behind"
        );
    }

    #[test]
    fn unreadable_index_is_kept_aside_and_rebuilt() {
        let d = scratch("corrupt");
        write_run(&d, &evidence("old", "2026-01-01T00:00:00Z")).unwrap();
        fs::write(d.join("index.json"), "{ not json").unwrap();
        let (_, warning) = write_run(&d, &evidence("new", "2026-01-02T00:00:00Z")).unwrap();
        assert!(warning.unwrap().contains("unreadable"));
        assert_eq!(
            fs::read_to_string(d.join("index.json.unreadable-new")).unwrap(),
            "{ not json"
        );
        let index: ResultsIndex =
            serde_json::from_str(&fs::read_to_string(d.join("index.json")).unwrap()).unwrap();
        assert_eq!(index.runs.len(), 2, "the old run is still listed");
    }

    #[test]
    fn unwritable_folder_is_reported() {
        let d = scratch("ro");
        let file = d.join("a-file");
        fs::write(&file, "x").unwrap();
        let err = check_writable(&file.join("sub")).unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot create the output folder"),
            "{err:#}"
        );
    }
}
