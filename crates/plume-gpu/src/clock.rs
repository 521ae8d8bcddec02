//! The kernel clock (`bench --kernels`): a timestamp after every dispatch while it is on,
//! each kernel's time on the card's clock by stage, kernel and size.

use std::cell::{Cell, RefCell};

use crate::cost::stage;

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
