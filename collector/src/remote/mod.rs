//! Client and server on two hosts: `collector serve` runs the server side of every arm
//! and answers, per connection, what its end saw; `collector run --target` runs the
//! client side against it.

mod args;
pub mod client;
mod secure;
pub mod serve;
mod session;
mod wire;
