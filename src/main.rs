//! The `plume` binary: parse the command line, dispatch, report errors. The commands
//! themselves live in the library (`plume::commands`).

use clap::Parser;
use plume::cli::{Cli, Command};
use plume::commands;

fn main() {
    // `--backend auto`'s GPU probe, in a process of its own (see `backend::auto_choice`).
    if let Some(code) = plume::backend::probe_child() {
        std::process::exit(code);
    }
    plume::signals::install_abort_handler();
    let cli = Cli::parse();
    // (a misspelt experiment switch, or a value it does not take: refused before any work,
    // not a run with the defaults)
    if let Some(problem) = plume::environment_problem() {
        eprintln!("error: {problem}");
        std::process::exit(1);
    }
    let command = cli.into_command();
    let threads = match &command {
        Command::Bench(a) => a.threads.map(|t| t as usize),
        _ => None,
    };
    if let Err(e) = plume::signals::start_workers(threads) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let result = match command {
        Command::View(a) => commands::view(a),
        Command::Run(a) => commands::run(a),
        Command::Simulate(a) => commands::simulate(a),
        Command::Bench(a) => commands::bench(a),
        Command::Render(a) => plume::render_command::render(a),
        Command::Wedge(a) => plume::wedge_command::wedge(a),
        Command::Free(a) => plume::wedge_command::free(a),
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
