use super::*;
use crate::site_build::gz;
use crate::site_build::MAX_FILE_BYTES;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-results-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One build of `to` from `results`, with its record kept in `to` between builds.
fn build_once(
    results: &Path,
    to: &Path,
    cap: u64,
) -> Result<(ResultsIndex, shared::History, Done)> {
    build_from(&[results.to_path_buf()], to, cap)
}

fn build_from(
    folders: &[PathBuf],
    to: &Path,
    cap: u64,
) -> Result<(ResultsIndex, shared::History, Done)> {
    let sources = gather(folders, cap)?;
    // The record lives beside results/, as in a site.
    let record = to.with_extension("record");
    std::fs::create_dir_all(&record)?;
    let mut built = Built::read(&record, "test");
    let made = copy_results(&sources, to, &mut built, None)?;
    built.write(&record)?;
    Ok(made)
}

/// The text of the site's gzipped file at `path`.
fn text(path: &Path) -> String {
    gz::read_text(path).unwrap_or_else(|| panic!("{} is not a gzip file", path.display()))
}

/// Writes `run(id)` into `dir` as `file`.
fn put(dir: &Path, file: &str, id: &str) {
    std::fs::write(dir.join(file), run(id).to_json()).unwrap();
}

/// A valid run with its own id.
fn run(id: &str) -> shared::Evidence {
    let mut ev = shared::sample::evidence();
    ev.run.id = id.into();
    ev
}

#[test]
fn an_evidence_file_over_the_cap_is_refused_by_name() {
    let results = scratch("big-results");
    let to = scratch("big-to");
    std::fs::write(results.join("small.json"), "{}").unwrap();
    std::fs::write(results.join("huge.json"), vec![b' '; 2000]).unwrap();
    let err = format!("{:#}", build_once(&results, &to, 1000).unwrap_err());
    assert!(
        err.contains("huge.json is 2000 bytes, more than the 1000 bytes"),
        "{err}"
    );
    std::fs::write(results.join("huge.json"), "{}").unwrap();
    std::fs::write(results.join("index.json"), vec![b' '; 2000]).unwrap();
    let err = format!("{:#}", build_once(&results, &to, 1000).unwrap_err());
    assert!(err.contains("index.json is 2000 bytes"), "{err}");
    std::fs::remove_file(results.join("index.json")).unwrap();
    let (index, _, _) = build_once(&results, &to, 1000).unwrap();
    assert_eq!(index.runs.len(), 2);
}

#[test]
fn the_history_lists_every_run_in_index_order_and_each_valid_run_has_a_summary() {
    let results = scratch("sum-results");
    let to = scratch("sum-to");
    let full = shared::sample::evidence();
    std::fs::write(results.join("b-good.json"), full.to_json()).unwrap();
    std::fs::write(results.join("a-broken.json"), "{").unwrap();
    let (index, _, _) = build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    let files: Vec<&str> = index.runs.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(files, ["a-broken.json.gz", "b-good.json.gz"]);
    let history =
        shared::History::from_json(&std::fs::read_to_string(to.join(HISTORY)).unwrap()).unwrap();
    assert_eq!(history.unreadable, ["a-broken.json.gz"]);
    assert_eq!(history.runs.len(), 1);
    assert_eq!(history.runs[0].file, "b-good.json.gz");
    assert!(history.runs[0].raw);
    assert_eq!(history.runs[0].run_id, "20261130T000000Z-sample-0000");
    assert_eq!(history.runs[0].arms.len(), full.arms.len());
    assert!(!to.join(SUMMARIES).join("a-broken.json.gz").exists());
    // The file that does not read is there, for the page to show why.
    assert_eq!(text(&to.join("a-broken.json.gz")), "{");
    let summary =
        shared::Evidence::from_json(&text(&to.join(SUMMARIES).join("b-good.json.gz"))).unwrap();
    assert!(summary.summary);
    assert_eq!(summary.run.id, "20261130T000000Z-sample-0000");
    assert!(summary.arms.iter().all(|a| a.samples_us.is_empty()));
    assert_eq!(summary.arms[1].latency_us, full.arms[1].latency_us);
    // Its head: valid evidence of the same run, summary-only, for the headline.
    assert!(!to.join(HEADS).join("a-broken.json.gz").exists());
    let head = shared::Evidence::from_json(&text(&to.join(HEADS).join("b-good.json.gz"))).unwrap();
    assert!(head.summary);
    assert_eq!(head.run.id, summary.run.id);
    assert_eq!(head, head_of(&full));
    // The evidence itself is in the site, whole and unchanged (gzipped).
    assert_eq!(text(&to.join("b-good.json.gz")), full.to_json());
    // And each arm with samples has them in a file of its own, named by its index.
    for (i, arm) in full.arms.iter().enumerate() {
        let at = to.join(format!("raw/b-good/{i}.json.gz"));
        if arm.samples_us.is_empty() {
            assert!(!at.exists(), "{}", at.display());
        } else {
            assert_eq!(
                shared::ArmSamples::read(&text(&at), arm).unwrap(),
                arm.samples_us
            );
        }
    }
    assert!(
        full.arms
            .iter()
            .filter(|a| !a.samples_us.is_empty())
            .count()
            >= 2
    );
    // Building again over the site leaves the source evidence whole.
    build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    assert_eq!(
        std::fs::read_to_string(results.join("b-good.json")).unwrap(),
        full.to_json()
    );
}

