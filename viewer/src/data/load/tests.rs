//! RunSet: loading, briefs, summaries, the detail view.

use super::*;
use crate::data::testdata::{sample, sample_json};

/// Each known run's `duplicate_of`, in order.
fn duplicates(set: &RunSet) -> Vec<Option<&str>> {
    set.history
        .iter()
        .map(|r| r.duplicate_of.as_deref())
        .collect()
}

#[test]
fn valid_files_load_and_bad_ones_are_reported_by_name() {
    let mut set = RunSet::default();
    assert!(set.add_text("results/good.json", &sample_json()).is_ok());
    let bad = set.add_text("results/bad.json", "{").unwrap_err();
    assert_eq!(bad.source, "results/bad.json");
    assert!(bad
        .to_string()
        .starts_with("results/bad.json: not valid JSON at line 1"));
    assert!(set.add_text("results/again.json", &sample_json()).is_ok());
    assert_eq!(set.runs.len(), 2);
    assert_eq!(set.failures.len(), 1);
    assert_ne!(set.runs[0].key, set.runs[1].key);
}

#[test]
fn evidence_errors_pass_through_with_their_paths() {
    let mut set = RunSet::default();
    let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
    v["schema_version"] = 99.into();
    let e = set.add_text("v.json", &v.to_string()).unwrap_err();
    assert_eq!(
        e.reason,
        "schema version 99 is newer than this build reads (versions 1 to 2): \
         read it with a newer collector or viewer"
    );

    let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
    v["arms"][1].as_object_mut().unwrap().remove("attempted");
    let e = set.add_text("m.json", &v.to_string()).unwrap_err();
    assert_eq!(e.reason, "at `arms[1]`: missing field `attempted`");

    let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
    v["arms"][0]["samples_us"] = serde_json::json!(["fast"]);
    let e = set.add_text("t.json", &v.to_string()).unwrap_err();
    assert!(e
        .reason
        .starts_with("at `arms[0].samples_us[0]`: invalid type"));

    let mut v: serde_json::Value = serde_json::from_str(&sample_json()).unwrap();
    v["arms"][0]["failed"] = 3.into();
    let e = set.add_text("i.json", &v.to_string()).unwrap_err();
    assert_eq!(
        e.reason,
        "at `arms[0].attempted`: succeeded (4) + failed (3) != attempted (4)"
    );
    assert_eq!(set.runs.len(), 0);
    assert_eq!(set.failures.len(), 4);
}

#[test]
fn runs_can_be_hidden_and_removed() {
    let mut set = RunSet::default();
    let a = set.add("a.json", sample());
    let b = set.add("b.json", sample());
    set.toggle_hidden(a);
    assert_eq!(set.visible().map(|r| r.key).collect::<Vec<_>>(), vec![b]);
    set.toggle_hidden(a);
    set.remove(b);
    assert_eq!(set.visible().map(|r| r.key).collect::<Vec<_>>(), vec![a]);
    set.add_failure("x", "y");
    set.dismiss_failure(5);
    set.dismiss_failure(0);
    assert!(set.failures.is_empty());
}

#[test]
fn times_are_shortened_to_seconds() {
    assert_eq!(
        short_time("2026-11-30T02:53:02.807269591Z"),
        "2026-11-30 02:53:02"
    );
    assert_eq!(short_time("yesterday"), "yesterday");
}

#[test]
fn labels_show_host_and_time() {
    let mut set = RunSet::default();
    set.add("a.json", sample());
    assert_eq!(set.runs[0].label(), "sample-host · 2026-11-30 00:00:00");
    let mut ev = sample();
    ev.environment.hostname = "h".repeat(2_000_000);
    set.add("b.json", ev);
    assert_eq!(
        set.runs[1].label(),
        format!("{}… · 2026-11-30 00:00:00", "h".repeat(120))
    );
}

#[test]
fn files_over_64_mb_are_refused_with_their_size() {
    let mut set = RunSet::default();
    let big = " ".repeat(65 << 20);
    let e = set.add_text("big.json", &big).unwrap_err();
    assert_eq!(
        e.to_string(),
        "big.json: the file is 65 MB; the viewer reads files up to 64 MB"
    );
    assert!(set.runs.is_empty());
}

