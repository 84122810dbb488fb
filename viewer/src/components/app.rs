//! The page: state (loaded runs, filters, picks, sort) and the layout of the sections.

use std::rc::Rc;

use yew::prelude::*;

use super::cdf::{cdf_section, CdfProps};
use super::changes::{changes_section, ChangesProps};
use super::controls::{controls, ControlsProps};
use super::findings::{findings_section, FindingsProps};
use super::headline::{headline, run_picker, RunPickerProps};
use super::loader::{fetch_urls, initial_load, Fetched, Loader, Start};
use super::permalink::{self, use_fragment, use_permalink, Targets};
use super::runs::{failures, FailuresProps, RunColumn, RunList};
use super::table::{arm_table, TableProps};
use super::trend::Trend;
use super::verdicts::Verdicts;
use crate::data::derive::{arm_ids, default_cdf_pick, ArmRef};
use crate::data::filter::{facets_present, toggle, ArmFilter, Facet};
use crate::data::index::HISTORY_URL;
use crate::data::load::{Arrival, RunSet};
use crate::data::permalink::Permalink;
use crate::data::pick::{default_pair, focus};
use crate::data::table::{arm_rows, sort_rows, SortKey};

/// Changes to the set of loaded runs.
enum RunsAction {
    /// The start-up load: a site's history and files fetched whole.
    Started(Start),
    /// Texts fetched or read later: files the user added, summaries of runs a view
    /// shows, whole files a view needs the samples of.
    Fetched(Vec<Fetched>, Arrival),
    ToggleHidden(u32),
    Remove(u32),
    Dismiss(usize),
}

#[derive(Default, PartialEq)]
struct Runs {
    set: Rc<RunSet>,
    /// False until the start-up load finished.
    ready: bool,
}

impl Reducible for Runs {
    type Action = RunsAction;

    fn reduce(self: Rc<Self>, action: RunsAction) -> Rc<Self> {
        let mut set = (*self.set).clone();
        let mut ready = self.ready;
        match action {
            RunsAction::Started(Start {
                history,
                files,
                head,
            }) => {
                ready = true;
                if let Some(history) = history {
                    set.add_history(history, HISTORY_URL);
                }
                set.arrive(files, Arrival::File);
                // A head is a head start, not a file of its own: one that could not be
                // fetched is passed over (the summary that follows says what went wrong).
                if let Some((url, Ok(text))) = head {
                    set.add_head(&url, &text);
                }
            }
            RunsAction::Fetched(items, how) => {
                ready |= how == Arrival::File;
                set.arrive(items, how);
            }
            RunsAction::ToggleHidden(key) => set.toggle_hidden(key),
            RunsAction::Remove(key) => set.remove(key),
            RunsAction::Dismiss(i) => set.dismiss_failure(i),
        }
        Rc::new(Runs {
            set: Rc::new(set),
            ready,
        })
    }
}

/// Fetches each URL of `wanted` once (one asked for before is not asked again) and hands
/// the texts to the run set as `how` says.
#[hook]
fn use_fetch_once(runs: UseReducerHandle<Runs>, wanted: Vec<String>, how: Arrival) {
    let requested = use_mut_ref(Vec::<String>::new);
    use_effect_with(wanted, move |wanted| {
        let new: Vec<String> = wanted
            .iter()
            .filter(|s| !requested.borrow().contains(s))
            .cloned()
            .collect();
        if !new.is_empty() {
            requested.borrow_mut().extend(new.iter().cloned());
            fetch_urls(
                new,
                Callback::from(move |items| runs.dispatch(RunsAction::Fetched(items, how))),
            );
        }
    });
}