#[test]
fn an_unchanged_file_is_reused_a_changed_one_rebuilt_and_a_removed_one_removed() {
    let results = scratch("inc-results");
    let to = scratch("inc-to");
    put(&results, "a.json", "20261201T000000Z-a-0000");
    put(&results, "b.json", "20261201T000000Z-b-0000");
    std::fs::write(results.join("c.json"), "{").unwrap();
    let (_, first, done) = build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    assert_eq!(
        (done.reused, done.built, done.unreadable),
        (0, 2, 1),
        "{done}"
    );
    let history_text = std::fs::read_to_string(to.join(HISTORY)).unwrap();
    // Nothing changed: nothing is read again, and the history is the same, byte for byte.
    let (_, again, done) = build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    assert_eq!(
        (done.reused, done.built, done.unreadable),
        (2, 0, 1),
        "{done}"
    );
    assert_eq!(again, first);
    assert_eq!(
        std::fs::read_to_string(to.join(HISTORY)).unwrap(),
        history_text
    );
    // b changes (another id, another host): rebuilt, and its summary says so.
    let mut b = run("20261201T000000Z-b-0001");
    b.environment.hostname = "box-b".into();
    std::fs::write(results.join("b.json"), b.to_json()).unwrap();
    std::fs::remove_file(results.join("a.json")).unwrap();
    let (index, history, done) = build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    assert_eq!(
        (done.reused, done.built, done.unreadable),
        (0, 1, 1),
        "{done}"
    );
    assert_eq!(done.removed, ["a.json"]);
    assert!(!to.join("raw/a").exists(), "a's samples are gone with it");
    assert!(to.join("raw/b/1.json.gz").is_file());
    assert_eq!(index.runs.len(), 2);
    assert_eq!(history.runs.len(), 1);
    assert_eq!(history.runs[0].run_id, "20261201T000000Z-b-0001");
    let summary =
        shared::Evidence::from_json(&text(&to.join(SUMMARIES).join("b.json.gz"))).unwrap();
    assert_eq!(summary.environment.hostname, "box-b");
    // a is gone from the site: its evidence, summary and head.
    for dir in [to.clone(), to.join(SUMMARIES), to.join(HEADS)] {
        assert!(!dir.join("a.json.gz").exists(), "{}", dir.display());
    }
    assert!(done.to_string().contains("1 removed (a.json)"), "{done}");
    // A file that turns invalid leaves no summary or head behind.
    std::fs::write(results.join("b.json"), "[]").unwrap();
    let (_, history, done) = build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    assert_eq!(
        (done.reused, done.built, done.unreadable),
        (0, 0, 2),
        "{done}"
    );
    assert!(history.runs.is_empty());
    assert!(!to.join(SUMMARIES).join("b.json.gz").exists());
    assert!(!to.join(HEADS).join("b.json.gz").exists());
    assert!(!to.join("raw/b").exists());
}

#[test]
fn a_record_of_another_program_rebuilds_every_run() {
    let results = scratch("prog-results");
    let to = scratch("prog-to");
    put(&results, "a.json", "20261201T000000Z-a-0000");
    build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    let sources = gather(std::slice::from_ref(&results), MAX_FILE_BYTES).unwrap();
    let mut built = Built::read(&to.with_extension("record"), "another build of xtask");
    let (_, _, done) = copy_results(&sources, &to, &mut built, None).unwrap();
    assert_eq!((done.reused, done.built), (0, 1));
}