#[test]
fn the_detail_view_takes_the_latest_picks_or_the_newest_run() {
    let mut set = RunSet::default();
    let mut keys = Vec::new();
    for (id, at) in [
        ("b", "02"),
        ("c", "03"),
        ("a", "01"),
        ("d", "00"),
        ("e", "00"),
    ] {
        let mut e = sample();
        e.run.id = id.into();
        e.run.started_at = format!("2026-11-30T{at}:00:00Z");
        keys.push(set.add(&format!("{id}.json"), e));
    }
    let ids = |s: &RunSet| {
        s.runs
            .iter()
            .map(|r| r.evidence.run.id.clone())
            .collect::<Vec<_>>()
    };
    // Nothing picked: the newest (c, started 03:00), not the last loaded.
    assert_eq!(ids(&set.detail(&[])), ["c"]);
    // Five picks: the first four, in pick order (the page refuses a fifth); a hidden
    // pick is left out.
    assert_eq!(ids(&set.detail(&keys)), ["b", "c", "a", "d"]);
    set.toggle_hidden(keys[3]);
    assert_eq!(ids(&set.detail(&keys)), ["b", "c", "a", "e"]);
    assert_eq!(ids(&set.detail(&[99])), ["c"]);
    // The detail set shows every run it holds (the views read it through `visible`).
    let detail = set.detail(&keys);
    let shown: Vec<u32> = detail.visible().map(|r| r.key).collect();
    assert_eq!(shown, [keys[0], keys[1], keys[2], keys[4]]);
}

#[test]
fn a_loaded_run_equals_its_own_load_only() {
    let mut set = RunSet::default();
    set.add("a.json", sample());
    set.add("a.json", sample());
    let run = set.runs[0].clone();
    assert_eq!(run, set.runs[0]);
    assert_ne!(run, set.runs[1], "the same file loaded twice is two loads");
    let mut moved = run.clone();
    moved.source = "b.json".into();
    assert_ne!(run, moved);
    let mut rekeyed = run.clone();
    rekeyed.key = set.runs[1].key;
    assert_ne!(run, rekeyed);
    let mut same_load = set.runs[1].clone();
    same_load.key = run.key;
    assert_ne!(run, same_load, "equal texts, but another load");
}

#[test]
fn the_cdf_fetches_the_picked_arms_samples_one_file_each_and_they_fill_the_summary() {
    let (a, b, history) = two_run_history();
    let mut set = RunSet::default();
    set.add_history(history, "results/history.json");
    let (ka, kb) = (set.history[0].key, set.history[1].key);
    assert_eq!(set.history[0].raw.as_deref(), Some("results/raw/a/"));
    let pick = |key, arm: &Evidence, i: usize| ArmRef {
        run_key: key,
        arm_id: arm.arms[i].id.clone(),
    };
    let picked = [pick(ka, &a, 1), pick(kb, &b, 2)];
    // Nothing to fetch before the summaries are in.
    assert!(set.raw_missing(&picked).is_empty());
    set.add_summary("results/summaries/a.json", &a.summary_line());
    set.add_summary("results/summaries/b.json", &b.summary_line());
    assert_eq!(
        set.raw_missing(&picked),
        ["results/raw/a/1.json.gz", "results/raw/b/2.json.gz"]
    );
    let before = set.loaded(ka).unwrap().clone();
    set.arrive(
        vec![(
            "results/raw/a/1.json.gz".into(),
            Ok(shared::ArmSamples::of(&a.arms[1]).to_json()),
        )],
        Arrival::ArmSamples,
    );
    let after = set.loaded(ka).unwrap();
    assert_eq!(set.samples_of(after, 1), a.arms[1].samples_us);
    assert!(set.samples_of(after, 2).is_empty(), "only that arm");
    assert!(
        after.evidence.arms[1].samples_us.is_empty(),
        "the summary stays one"
    );
    assert_eq!(&before, after);
    // The detail view of that run carries them; one of another run does not.
    let detail = set.detail_of(&[ka]);
    assert_eq!(detail.samples_of(after, 1), a.arms[1].samples_us);
    assert!(set.detail_of(&[kb]).samples.is_empty());
    assert_eq!(set.raw_missing(&picked), ["results/raw/b/2.json.gz"]);
    // Another arm's samples, or a file that does not read, are failures by URL.
    set.add_arm_samples(
        "results/raw/b/2.json.gz",
        &shared::ArmSamples::of(&b.arms[1]).to_json(),
    );
    set.add_arm_samples("results/raw/b/99.json.gz", "{}");
    let failures: Vec<String> = set.failures.iter().map(|f| f.to_string()).collect();
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert!(
        failures[0].starts_with("results/raw/b/2.json.gz: the samples are of another arm than"),
        "{failures:?}"
    );
    assert!(
        failures[1].starts_with("results/raw/b/99.json.gz: the run has "),
        "{failures:?}"
    );
    assert!(set.samples_of(set.loaded(kb).unwrap(), 2).is_empty());
    // A URL of no run's samples changes nothing.
    set.add_arm_samples("results/raw/zzz/1.json.gz", "{}");
    assert_eq!(set.failures.len(), 2);
}

