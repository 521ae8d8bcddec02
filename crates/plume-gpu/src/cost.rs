//! What a step costs the host: the dispatches it issues, the waits it makes (every
//! `glFinish`, read-back and timestamp read, each of which stalls the CPU until the card
//! has caught up) and the time spent inside the dispatch calls themselves (glium binding
//! the uniforms, the driver queueing the work). Counted per thread: the engine and its
//! context live on one.

use std::cell::Cell;
use std::time::Instant;

/// Counts since the thread started.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostCost {
    /// Compute dispatches issued.
    pub dispatches: u64,
    /// Waits for the card: `glFinish`, buffer read-backs, timestamp reads.
    pub waits: u64,
    /// Nanoseconds spent inside the dispatch calls.
    pub issue_ns: u64,
}

impl HostCost {
    /// What happened between `before` and `self`.
    pub fn since(self, before: HostCost) -> HostCost {
        HostCost {
            dispatches: self.dispatches - before.dispatches,
            waits: self.waits - before.waits,
            issue_ns: self.issue_ns - before.issue_ns,
        }
    }
}

thread_local! {
    static COST: Cell<HostCost> = Cell::new(HostCost::default());
}

/// The counts so far on this thread.
pub fn now() -> HostCost {
    COST.with(Cell::get)
}

/// Issues one dispatch (`f`), counting it and the host time it took.
pub(crate) fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    let t = Instant::now();
    let r = f();
    let ns = t.elapsed().as_nanos() as u64;
    COST.with(|c| {
        let mut v = c.get();
        v.dispatches += 1;
        v.issue_ns += ns;
        c.set(v);
    });
    r
}

/// Counts one wait for the card.
pub(crate) fn wait() {
    COST.with(|c| {
        let mut v = c.get();
        v.waits += 1;
        c.set(v);
    });
}