#[test]
fn folders_merge_into_one_site_each_run_once_and_a_conflict_names_both_files() {
    let box1 = scratch("merge-box1");
    let box2 = scratch("merge-box2");
    let to = scratch("merge-to");
    let shared_run = run("20261201T000000Z-both-0000").to_json();
    put(&box1, "one.json", "20261201T000000Z-one-0000");
    std::fs::write(box1.join("both.json"), &shared_run).unwrap();
    put(&box2, "two.json", "20261201T000000Z-two-0000");
    // The same run under another name in the second folder: taken once.
    std::fs::write(box2.join("both-copy.json"), &shared_run).unwrap();
    let (index, history, _) =
        build_from(&[box1.clone(), box2.clone()], &to, MAX_FILE_BYTES).unwrap();
    let files: Vec<&str> = index.runs.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(files, ["both.json.gz", "one.json.gz", "two.json.gz"]);
    assert_eq!(history.runs.len(), 3);
    assert!(to.join("two.json.gz").is_file() && !to.join("both-copy.json.gz").exists());
    // Two different files of one run id.
    let mut other = run("20261201T000000Z-both-0000");
    other.environment.hostname = "box2".into();
    std::fs::write(box2.join("both-copy.json"), other.to_json()).unwrap();
    let err = format!(
        "{:#}",
        build_from(&[box1.clone(), box2.clone()], &to, MAX_FILE_BYTES).unwrap_err()
    );
    assert!(
        err.contains(&box1.join("both.json").display().to_string()),
        "{err}"
    );
    assert!(
        err.contains(&box2.join("both-copy.json").display().to_string()),
        "{err}"
    );
    assert!(
        err.contains("the same run, 20261201T000000Z-both-0000"),
        "{err}"
    );
    // Two different files of one name.
    std::fs::remove_file(box2.join("both-copy.json")).unwrap();
    put(&box2, "one.json", "20261201T000000Z-three-0000");
    let err = format!(
        "{:#}",
        build_from(&[box1.clone(), box2.clone()], &to, MAX_FILE_BYTES).unwrap_err()
    );
    assert!(
        err.contains("are different files with the same name"),
        "{err}"
    );
    assert!(
        err.contains(&box2.join("one.json").display().to_string()),
        "{err}"
    );
    // Within one folder, copies of one run are each a run (as a site of one folder was).
    put(&box2, "one.json", "20261201T000000Z-two-0000");
    let (index, _, _) = build_from(std::slice::from_ref(&box2), &to, MAX_FILE_BYTES).unwrap();
    assert_eq!(index.runs.len(), 2);
    // A folder that does not exist is named.
    let err = format!(
        "{:#}",
        build_from(&[box1.join("nope")], &to, MAX_FILE_BYTES).unwrap_err()
    );
    assert!(
        err.contains("no results folder at") && err.contains("nope"),
        "{err}"
    );
}

#[test]
fn a_folders_index_orders_its_runs_and_only_its_other_json_files_join_them() {
    let results = scratch("idx-results");
    let to = scratch("idx-to");
    put(&results, "a.json", "20261201T000000Z-a-0000");
    put(&results, "b.json", "20261201T000000Z-b-0000");
    std::fs::write(results.join("notes.txt"), "not evidence").unwrap();
    // The index lists b only, under a host name of its own: b first, as listed, then a.
    std::fs::write(
        results.join("index.json"),
        r#"{"runs":[{"file":"b.json","run_id":"20261201T000000Z-b-0000","host":"listed","started_at":"2026-12-01T00:00:00Z","complete":true}]}"#,
    )
    .unwrap();
    let (index, _, _) = build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    let files: Vec<(&str, &str)> = index
        .runs
        .iter()
        .map(|e| (e.file.as_str(), e.host.as_str()))
        .collect();
    assert_eq!(
        files,
        [("b.json.gz", "listed"), ("a.json.gz", "sample-host")]
    );
    // A file of the site's results/ that is not a run's stays where it is.
    std::fs::write(to.join("keep.txt"), "mine").unwrap();
    build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    assert!(to.join("keep.txt").is_file());
}

