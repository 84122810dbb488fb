//! The end-to-end tests, one binary: each module was a test target of its own, each
//! linking the collector's dependencies again. Browser tests share their sites
//! ([`e2e::shared_fixture`]) and take turns at Chromium ([`e2e::webdriver::one_browser_at_a_time`]).

mod collector_run;
mod compare;
mod docs;
mod exit_codes;
mod flights;
mod floor_and_capacity;
mod hostile;
mod hostile_browser;
mod instructions;
mod keepalive;
mod peers;
mod phases;
mod placement;
mod probe;
mod probe_caddy;
mod probe_nginx;
mod rtt;
mod runs_and_files;
mod schema_conformance;
mod servers;
mod site_browser;
mod site_controls;
mod site_failures;
mod site_glance;
mod site_share;
mod site_trend;
mod sockets;
mod two_hosts;
