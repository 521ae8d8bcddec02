//! Tests of the simulation thread (`sim_thread.rs`): the solver's priority, and what the
//! thread publishes.

use super::*;

/// The solver's threads run at a lower priority than the rest: a thread that calls
/// `lower_priority` is SIM_NICE levels below the one that started it (or at 19), and
/// the starting thread keeps its own.
#[test]
fn solver_threads_run_at_a_lower_priority() {
    // SAFETY: getpriority on the calling thread.
    let before = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let inside = std::thread::spawn(|| {
        lower_priority();
        // SAFETY: as above.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    })
    .join()
    .expect("the thread ran");
    assert_eq!(inside, (before + SIM_NICE).min(19));
    // SAFETY: as above.
    assert_eq!(unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }, before);
}

/// The viewer's simulation thread runs the solver on workers at that lower priority
/// (read back from /proc: each worker's nice value).
#[test]
fn the_viewers_solver_workers_run_at_a_lower_priority() {
    // SAFETY: getpriority on the calling thread.
    let before = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let mut scene = Scene::preset("plume").expect("the default scene");
    scene.grid.dims = [8, 8, 8];
    let sim = SimThread::spawn(scene, crate::backend::Backend::Cpu, true, || {})
        .expect("the thread starts");
    // The workers start with the pool; give them a moment to be listed and to lower
    // their priority (a worker is listed, by name, as it starts, a moment before its
    // first act lowers it: under load the test once read it in between).
    let lowered = (before + SIM_NICE).min(19);
    let mut nices = vec![];
    for _ in 0..250 {
        nices = worker_nices();
        if !nices.is_empty() && nices.iter().all(|&n| n == lowered) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(sim.finish().is_none());
    assert!(
        !nices.is_empty(),
        "no plume-sim-N thread found in /proc/self/task"
    );
    assert!(
        nices.iter().all(|&n| n == lowered),
        "{nices:?} against {before} + {SIM_NICE}"
    );
}

/// Steps are published only once the window has taken the last snapshot (a snapshot
/// nobody draws is not copied), while a command is published at once, replacing an
/// untaken one.
#[test]
fn steps_wait_for_the_window_and_commands_do_not() {
    let mut scene = Scene::preset("plume").expect("the default scene");
    scene.grid.dims = [8, 8, 8];
    let sim = SimThread::spawn(scene, crate::backend::Backend::Cpu, true, || {})
        .expect("the thread starts");
    let wait = |ms| std::thread::sleep(Duration::from_millis(ms));
    let newest = |sim: &SimThread| -> Snapshot {
        for _ in 0..200 {
            if let Some(s) = sim.take_latest() {
                return s;
            }
            wait(10);
        }
        panic!("no snapshot in 2 s");
    };
    // Left untaken while the solver steps (about 18 steps in 300 ms at real-time pace):
    // still one of the first two (the start, and the writer's first status), of step 0
    // or 1.
    wait(300);
    let first = newest(&sim);
    assert!(
        first.serial <= 2 && first.frame.step <= 1,
        "{}",
        first.serial
    );
    // Taken: the next step publishes the next one, of the step the solver is at.
    let second = newest(&sim);
    assert_eq!(second.serial, first.serial + 1);
    assert!(second.frame.step >= first.frame.step + 2 && second.running);
    // An untaken snapshot is replaced at once by a command's (one step, then paused).
    wait(100);
    assert!(sim.send(SimCommand::StepOnce));
    wait(300);
    let paused = newest(&sim);
    assert!(!paused.running, "the command's snapshot was not published");
    assert!(paused.serial > second.serial);
    assert!(sim.finish().is_none());
}

/// The nice values of this process's threads named plume-sim-N.
fn worker_nices() -> Vec<i32> {
    let mut out = vec![];
    for task in std::fs::read_dir("/proc/self/task")
        .expect("/proc")
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.trim().starts_with("plume-sim-") {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        // After the name's closing parenthesis: state is field 3, nice field 19.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        if let Some(n) = rest.split_whitespace().nth(16).and_then(|v| v.parse().ok()) {
            out.push(n);
        }
    }
    out
}