#[test]
fn a_run_whose_site_left_its_samples_out_is_named_and_never_fetched() {
    let (a, b, _) = two_run_history();
    let mut h = shared::HistoryBuilder::default();
    h.run("a.json.gz", &a);
    h.without_raw();
    h.run("b.json.gz", &b);
    let mut set = RunSet::default();
    set.add_history(h.finish(), "results/history.json");
    let (ka, kb) = (set.history[0].key, set.history[1].key);
    assert_eq!(set.history[0].raw, None);
    assert_eq!(set.history[1].raw.as_deref(), Some("results/raw/b/"));
    set.add_summary("results/summaries/a.json.gz", &a.summary_line());
    set.add_summary("results/summaries/b.json.gz", &b.summary_line());
    let picked = [
        ArmRef {
            run_key: ka,
            arm_id: a.arms[1].id.clone(),
        },
        ArmRef {
            run_key: kb,
            arm_id: b.arms[1].id.clone(),
        },
    ];
    assert_eq!(set.raw_missing(&picked), ["results/raw/b/1.json.gz"]);
    let named: Vec<u32> = set.without_raw(&[ka, kb]).iter().map(|r| r.key).collect();
    assert_eq!(named, [ka]);
    // A file loaded whole has its samples: nothing to say of it.
    let kc = set.add("mine.json", a.clone());
    assert!(set.without_raw(&[kc]).is_empty());
    assert!(set
        .raw_missing(&[ArmRef {
            run_key: kc,
            arm_id: a.arms[1].id.clone()
        }])
        .is_empty());
}

#[test]
fn the_same_run_loaded_twice_is_flagged() {
    let mut set = RunSet::default();
    set.add("results/a.json", sample());
    let mut other = sample();
    other.run.id = "20261130T000001Z-sample-0001".into();
    set.add("results/b.json", other);
    set.add("my-copy.json", sample());
    assert_eq!(duplicates(&set), [None, None, Some("results/a.json")]);
}

/// Two runs of a site's history: `a` (older) and `b` (newer), `b`'s second arm at
/// p50 420 µs, CI [410, 430].
fn two_run_history() -> (Evidence, Evidence, History) {
    let mut a = sample();
    a.run.id = "a".into();
    let mut b = sample();
    b.run.id = "b".into();
    b.run.started_at = "2026-11-30T01:00:00Z".into();
    b.arms[1].latency_us.as_mut().unwrap().p50 = 420.0;
    b.arms[1].p50_ci95_us = Some([410.0, 430.0]);
    let mut h = shared::HistoryBuilder::default();
    h.run("a.json", &a);
    h.run("b.json", &b);
    (a, b, h.finish())
}

#[test]
fn a_history_lists_runs_in_brief_until_their_summaries_load() {
    let (a, b, history) = two_run_history();
    let mut set = RunSet::default();
    set.add_history(history, "results/history.json");
    assert!(set.runs.is_empty(), "nothing loaded but the briefs");
    let sources: Vec<(&str, Option<&str>)> = set
        .history
        .iter()
        .map(|r| (r.source.as_str(), r.summary.as_deref()))
        .collect();
    assert_eq!(
        sources,
        [
            ("results/a.json", Some("results/summaries/a.json")),
            ("results/b.json", Some("results/summaries/b.json")),
        ]
    );
    let (ka, kb) = (set.history[0].key, set.history[1].key);
    // The detail view starts with the newest run, which waits for its summary.
    assert_eq!(set.detail_keys(&[]), [kb]);
    assert_eq!(set.missing(&[kb]), ["results/summaries/b.json"]);
    assert!(set.detail(&[]).runs.is_empty());
    // A summary of another run is refused, by name.
    set.add_summary("results/summaries/a.json", &b.summary_line());
    assert_eq!(
        set.failures[0].to_string(),
        "results/summaries/a.json: the summary is of run b, not of a"
    );
    assert!(set.runs.is_empty());
    // Hidden before its summary arrives, a run stays hidden once loaded.
    set.toggle_hidden(ka);
    set.add_summary("results/summaries/a.json", &a.summary_line());
    set.add_summary("results/summaries/b.json", &b.summary_line());
    assert_eq!(set.runs.len(), 2);
    assert!(set.loaded(ka).is_some() && set.loaded(kb).is_some());
    assert_eq!(set.visible().map(|r| r.key).collect::<Vec<_>>(), [kb]);
    assert_eq!(
        set.loaded(kb).unwrap().evidence.arms[1]
            .latency_us
            .unwrap()
            .p50,
        420.0
    );
    assert!(set.missing(&[ka, kb]).is_empty());
    // A summary for no listed run changes nothing.
    set.add_summary("results/summaries/zzz.json", &a.summary_line());
    assert_eq!((set.runs.len(), set.failures.len()), (2, 1));
}