#[test]
fn a_file_of_exactly_the_cap_is_taken() {
    let results = scratch("cap-results");
    let to = scratch("cap-to");
    // Both 11 bytes: the index and a (not valid evidence) run file.
    std::fs::write(results.join("a.json"), r#"{"x":12345}"#).unwrap();
    std::fs::write(results.join("index.json"), r#"{"runs":[]}"#).unwrap();
    let (index, _, _) = build_once(&results, &to, 11).unwrap();
    assert_eq!(index.runs.len(), 1);
    std::fs::remove_file(results.join("index.json")).unwrap();
    assert!(build_once(&results, &to, 10).is_err(), "a.json is 11 bytes");
}

#[test]
fn a_raw_data_cap_keeps_the_newest_runs_raw_data_and_lists_what_it_left_out() {
    let results = scratch("cap-raw-results");
    let to = scratch("cap-raw-to");
    for (file, day) in [("old.json", "01"), ("new.json", "03"), ("mid.json", "02")] {
        let mut ev = run(&format!("202612{day}T000000Z-h-0000"));
        ev.run.started_at = format!("2026-12-{day}T00:00:00Z");
        std::fs::write(results.join(file), ev.to_json()).unwrap();
    }
    let build = |cap: Option<usize>| {
        let sources = gather(std::slice::from_ref(&results), MAX_FILE_BYTES).unwrap();
        let record = to.with_extension("record");
        std::fs::create_dir_all(&record).unwrap();
        let mut built = Built::read(&record, "test");
        let made = copy_results(&sources, &to, &mut built, cap).unwrap();
        built.write(&record).unwrap();
        made
    };
    let raw_of = |h: &shared::History| -> Vec<(String, bool)> {
        h.runs.iter().map(|r| (r.file.clone(), r.raw)).collect()
    };
    // Every run's raw data first.
    let (_, history, done) = build(None);
    assert!(history.runs.iter().all(|r| r.raw) && done.left_out.is_empty());
    assert!(to.join("old.json.gz").is_file() && to.join("raw/old/1.json.gz").is_file());
    // The newest two keep theirs; the oldest's goes, its summary and head stay, and the
    // build says so by name (its files unchanged: nothing is summarised again).
    let (_, history, done) = build(Some(2));
    assert_eq!(
        raw_of(&history),
        [
            ("mid.json.gz".to_string(), true),
            ("new.json.gz".to_string(), true),
            ("old.json.gz".to_string(), false)
        ]
    );
    assert_eq!((done.reused, done.built), (3, 0));
    assert_eq!(done.left_out, ["old.json"]);
    assert!(
        done.to_string()
            .contains("raw data (whole evidence, per-arm samples) left out for 1 run(s), summary and head kept: old.json"),
        "{done}"
    );
    assert!(!to.join("old.json.gz").exists() && !to.join("raw/old").exists());
    assert!(to.join(SUMMARIES).join("old.json.gz").is_file());
    assert!(to.join(HEADS).join("old.json.gz").is_file());
    assert!(to.join("mid.json.gz").is_file() && to.join("raw/new/1.json.gz").is_file());
    // None kept: only summaries and heads.
    let (_, history, done) = build(Some(0));
    assert!(history.runs.iter().all(|r| !r.raw));
    assert_eq!(done.left_out.len(), 3);
    assert_eq!(std::fs::read_dir(to.join("raw")).unwrap().count(), 0);
    // The cap lifted: the raw data comes back although no file changed.
    let (_, history, done) = build(None);
    assert!(history.runs.iter().all(|r| r.raw) && done.left_out.is_empty());
    assert_eq!(done.built, 3, "{done}");
    assert_eq!(
        text(&to.join("old.json.gz")),
        std::fs::read_to_string(results.join("old.json")).unwrap()
    );
}

#[test]
fn what_an_older_build_left_in_the_site_goes() {
    let results = scratch("old-layout-results");
    let to = scratch("old-layout-to");
    put(&results, "a.json", "20261201T000000Z-a-0000");
    // An older build's plain copies, beside the gzipped ones this build writes.
    for dir in [to.clone(), to.join(SUMMARIES), to.join(HEADS)] {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), "old").unwrap();
    }
    std::fs::create_dir_all(to.join("raw/gone")).unwrap();
    build_once(&results, &to, MAX_FILE_BYTES).unwrap();
    for dir in [to.clone(), to.join(SUMMARIES), to.join(HEADS)] {
        assert!(!dir.join("a.json").exists(), "{}", dir.display());
        assert!(dir.join("a.json.gz").is_file(), "{}", dir.display());
    }
    assert!(!to.join("raw/gone").exists() && to.join("raw/a").is_dir());
}