#[component]
pub fn App() -> Html {
    let runs = use_reducer(Runs::default);
    let link = use_memo((), |_| permalink::read());
    let filter = use_state(ArmFilter::default);
    let scale = use_state(|| link.scale.unwrap_or_default());
    let sort = use_state(|| link.sort.unwrap_or_default());
    // None: the default pick (first run's full and resumed arm) until the user picks.
    let picked = use_state(|| None::<Vec<ArmRef>>);
    let trend_arm = use_state(|| None::<String>);
    let hidden_hosts = use_state(Vec::<String>::new);
    // Runs picked for the detail view (none: the run shown), and whether the CDF is open.
    let detail_picked = use_state(Vec::<u32>::new);
    let cdf_open = use_state(|| false);
    // The run the page follows, once picked (none: the landing run), and the pair
    // "what changed" compares, once picked (none: the default pair).
    let view = use_state(|| None::<u32>);
    let cmp = use_state(|| None::<(u32, u32)>);

    {
        let runs = runs.clone();
        use_effect_with((), move |_| {
            initial_load(Callback::from(move |start| {
                runs.dispatch(RunsAction::Started(start))
            }));
        });
    }

    let set = runs.set.clone();
    let focus_key = focus(&set, *view).map(|r| r.key);
    let detail_keys: Vec<u32> = set.detail_keys_or(&detail_picked, focus_key);
    let detail = Rc::new(set.detail_of(&detail_keys));
    let pair = (*cmp).or_else(|| focus_key.and_then(|k| default_pair(&set, k)));
    // Summaries the views wait for (runs known by their briefs until shown): the run
    // shown first, then the detail runs.
    let mut wanted_keys: Vec<u32> = focus_key.into_iter().collect();
    wanted_keys.extend(detail_keys.iter().filter(|k| Some(**k) != focus_key));
    let waiting = set.missing(&wanted_keys);
    use_fetch_once(runs.clone(), waiting.clone(), Arrival::Summary);
    let focus_run = focus_key.and_then(|k| set.loaded(k)).cloned();
    let focus_head = focus_key.and_then(|k| set.headline_of(k)).cloned();
    // The first view after the start-up load is the headline alone (title, run shown,
    // cards, the two charts): small, so it is laid out, drawn and painted at once. The
    // rest of the page follows once the browser has painted it.
    let rest = use_state(|| false);
    {
        let rest = rest.clone();
        use_effect_with(runs.ready, move |ready| {
            if *ready {
                after_paint(move || rest.set(true));
            }
        });
    }
    let all = runs.ready && *rest;
    let on_detail = {
        let detail_picked = detail_picked.clone();
        let current = detail_keys.clone();
        Callback::from(move |k: u32| {
            let mut next = current.clone();
            // A fifth run is refused (its box is disabled), never swapped for another.
            if next.contains(&k) || next.len() < crate::data::load::MAX_DETAIL {
                toggle(&mut next, k);
                detail_picked.set(next);
            }
        })
    };
    let on_view = {
        let view = view.clone();
        let detail_picked = detail_picked.clone();
        Callback::from(move |k: u32| {
            view.set(Some(k));
            // The detail view follows the run shown.
            detail_picked.set(Vec::new());
        })
    };
    let on_pair = {
        let cmp = cmp.clone();
        Callback::from(move |p: (u32, u32)| cmp.set(Some(p)))
    };
    let on_cdf_open = {
        let cdf_open = cdf_open.clone();
        Callback::from(move |open: bool| cdf_open.set(open))
    };
    let on_loaded = {
        let runs = runs.clone();
        Callback::from(move |items| runs.dispatch(RunsAction::Fetched(items, Arrival::File)))
    };
    let on_toggle_run = {
        let runs = runs.clone();
        Callback::from(move |k| runs.dispatch(RunsAction::ToggleHidden(k)))
    };
    let on_remove = {
        let runs = runs.clone();
        Callback::from(move |k| runs.dispatch(RunsAction::Remove(k)))
    };
    let on_dismiss = {
        let runs = runs.clone();
        Callback::from(move |i| runs.dispatch(RunsAction::Dismiss(i)))
    };
    let on_facet = {
        let filter = filter.clone();
        Callback::from(move |f: Facet| {
            let mut next = (*filter).clone();
            next.toggle(f);
            filter.set(next);
        })
    };
    let on_scale = {
        let scale = scale.clone();
        Callback::from(move |s| scale.set(s))
    };
    let on_sort = {
        let sort = sort.clone();
        Callback::from(move |k: SortKey| sort.set(sort.clicked(k)))
    };
    let current_pick = (*picked)
        .clone()
        .unwrap_or_else(|| default_cdf_pick(&detail));
    let on_pick = {
        let picked = picked.clone();
        let current = current_pick.clone();
        Callback::from(move |r: ArmRef| {
            let mut next = current.clone();
            toggle(&mut next, r);
            picked.set(Some(next));
        })
    };

    let ids = arm_ids(&set, &filter);
    let chosen = (*trend_arm)
        .clone()
        .filter(|a| ids.contains(a))
        .or_else(|| ids.first().cloned());
    // The CDF and the run comparison's bootstrap need raw samples: one small file per
    // picked arm, and per detail run the compared arm's, of the runs loaded as summaries,
    // only while the CDF is open.
    let wanted = match *cdf_open {
        true => {
            let mut arms = current_pick.clone();
            arms.extend(chosen.iter().flat_map(|arm| {
                detail.runs.iter().map(|r| ArmRef {
                    run_key: r.key,
                    arm_id: arm.clone(),
                })
            }));
            detail.raw_missing(&arms)
        }
        false => Vec::new(),
    };
    use_fetch_once(runs.clone(), wanted, Arrival::ArmSamples);
    let on_arm = {
        let trend_arm = trend_arm.clone();
        Callback::from(move |a| trend_arm.set(Some(a)))
    };
    let on_host = {
        let hidden_hosts = hidden_hosts.clone();
        Callback::from(move |h: String| {
            let mut next = (*hidden_hosts).clone();
            toggle(&mut next, h);
            hidden_hosts.set(next);
        })
    };
    let picked_detail: Vec<u32> = match detail_picked.is_empty() {
        true => Vec::new(),
        false => detail_keys.clone(),
    };
    let now = Permalink::of(
        &set,
        &filter,
        *scale,
        *sort,
        &picked_detail,
        (*picked).as_deref(),
        (*trend_arm).as_deref(),
    )
    .with_runs(&set, *view, *cmp)
    .to_query();
    let targets = Targets {
        filter: filter.clone(),
        picked: picked.clone(),
        arm: trend_arm.clone(),
        hide: on_toggle_run.clone(),
        detail: detail_picked.clone(),
        view: view.clone(),
        cmp: cmp.clone(),
    };
    use_permalink(link, set.clone(), runs.ready, targets, now);
    use_fragment();
    let mut rows = arm_rows(&detail, &filter);
    sort_rows(&mut rows, *sort);

    let rest_of_page = if all {
        html! {
            <>
                if let Some(run) = &focus_run {
                    {findings_section(&FindingsProps { run: run.clone() })}
                }
                <section id="runs-section">
                    <h2>{"Runs"}</h2>
                    <RunList runs={set.clone()} on_toggle={on_toggle_run} {on_remove} ready={runs.ready}
                             detail={detail_keys.clone()} {on_detail} />
                    <Loader {on_loaded} />
                </section>
                if set.shown().nth(1).is_some() {
                    {changes_section(&ChangesProps { runs: set.clone(), pair, on_pair })}
                }
                if set.shown().next().is_none() && !set.history.is_empty() {
                    <p class="empty" id="all-hidden">{"Every run is hidden: \"show\" on a run in the list above brings its charts and table back."}</p>
                }
                if set.shown().next().is_some() {
                    {controls(&ControlsProps { facets: facets_present(&set), filter: (*filter).clone(),
                                              on_toggle: on_facet, scale: *scale, on_scale })}
                    <Trend runs={set.clone()} {ids} chosen={chosen.clone()} {on_arm}
                           hidden_hosts={(*hidden_hosts).clone()} {on_host} />
                    <section id="detail-section">
                        <h2>{"Detail"}</h2>
                        <p class="hint">{"Every chart of the run shown, or of the runs ticked under \"detail\" in the run list (up to four), side by side."}</p>
                        if !waiting.is_empty() {
                            <p class="hint detail-loading" role="status">
                                {if waiting.iter().any(|u| set.failures.iter().any(|f| f.source == *u)) {
                                    "A run's summary could not be loaded: see the errors above."
                                } else {
                                    "Loading the runs' summaries…"
                                }}
                            </p>
                        }
                        <div id="run-columns" class="columns">
                            for run in detail.runs.iter() {
                                <RunColumn key={run.key} run={run.clone()} filter={(*filter).clone()} scale={*scale} />
                            }
                        </div>
                        if let Some(arm) = chosen.as_deref() {
                            <Verdicts runs={detail.clone()} arm={AttrValue::from(arm.to_string())} />
                        }
                    </section>
                    {cdf_section(&CdfProps { runs: detail.clone(), filter: (*filter).clone(), picked: current_pick,
                                            on_toggle: on_pick, scale: *scale, open: *cdf_open, on_open: on_cdf_open })}
                    {arm_table(&TableProps { rows, sort: *sort, on_sort })}
                    }
            </>
        }
    } else {
        Html::default()
    };
    html! {
        <main>
            <a class="skip" href="#head-charts">{"Skip to the charts"}</a>
            <a class="skip" href="#table-section">{"Skip to the table of every arm"}</a>
            <header class="top">
                <h1>{"Handshake Lab"}</h1>
                <p class="tagline">{super::termed(crate::data::head_html::TAGLINE, &mut Vec::new())}</p>
                if runs.ready && !set.history.is_empty() {
                    {run_picker(&RunPickerProps { runs: set.clone(), focus: focus_key, on_pick: on_view })}
                }
            </header>
            if all && set.shown().next().is_some() {
                {section_nav(set.shown().nth(1).is_some())}
            }
            {failures(&FailuresProps { failures: set.failures.clone(), on_dismiss })}
            if focus_key.is_some() {
                {headline(focus_head, *scale)}
            }
            if all {
                {rest_of_page}
            }
        </main>
    }
}

/// The page's sections, in page order: (anchor, name). "What changed" needs two runs.
pub const SECTIONS: [(&str, &str); 9] = [
    ("headline", "Answer"),
    ("findings", "Findings"),
    ("runs-section", "Runs"),
    ("changes-section", "What changed"),
    ("trend-section", "Trend"),
    ("detail-section", "Detail"),
    ("cdf-section", "Distribution"),
    ("table-section", "Every arm"),
    ("glossary", "Glossary"),
];

/// A bar of links to the page's sections that stays at the top as the page scrolls
/// (index.html's `nav.sections`): the page runs to dozens of screens.
fn section_nav(two_runs: bool) -> Html {
    html! {
        <nav class="sections" aria-label="sections of the page">
            for (id, name) in SECTIONS.iter().filter(|(id, _)| two_runs || *id != "changes-section") {
                <a href={format!("#{id}")}>{*name}</a>
            }
        </nav>
    }
}

/// Calls `f` in a task of its own, after the one that is running: the browser paints
/// what is on the page before it (when a frame is due, as it is after a first view).
fn after_paint(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return f();
    };
    let task = wasm_bindgen::closure::Closure::once_into_js(f);
    let _ = window.set_timeout_with_callback(task.unchecked_ref());
}
