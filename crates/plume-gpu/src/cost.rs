//! What a step costs the host and the card's memory: the dispatches it issues, the waits it
//! makes (every `glFinish`, read-back and timestamp read, each of which stalls the CPU until
//! the card has caught up), the time spent inside the dispatch calls themselves (glium
//! binding the uniforms, the driver queueing the work), and the bytes each stage's kernels
//! move in the byte model (`bytes.rs`). Counted per thread: the engine and its
//! context live on one.

use std::cell::{Cell, RefCell};
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
    static STAGE: Cell<&'static str> = const { Cell::new("") };
    static BYTES: RefCell<Vec<(&'static str, u64)>> = const { RefCell::new(Vec::new()) };
    static INVOCATIONS: Cell<u64> = const { Cell::new(0) };
}

/// Invocations the per-item kernels' dispatches (`kernels::run`) have launched on this
/// thread: their work groups times the groups' size.
pub fn invocations() -> u64 {
    INVOCATIONS.with(Cell::get)
}

/// Counts `n` invocations launched by one dispatch of a per-item kernel.
pub(crate) fn launched(n: u64) {
    INVOCATIONS.with(|c| c.set(c.get() + n));
}

/// The counts so far on this thread.
pub fn now() -> HostCost {
    COST.with(Cell::get)
}

/// Names the stage the dispatches that follow belong to (their bytes are counted to it).
pub(crate) fn enter(stage: &'static str) {
    STAGE.with(|s| s.set(stage));
}

/// The bytes counted to each stage since the last call, in the order the stages came;
/// the count starts again.
pub(crate) fn take_stage_bytes() -> Vec<(&'static str, u64)> {
    BYTES.with(|b| std::mem::take(&mut *b.borrow_mut()))
}

/// Issues one dispatch (`f`) that moves `bytes`, counting it, its bytes (to the current
/// stage) and the host time it took.
pub(crate) fn dispatch<R>(bytes: u64, f: impl FnOnce() -> R) -> R {
    let t = Instant::now();
    let r = f();
    let ns = t.elapsed().as_nanos() as u64;
    COST.with(|c| {
        let mut v = c.get();
        v.dispatches += 1;
        v.issue_ns += ns;
        c.set(v);
    });
    let stage = stage();
    BYTES.with(|b| {
        let mut b = b.borrow_mut();
        match b.iter_mut().find(|(s, _)| *s == stage) {
            Some((_, n)) => *n += bytes,
            None => b.push((stage, bytes)),
        }
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

/// The stage the dispatches now issued belong to.
pub(crate) fn stage() -> &'static str {
    STAGE.with(Cell::get)
}
