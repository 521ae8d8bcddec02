//! What a step costs the host and the card's memory: the dispatches it issues, the waits it
//! makes (every `glFinish`, read-back and timestamp read, each of which stalls the CPU until
//! the card has caught up), the time spent inside the dispatch calls themselves (glium
//! binding the uniforms, the driver queueing the work), and the bytes each stage's kernels
//! move in the model of `kernels::bytes_per_item`. Counted per thread: the engine and its
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
    let stage = STAGE.with(Cell::get);
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

/// One dispatch the kernel clock timed: where it ran, what, and how much.
struct Mark {
    stage: &'static str,
    kernel: &'static str,
    items: u64,
    bytes: u64,
}

/// The kernel clock: while on, a timestamp after every dispatch (on queries of its own),
/// read once a step is done (`finish`), so each kernel's time is the card's clock between
/// the end of the dispatch before it and the end of its own. Off (the default) it does
/// nothing: a timestamp a dispatch is a little work of its own, and a step's stage times
/// are what the solver keeps for every step.
pub(crate) struct KernelClock {
    raw: RefCell<crate::raw::RawGl>,
    on: Cell<bool>,
    /// The step's dispatches so far, in order, after the start's timestamp.
    marks: RefCell<Vec<Mark>>,
    started: Cell<bool>,
}

impl KernelClock {
    pub fn new(raw: crate::raw::RawGl) -> Self {
        Self {
            raw: RefCell::new(raw),
            on: Cell::new(false),
            marks: RefCell::new(Vec::new()),
            started: Cell::new(false),
        }
    }

    /// Turns it on or off; returns whether it can time (the driver has timer queries).
    pub fn set_on(&self, on: bool) -> bool {
        let can = self.raw.borrow().has_timer();
        self.on.set(on && can);
        self.marks.borrow_mut().clear();
        self.started.set(false);
        can
    }

    /// Starts a step's timing (a timestamp before its first dispatch).
    pub fn start(&self) {
        if self.on.get() {
            self.marks.borrow_mut().clear();
            let mut raw = self.raw.borrow_mut();
            // Queries left unread (a step that stopped half-way) are dropped first.
            raw.forget();
            self.started.set(raw.timestamp().is_some());
        }
    }

    /// Marks the end of a dispatch of `kernel` over `items` items that moved `bytes`.
    pub fn after(&self, kernel: &'static str, items: u64, bytes: u64) {
        if !(self.on.get() && self.started.get()) {
            return;
        }
        if self.raw.borrow_mut().timestamp().is_some() {
            self.marks.borrow_mut().push(Mark {
                stage: stage(),
                kernel,
                items,
                bytes,
            });
        }
    }

    /// The step's kernel times (empty where the clock is off): the timestamps read (the
    /// step's own read-backs have waited for them already), each dispatch's time summed by
    /// stage, kernel and size, in the order they first came.
    pub fn finish(&self) -> Vec<plume_core::sim::KernelTime> {
        if !(self.on.get() && self.started.replace(false)) {
            return Vec::new();
        }
        let marks = std::mem::take(&mut *self.marks.borrow_mut());
        let times = self.raw.borrow_mut().timestamps();
        let mut out: Vec<plume_core::sim::KernelTime> = Vec::new();
        for (m, w) in marks.iter().zip(times.windows(2)) {
            let ms = w[1].saturating_sub(w[0]) as f64 / 1e6;
            match out
                .iter_mut()
                .find(|k| k.stage == m.stage && k.kernel == m.kernel && k.items == m.items)
            {
                Some(k) => {
                    k.dispatches += 1;
                    k.bytes += m.bytes;
                    k.ms += ms;
                }
                None => out.push(plume_core::sim::KernelTime {
                    stage: m.stage,
                    kernel: m.kernel,
                    items: m.items,
                    dispatches: 1,
                    bytes: m.bytes,
                    ms,
                }),
            }
        }
        out
    }
}
