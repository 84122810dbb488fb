//! "How this was measured": what the sentences and charts above rest on, in a fold, so
//! the page's sentences can say what was measured and how sure, in words.

use yew::prelude::*;

/// The fold, closed by default.
pub fn how_measured() -> Html {
    html! {
        <details id="how-measured" class="method">
            <summary>{"How this was measured"}</summary>
            <ul>
                <li>{"An arm is one kind of connection (TCP connect; TLS 1.3 or 1.2, full or resumed, per certificate and key-exchange group), measured many times on this machine's loopback, one connection at a time. The timer runs from before the client's socket is created until the handshake is complete on the client."}</li>
                <li>{"Arms are measured in interleaved rounds, in an order shuffled every round, so a slow minute of the machine hits every arm alike."}</li>
                <li>{"p50, p95 and p99 are nearest-rank percentiles of the timed connections. A 95% interval is a bootstrap over whole rounds (drift within the run widens it); with fewer than five rounds there is no interval, and the page says \"no CI\"."}</li>
                <li>{"A speedup is the full handshake's p50 divided by the resumed one's. A resumed arm in which any connection did not resume is an error, never a speedup."}</li>
                <li>{"Two runs are compared only where they were measured alike: the setup (plan, samples and rounds, network path, host, CPU, kernel, library and build) is recorded with each run, and where it differs the arms it moves get no verdict. Slower or faster is said only when the whole range of ratios both runs' intervals allow lies above or below 1× (the rule of collector compare)."}</li>
                <li>{"Other stacks' servers run in processes of their own (Python with no pinned group, nginx, Caddy, HAProxy, openssl s_server, gnutls-serv), while rustls's server runs in the collector's process: the stack ranking says, per protocol and certificate, what else differs between its rows. The percentiles of rustls arms come from connections without phase recording; the traced ones are kept apart."}</li>
            </ul>
        </details>
    }
}
