use shared::{CertKind, Mode, Protocol};

use super::*;
use crate::data::testdata::{sample, with_peers};

/// Two runs, the sample (a) and a peer run (b) whose id has every separator the query
/// uses; loaded in the given order, so their keys differ between pages.
fn runs(b_first: bool) -> (RunSet, u32, u32) {
    let mut set = RunSet::default();
    let mut ev = with_peers();
    ev.run.id = "run b, with: odd&chars=é %".into();
    let mut b = 0;
    if b_first {
        b = set.add("results/b.json", ev.clone());
    }
    let a = set.add("results/a.json", sample());
    if !b_first {
        b = set.add("results/b.json", ev);
    }
    (set, a, b)
}

fn two_runs() -> (RunSet, u32, u32) {
    runs(false)
}

#[test]
fn a_page_state_round_trips_through_the_query() {
    let (mut set, a, b) = two_runs();
    set.toggle_hidden(a);
    let mut filter = ArmFilter::default();
    filter.toggle(Facet::Protocol(Protocol::Tcp));
    filter.toggle(Facet::Cert(CertKind::EcdsaP256));
    let sort = Sort {
        key: SortKey::P99,
        descending: true,
    };
    let picks = vec![
        ArmRef {
            run_key: b,
            arm_id: "tls13-full-ecdsa-p256-x25519".into(),
        },
        ArmRef {
            run_key: a,
            arm_id: "tcp-connect".into(),
        },
    ];
    let arm = "tls13-resumed-ticket-ecdsa-p256-x25519";
    let link = Permalink::of(
        &set,
        &filter,
        Scale::Log,
        sort,
        &[b, a],
        Some(&picks),
        Some(arm),
    )
    .with_runs(&set, Some(b), Some((a, b)));
    let query = link.to_query();
    // Written out: what a shared link carries.
    assert_eq!(
        query,
        "view=run%20b%2C%20with%3A%20odd%26chars%3D%C3%A9%20%25\
         &cmp=20261130T000000Z-sample-0000,run%20b%2C%20with%3A%20odd%26chars%3D%C3%A9%20%25\
         &scale=log&sort=-p99&off=protocol:tcp,cert:ecdsa-p256\
         &hide=20261130T000000Z-sample-0000\
         &detail=run%20b%2C%20with%3A%20odd%26chars%3D%C3%A9%20%25,20261130T000000Z-sample-0000\
         &pick=run%20b%2C%20with%3A%20odd%26chars%3D%C3%A9%20%25:tls13-full-ecdsa-p256-x25519,\
         20261130T000000Z-sample-0000:tcp-connect\
         &arm=tls13-resumed-ticket-ecdsa-p256-x25519"
    );

    // A fresh page loads the same files in another order (other keys) and reads it back.
    let (fresh, a2, b2) = runs(true);
    assert_eq!((a, b, a2, b2), (0, 1, 1, 0));
    let back = Permalink::parse(&format!("?{query}"));
    assert_eq!(back, link);
    assert_eq!(back.arm(&fresh).as_deref(), Some(arm));
    assert_eq!(back.filter(&fresh), filter);
    assert_eq!(back.hidden_keys(&fresh), [a2]);
    assert_eq!(back.detail_keys(&fresh), [b2, a2]);
    let moved = |key: u32| if key == a { a2 } else { b2 };
    let fresh_picks: Vec<ArmRef> = picks
        .iter()
        .map(|p| ArmRef {
            run_key: moved(p.run_key),
            arm_id: p.arm_id.clone(),
        })
        .collect();
    assert_eq!(back.picks(&fresh), Some(fresh_picks));
    assert_eq!(back.scale, Some(Scale::Log));
    assert_eq!(back.view_key(&fresh), Some(b2));
    assert_eq!(back.cmp_keys(&fresh), Some((a2, b2)));
    assert_eq!(back.sort, Some(sort));
}

#[test]
fn the_default_state_is_an_empty_query_and_an_empty_pick_is_kept() {
    let (set, _, _) = two_runs();
    let f = ArmFilter::default();
    let link = Permalink::of(&set, &f, Scale::Linear, Sort::default(), &[], None, None);
    assert_eq!(link.to_query(), "");
    assert_eq!(Permalink::parse(""), Permalink::default());
    // Every arm unticked in the CDF is a state of its own, not the default pick.
    let none = Permalink::of(
        &set,
        &f,
        Scale::Linear,
        Sort::default(),
        &[],
        Some(&[]),
        None,
    );
    assert_eq!(none.to_query(), "pick=");
    assert_eq!(Permalink::parse("pick=").picks(&set), Some(Vec::new()));
}

#[test]
fn unknown_or_malformed_state_is_ignored() {
    let (set, a, _) = two_runs();
    for query in [
        "scale=sideways&sort=colour&sort=--p50&off=nodimension,cert:%zz,%C3:x",
        "hide=%E9,no-such-run&pick=no-colon,%:x,nosuchrun:tcp-connect,:tcp-connect&arm=%&detail=%,nosuchrun,",
        "&&==&=&%%%&run=results/a.json&x=1&scale&sort&off&hide",
        "?arm=%2&scale=LINEAR&sort=P50&off=cert:rsa2048:extra,cert%3Aecdsa-p256",
        "arm=tcp%2Dconnect&hide=20261130t000000z-sample-0000&off=Mode:resumed",
        "\u{0}\u{feff}%F0%9F=é",
    ] {
        let link = Permalink::parse(query);
        assert_eq!(link.scale, None, "{query}");
        assert_eq!(link.sort, None, "{query}");
        assert_eq!(link.arm(&set), None, "{query}");
        assert_eq!(link.filter(&set), ArmFilter::default(), "{query}");
        assert!(link.hidden_keys(&set).is_empty(), "{query}");
        assert!(link.detail_keys(&set).is_empty(), "{query}");
        assert_eq!(link.picks(&set), None, "{query}");
    }
    // A well-formed part next to a broken one still applies.
    let link = Permalink::parse("hide=%zz,20261130T000000Z-sample-0000&off=mode:resumed,:");
    assert_eq!(link.hidden_keys(&set), [a]);
    let mut resumed_off = ArmFilter::default();
    resumed_off.toggle(Facet::Mode(Mode::Resumed));
    assert_eq!(link.filter(&set), resumed_off);
}

#[test]
fn other_parameters_stay_in_the_url() {
    assert_eq!(
        merge_query(
            "?run=results/x.json&scale=log&pick=a:b&utm=1",
            "scale=linear"
        ),
        "run=results/x.json&utm=1&scale=linear"
    );
    assert_eq!(merge_query("?scale=linear", ""), "");
    assert_eq!(merge_query("", "sort=p50"), "sort=p50");
}

#[test]
fn names_are_percent_encoded() {
    assert_eq!(encode("a-b_c.d09"), "a-b_c.d09");
    assert_eq!(
        encode("a b,c:d&e=f/é~"),
        "a%20b%2Cc%3Ad%26e%3Df%2F%C3%A9%7E"
    );
}