#[test]
fn a_history_with_a_run_listed_twice_flags_the_second() {
    let (a, _, _) = two_run_history();
    let mut h = shared::HistoryBuilder::default();
    h.run("a.json", &a);
    h.run("copy-of-a.json", &a);
    let mut set = RunSet::default();
    set.add("local.json", sample());
    set.add_history(h.finish(), "results/history.json");
    assert_eq!(duplicates(&set), [None, None, Some("results/a.json")]);
    // An unsafe file name becomes a failure, not a fetch.
    let mut h = shared::HistoryBuilder::default();
    h.run("//elsewhere.example/x.json", &a);
    set.add_history(h.finish(), "results/history.json");
    assert_eq!(set.history.len(), 3);
    assert!(
        set.failures[0].source.contains("elsewhere.example"),
        "{:?}",
        set.failures
    );
}

#[test]
fn briefs_give_the_trend_and_the_pickers_without_any_summary() {
    let (_, b, history) = two_run_history();
    let mut set = RunSet::default();
    set.add_history(history, "results/history.json");
    let arm = &b.arms[1].id;
    let lines = crate::data::trend::trend(&set, arm, &[]);
    let points: Vec<(&str, f64, Option<[f64; 2]>)> = lines[0]
        .points
        .iter()
        .map(|p| (p.run_id.as_str(), p.p50, p.ci))
        .collect();
    let a_p50 = sample().arms[1].latency_us.unwrap().p50;
    assert_eq!(
        points,
        [
            ("a", a_p50, sample().arms[1].p50_ci95_us),
            ("b", 420.0, Some([410.0, 430.0]))
        ]
    );
    let ids = crate::data::derive::arm_ids(&set, &crate::data::filter::ArmFilter::default());
    let want: Vec<String> = sample().arms.iter().map(|a| a.id.clone()).collect();
    assert_eq!(ids, want);
    assert!(!crate::data::filter::facets_present(&set).is_empty());
    assert!(set.runs.is_empty());
    // A file loaded beside the history has its own arm keys: each id is still listed once,
    // and the filters apply to keys as to arms.
    set.add("local.json", sample());
    let mut filter = crate::data::filter::ArmFilter::default();
    assert_eq!(crate::data::derive::arm_ids(&set, &filter), want);
    filter.toggle(crate::data::filter::Facet::Mode(shared::Mode::Resumed));
    assert_eq!(
        crate::data::derive::arm_ids(&set, &filter),
        ["tcp-connect", "tls13-full-ecdsa-p256-x25519"]
    );
}

#[test]
fn fetched_texts_arrive_as_files_summaries_or_arm_samples() {
    let (a, b, history) = two_run_history();
    let mut set = RunSet::default();
    set.add_history(history, "results/history.json");
    let ok = |url: &str, text: String| (url.to_string(), Ok(text));
    set.arrive(
        vec![
            ok("results/summaries/b.json", b.summary_line()),
            ("results/summaries/a.json".into(), Err("HTTP 404".into())),
        ],
        Arrival::Summary,
    );
    assert_eq!(set.runs.len(), 1);
    assert!(set.runs[0].evidence.summary);
    assert_eq!(
        set.failures[0].to_string(),
        "results/summaries/a.json: HTTP 404"
    );
    set.arrive(
        vec![ok(
            "results/raw/b/1.json.gz",
            shared::ArmSamples::of(&b.arms[1]).to_json(),
        )],
        Arrival::ArmSamples,
    );
    assert_eq!(set.samples_of(&set.runs[0], 1), b.arms[1].samples_us);
    set.arrive(vec![ok("mine.json", a.to_json())], Arrival::File);
    assert_eq!((set.runs.len(), set.history.len()), (2, 3));
    assert_eq!(set.history[2].source, "mine.json");
}

#[test]
fn a_known_run_equals_itself_and_differs_when_anything_shown_changes() {
    let (_, _, history) = two_run_history();
    let mut set = RunSet::default();
    set.add_history(history, "results/history.json");
    let run = set.history[0].clone();
    assert_eq!(run, set.history[0]);
    assert_ne!(run, set.history[1], "another run");
    let mut hidden = run.clone();
    hidden.hidden = true;
    assert_ne!(run, hidden);
    let mut copied = run.clone();
    copied.brief = Rc::new((*run.brief).clone());
    assert_ne!(run, copied, "the same brief loaded again is another load");
    let mut moved = run.clone();
    moved.source = "elsewhere.json".into();
    assert_ne!(run, moved);
    let mut no_summary = run.clone();
    no_summary.summary = None;
    assert_ne!(run, no_summary);
    let mut dup = run.clone();
    dup.duplicate_of = Some("results/b.json".into());
    assert_ne!(run, dup);
    let mut rekeyed = run.clone();
    rekeyed.key += 100;
    assert_ne!(run, rekeyed);
}
