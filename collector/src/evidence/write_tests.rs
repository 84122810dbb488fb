use super::*;

/// A fresh, empty folder under the system temp dir (also used by the run's finish tests).
pub(crate) fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("collector-{name}-{}", std::process::id()));
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

fn index(d: &Path) -> ResultsIndex {
    serde_json::from_str(&fs::read_to_string(d.join("index.json")).unwrap()).unwrap()
}

/// The file names in `d`, sorted.
pub(crate) fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn index_keeps_earlier_runs_and_never_overwrites_a_file() {
    let d = scratch("keep");
    write_run(&d, &evidence("b", "2026-01-02T00:00:00Z")).unwrap();
    let first = fs::read_to_string(d.join("b.json")).unwrap();
    write_run(&d, &evidence("a", "2026-01-01T00:00:00Z")).unwrap();
    // The same id again (two runs in the same second): a new name, the first file intact.
    let mut again = evidence("b", "2026-01-02T00:00:00Z");
    again.environment.hostname = "second".into();
    let (path, _) = write_run(&d, &again).unwrap();
    assert_eq!(path, d.join("b-2.json"));
    assert_eq!(fs::read_to_string(d.join("b.json")).unwrap(), first);
    let second = Evidence::from_json(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        (second.run.id.as_str(), second.environment.hostname.as_str()),
        ("b-2", "second")
    );
    let files: Vec<_> = index(&d)
        .runs
        .into_iter()
        .map(|e| (e.file, e.run_id))
        .collect();
    let expected = [("a", "a"), ("b-2", "b-2"), ("b", "b")]
        .map(|(f, id)| (format!("{f}.json"), id.to_string()));
    assert_eq!(files, expected);
    assert_eq!(
        names(&d),
        ["a.json", "b-2.json", "b.json", "index.json"],
        "no temp files left behind"
    );
}

#[test]
fn concurrent_writers_all_stay_listed() {
    let d = scratch("concurrent");
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let d = d.clone();
            std::thread::spawn(move || {
                write_run(&d, &evidence(&format!("r{i:02}"), "2026-01-01T00:00:00Z")).unwrap();
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let listed: Vec<_> = index(&d).runs.into_iter().map(|e| e.file).collect();
    let expected: Vec<_> = (0..16).map(|i| format!("r{i:02}.json")).collect();
    assert_eq!(listed, expected);
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
    assert_eq!(index(&d).runs.len(), 2, "the old run is still listed");
}

#[test]
fn non_utf8_and_foreign_indexes_are_set_aside() {
    for (name, content) in [
        ("latin1", b"{\"runs\": [\"caf\xe9\"]}".to_vec()),
        (
            "foreign",
            br#"{"name": "some other tool", "version": 3}"#.to_vec(),
        ),
    ] {
        let d = scratch(name);
        write_run(&d, &evidence("old", "2026-01-01T00:00:00Z")).unwrap();
        fs::write(d.join("index.json"), &content).unwrap();
        let (_, warning) = write_run(&d, &evidence("new", "2026-01-02T00:00:00Z")).unwrap();
        let warning = warning.expect("a message about the index");
        assert!(warning.contains("kept it as"), "{name}: {warning}");
        assert_eq!(
            fs::read(d.join("index.json.unreadable-new")).unwrap(),
            content
        );
        let files: Vec<_> = index(&d).runs.into_iter().map(|e| e.file).collect();
        assert_eq!(files, ["old.json", "new.json"], "{name}");
    }
}

#[test]
fn failed_write_keeps_the_old_file_and_leaves_no_temp() {
    let d = scratch("fail");
    let target = d.join("index.json");
    fs::write(&target, "old").unwrap();
    // A folder in the target's place makes the rename fail after the temp is written.
    let blocked = d.join("blocked");
    fs::create_dir_all(blocked.join("inner")).unwrap();
    assert!(write_atomic(&blocked, b"new").is_err());
    assert!(write_atomic(&target, b"new").is_ok());
    assert_eq!(fs::read_to_string(&target).unwrap(), "new");
    assert_eq!(
        names(&d),
        ["blocked", "index.json"],
        "no temp files left behind"
    );
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
