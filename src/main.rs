//! The `plume` binary: parse the command line, dispatch, report errors. The commands
//! themselves live in the library (`plume::commands`).

use clap::Parser;
use plume::cli::{Cli, Command};
use plume::commands;

fn main() {
    let cli = Cli::parse();
    let result = match cli.into_command() {
        Command::View(a) => commands::view(a),
        Command::Run(a) => commands::run(a),
        Command::Simulate(a) => commands::simulate(a),
        Command::Bench(a) => commands::bench(a),
        Command::Render(a) => commands::render(a),
    };
    if let Err(e) = result {
        // One line for the error, then each cause its message does not already include.
        let mut shown = e.to_string();
        eprintln!("error: {shown}");
        for cause in e.chain().skip(1) {
            let text = cause.to_string();
            if !shown.contains(&text) {
                eprintln!("  caused by: {text}");
                shown.push_str(&text);
            }
        }
        std::process::exit(1);
    }
}
