use std::process::ExitCode;

use clap::Parser;
use collector::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => collector::run::run(args),
        Command::Floor(args) => collector::floor::command(&args),
        Command::Compare(args) => collector::compare::command(&args),
        Command::Serve(args) => collector::remote::serve::serve(args),
        Command::Probe(args) => collector::probe::probe(args),
        Command::Spread(args) => collector::spread::command(&args),
        Command::Export(args) => collector::export::command(&args),
        Command::RelayBench(args) => {
            collector::netem::bench::command(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::CountSide(args) => {
            collector::instructions::side::command(args).map(|()| ExitCode::SUCCESS)
        }
        Command::CountCalibrate(args) => {
            collector::instructions::calibrate::command(&args).map(|()| ExitCode::SUCCESS)
        }
        Command::Reference { page } => {
            print!("{}", collector::reference::markdown(page));
            Ok(ExitCode::SUCCESS)
        }
        Command::Schema => {
            println!(
                "{}",
                serde_json::to_string_pretty(&shared::json_schema()).expect("schema is JSON")
            );
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("collector: error: {e:#}");
        ExitCode::FAILURE
    })
}
