//! The tuner: where a piece of a step can be done several ways that give the same bits (a
//! kernel taking one cell an invocation or four, the vorticity in two passes or one by
//! tiles, the V-cycle's smoother by tiles or a pass a sweep and its coarse levels fused or
//! not), the first steps on a card time the ways in turn on the card's clock and keep the
//! fastest. Which way is faster depends on the card (an H100's copy moved 1.84 TB/s at one
//! float an invocation where CUDA's moved 2.95), so it is measured on the card the solver
//! runs on rather than fixed for one we measured. The results are the same bits whichever
//! way runs, so the tuning changes the time of a step and nothing else; a choice whose ways
//! a driver rounds differently is not tuned on it (the vorticity on a card:
//! `kernels::tiled_vorticity`), and `scripts/gpu-check` checks each way's bits on the card.
//! (`precise` on every operation a compiler could fuse into a multiply-add is what keeps
//! them the same: NVIDIA's did fuse the conjugate gradients' updates and the gradient
//! differently four cells an invocation until they were.)
//!
//! A way's time is the card's clock from the end of the work before it (a timestamp before
//! its dispatches) to the end of its own (a timestamp after), read once the step is done.
//! The first time of each way is not kept (it may pay for the driver's first use of the
//! kernel); once each way has [`SAMPLES`] times kept, the way with the shortest is taken
//! for the rest of the run (a tie: the default). The ways take turns, so a card whose clocks
//! are still rising slows them alike.

use plume_core::sim::{TunedChoice, TunedWay};
use std::cell::{Cell, RefCell};

use crate::raw::RawGl;

/// Times of each way kept before the tuner decides.
pub(crate) const SAMPLES: u32 = 4;

/// A piece of work with several ways of doing it (see `sites`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Site {
    /// `cell_velocity.comp`: one cell an invocation, or `kernels::WIDE_CELLS`.
    CellVelocity = 0,
    /// `gradient.comp`: the same, or in rows of four as `vec4`s ([`ROWS_WAY`],
    /// `gradient_rows.comp`, where the grid's cells along x are a multiple of four).
    Gradient = 1,
    /// `cg_step.comp`'s update of x and r (timed in a solve's first iteration only: later
    /// ones may have converged on the card and do nothing): the same.
    CgStep = 2,
    /// The vorticity's curl and confinement: one pass by tiles (`vorticity.comp`), or two
    /// (`curl.comp`, `confine.comp`).
    Vorticity = 3,
    /// The pressure solve's V-cycle (timed in a solve's first iteration only): its smoother
    /// by tiles or a pass a sweep, and the most cells of a coarse level worked in its one
    /// fused dispatch ([`v_cycles`]).
    VCycle = 4,
    /// `advect_faces.comp`: one face an invocation, or `kernels::WIDE_CELLS` (each traced
    /// before the first is stored: four traces' reads in flight, where one face's wait on
    /// each other). On the H200 one face moved 438 GB/s in the byte model (3.4 ms of a
    /// 256³ step), and four were slower at every size (2700 µs against 1653 at 256³).
    AdvectFaces = 5,
    /// An iteration's A·p (`laplace.comp`, with the new direction): one cell an invocation,
    /// or in rows of four as `vec4`s (`laplace_rows.comp`, where the grid's cells along x
    /// are a multiple of four; timed in a solve's first iteration only). On the H200 one
    /// cell moved 426 GB/s in the byte model (630 µs a pass at 256³).
    Laplace = 6,
    /// The projection's right-hand side (`divergence.comp`, with the solve's starting
    /// residual where it goes there): one cell an invocation, or in rows of four as `vec4`s
    /// (`divergence_rows.comp`, where the grid's cells along x are a multiple of four).
    Divergence = 7,
}

/// The sites of the kernels that take one cell (or face) an invocation or
/// `kernels::WIDE_CELLS`.
pub(crate) const CELL_SITES: [Site; 4] = [
    Site::CellVelocity,
    Site::Gradient,
    Site::CgStep,
    Site::AdvectFaces,
];

/// The way in rows of four cells as `vec4`s at a site of [`CELL_SITES`] that has one (the
/// gradient's).
pub(crate) const ROWS_WAY: usize = 2;

/// How many sites there are.
const SITE_COUNT: usize = 8;

/// A way of the V-cycle (see [`v_cycles`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VWay {
    pub name: &'static str,
    /// The smoother by tiles (`smooth.comp`), else a pass a sweep (`mg.comp`'s ops 0 to 2 and 8).
    pub tiled: bool,
    /// The most cells of a coarse level its one fused dispatch works (op 7; 0: none).
    pub fused_cells: u32,
    /// Cells an invocation of the passes a sweep (1 or `kernels::WIDE_CELLS`; by tiles 1).
    pub sweep_cells: u32,
    /// A pass a sweep on the finest level only, by tiles on the coarser ones (where
    /// `tiled` is not set).
    pub tiled_coarse: bool,
    /// The passes a sweep in rows of four cells an invocation, `vec4`s (`mg_rows.comp`, on
    /// the levels whose rows are whole vec4s; `sweep_cells` on the others).
    pub rows: bool,
}

/// The ways of the V-cycle, the renderer's default first (`kernels::tiled_smoothing`,
/// `kernels::default_fused_cells`): on a software renderer by tiles with none fused, a
/// pass a sweep, by tiles with up to [`FUSED_CELLS`](crate::kernels::FUSED_CELLS) fused,
/// and a pass a sweep four cells an invocation; on a card a pass a sweep with up to
/// `FUSED_CELLS` fused, by tiles, a pass a sweep with none fused, and a pass a sweep four
/// cells an invocation (more loads in flight: on the H200 a copy moved 1530 GB/s a float
/// an invocation and 3193 four; a V-cycle's passes over the finest grid ran at 466 in the
/// byte model; on its second run that way was 3.5 times slower at 128³). Last on both, a
/// pass a sweep with up to 4 × `FUSED_CELLS` fused (on the H200 no faster than 1024, twice),
/// and a pass a sweep on the finest level with the coarser ones by tiles: three passes a
/// level instead of nine, the fastest at 64³ on the H200 (270.8 µs a V-cycle against 291.9
/// a pass a sweep), slower from 128³ up. Then a pass a sweep in rows of four cells an
/// invocation as `vec4`s, fused as the default (`mg_rows.comp`: on the H200 a copy moved
/// 4127 GB/s as vec4s, 1530 a float an invocation; no card has timed it yet).
///
/// On a card the ways by tiles (all levels or those below the finest) are left out: the
/// tuner may mix only ways that give the same bits, and on the H200 (driver 580, second run
/// of 2026-11-28) the smoother by tiles no longer did, since its sweeps and `mg.comp`'s read
/// their values first (`PLUME_GPU_TILED_SMOOTH=1` still sets it).
pub(crate) fn v_cycles(software: bool) -> Vec<VWay> {
    use crate::kernels::{FUSED_CELLS, WIDE_CELLS};
    const { assert!(FUSED_CELLS == 1024 && WIDE_CELLS == 4) };
    let fused = crate::kernels::default_fused_cells(software);
    let other = if fused == 0 { FUSED_CELLS } else { 0 };
    let tiled = software;
    let name = |tiled: bool, cells: u32, wide: bool| match (tiled, cells, wide) {
        (true, 0, _) => "tiles, none fused",
        (true, 1024, _) => "tiles, fused up to 1024 cells",
        (true, _, _) => "tiles, fused up to 4096 cells",
        (false, 0, false) => "a pass a sweep, none fused",
        (false, 0, true) => "a pass a sweep 4 cells an invocation, none fused",
        (false, 1024, false) => "a pass a sweep, fused up to 1024 cells",
        (false, 1024, true) => "a pass a sweep 4 cells an invocation, fused up to 1024 cells",
        (false, _, false) => "a pass a sweep, fused up to 4096 cells",
        (false, _, true) => "a pass a sweep 4 cells an invocation, fused up to 4096 cells",
    };
    let ways = [
        (tiled, fused, 1),
        (!tiled, fused, 1),
        (tiled, other, 1),
        (false, fused, WIDE_CELLS),
        (false, 4 * FUSED_CELLS, 1),
    ]
    .map(|(t, c, w)| VWay {
        name: name(t, c, w > 1),
        tiled: t,
        fused_cells: c,
        sweep_cells: w,
        tiled_coarse: false,
        rows: false,
    });
    let hybrid = VWay {
        name: "a pass a sweep on the finest level, tiles below, fused up to 1024 cells",
        tiled: false,
        fused_cells: FUSED_CELLS,
        sweep_cells: 1,
        tiled_coarse: true,
        rows: false,
    };
    let rows = VWay {
        name: if fused == 0 {
            "a pass a sweep in rows of 4 (vec4), none fused"
        } else {
            "a pass a sweep in rows of 4 (vec4), fused up to 1024 cells"
        },
        tiled: false,
        fused_cells: fused,
        sweep_cells: 1,
        tiled_coarse: false,
        rows: true,
    };
    ways.into_iter()
        .chain([hybrid, rows])
        .filter(|w| software || !(w.tiled || w.tiled_coarse))
        .collect()
}

/// Each site's name and its ways, the default first (the V-cycle's: [`v_cycles`]).
fn sites(software: bool) -> [(&'static str, Vec<&'static str>); SITE_COUNT] {
    let cells = || vec!["1 cell", "4 cells"];
    [
        ("cell_velocity", cells()),
        ("gradient", vec!["1 cell", "4 cells", "rows of 4"]),
        ("cg_step", cells()),
        ("vorticity", vec!["tiles", "two passes"]),
        (
            "v_cycle",
            v_cycles(software).iter().map(|w| w.name).collect(),
        ),
        ("advect_faces", vec!["1 face", "4 faces"]),
        ("laplace", vec!["1 cell", "rows of 4"]),
        ("divergence", vec!["1 cell", "rows of 4"]),
    ]
}

/// What the tuner knows of one site.
#[derive(Clone, Debug, Default)]
struct SiteState {
    /// Set from outside: not timed.
    fixed: Option<usize>,
    /// Taken from now on.
    picked: Option<usize>,
    /// Times each way was timed so far (the first of each not kept).
    issued: Vec<u32>,
    /// Times kept of each way.
    samples: Vec<u32>,
    /// The shortest kept of each way, nanoseconds.
    best_ns: Vec<Option<u64>>,
}

impl SiteState {
    fn new(ways: usize) -> Self {
        Self {
            issued: vec![0; ways],
            samples: vec![0; ways],
            best_ns: vec![None; ways],
            ..Default::default()
        }
    }

    /// The way to run now and whether to time it.
    fn next(&mut self, on: bool) -> (usize, bool) {
        if let Some(w) = self.fixed.or(self.picked) {
            return (w, false);
        }
        if !on {
            return (0, false);
        }
        // The way timed fewest times (the first of them): the ways take turns.
        let w = (0..self.issued.len())
            .min_by_key(|&i| self.issued[i])
            .unwrap_or(0);
        self.issued[w] += 1;
        (w, true)
    }

    /// Keeps a time of `way` (unless it is that way's first) and decides once each way has
    /// [`SAMPLES`]: the shortest (the first of them on a tie, the default before the rest).
    fn record(&mut self, way: usize, first: bool, ns: u64) {
        if self.picked.is_some() || self.fixed.is_some() || first {
            return;
        }
        self.samples[way] += 1;
        self.best_ns[way] = Some(self.best_ns[way].map_or(ns, |b| b.min(ns)));
        if self.samples.iter().all(|&n| n >= SAMPLES) {
            self.picked = (0..self.best_ns.len()).min_by_key(|&i| self.best_ns[i]);
        }
    }
}

/// A dispatch (or a few) being timed: its site, way, and the timestamps around it.
struct Pending {
    site: usize,
    way: usize,
    first: bool,
    before: usize,
    after: usize,
}

/// What [`Tuner::begin`] hands to [`Tuner::end`]: the timestamp before, where timed.
pub(crate) struct Timing(Option<(usize, usize, bool, usize)>);

/// The tuner of an engine (see the module's docs).
pub(crate) struct Tuner {
    raw: RefCell<RawGl>,
    on: Cell<bool>,
    /// The V-cycle's ways ([`v_cycles`]).
    v_ways: Vec<VWay>,
    /// Each site's name and its ways' ([`sites`]).
    names: [(&'static str, Vec<&'static str>); SITE_COUNT],
    sites: RefCell<[SiteState; SITE_COUNT]>,
    pending: RefCell<Vec<Pending>>,
}

impl Tuner {
    /// A tuner timing on `raw`'s queries where `on` and the driver has timer queries, with
    /// the defaults of a `software` renderer or a hardware one.
    pub fn new(raw: RawGl, on: bool, software: bool) -> Self {
        let on = on && raw.has_timer();
        let names = sites(software);
        Self {
            raw: RefCell::new(raw),
            on: Cell::new(on),
            v_ways: v_cycles(software),
            sites: RefCell::new(std::array::from_fn(|i| SiteState::new(names[i].1.len()))),
            names,
            pending: RefCell::new(Vec::new()),
        }
    }

    /// Whether `site` was set from outside.
    pub fn fixed(&self, site: Site) -> bool {
        self.sites.borrow()[site as usize].fixed.is_some()
    }

    /// The V-cycle's `way` ([`v_cycles`]).
    pub fn v_cycle(&self, way: usize) -> VWay {
        self.v_ways[way.min(self.v_ways.len() - 1)]
    }

    /// Fixes the V-cycle to go as `tiled`, `fused_cells`, `sweep_cells` and `rows` say (set
    /// from outside), reported as the way that goes so (the first where none does).
    pub fn fix_v_cycle(&self, tiled: bool, fused_cells: u32, sweep_cells: u32, rows: bool) {
        // (by tiles the passes a sweep are not used: their cells do not count; in rows
        // they are one cell an invocation where a level's rows are not whole vec4s)
        let (cells, rows) = if tiled {
            (1, false)
        } else if rows {
            (1, true)
        } else {
            (sweep_cells, false)
        };
        let way = self.v_ways.iter().position(|w| {
            !w.tiled_coarse
                && (w.tiled, w.fused_cells, w.sweep_cells, w.rows)
                    == (tiled, fused_cells, cells, rows)
        });
        self.fix(Site::VCycle, way.unwrap_or(0));
    }

    /// Where the timings stand now (for [`Tuner::drop_since`]).
    pub fn mark(&self) -> usize {
        self.pending.borrow().len()
    }

    /// Drops the times of `sites` taken since `mark`: work the card may have skipped (a
    /// solve that found nothing to do).
    pub fn drop_since(&self, mark: usize, sites: &[Site]) {
        let mut p = self.pending.borrow_mut();
        let mut i = 0;
        p.retain(|x| {
            i += 1;
            i <= mark || !sites.iter().any(|&s| s as usize == x.site)
        });
    }

    /// Turns the timing on or off (off: the sites not yet decided run their default way);
    /// returns whether it can time.
    pub fn set_on(&self, on: bool) -> bool {
        let can = self.raw.borrow().has_timer();
        self.on.set(on && can);
        can
    }

    /// Fixes `site` to `way` (0: the default), untimed from now on.
    pub fn fix(&self, site: Site, way: usize) {
        let mut sites = self.sites.borrow_mut();
        let s = &mut sites[site as usize];
        s.fixed = Some(way.min(s.issued.len() - 1));
    }

    /// Before `site`'s work: the way to run, and what [`Tuner::end`] takes after it. Timed
    /// only where `timed` (work that may do nothing on the card is not).
    pub fn begin(&self, site: Site, timed: bool) -> (usize, Timing) {
        let (way, time) = self.sites.borrow_mut()[site as usize].next(self.on.get() && timed);
        if !time {
            return (way, Timing(None));
        }
        let first = self.sites.borrow()[site as usize].issued[way] == 1;
        let before = self.raw.borrow_mut().timestamp();
        (way, Timing(before.map(|b| (site as usize, way, first, b))))
    }

    /// After the work [`Tuner::begin`] chose the way of.
    pub fn end(&self, t: Timing) {
        let Some((site, way, first, before)) = t.0 else {
            return;
        };
        if let Some(after) = self.raw.borrow_mut().timestamp() {
            self.pending.borrow_mut().push(Pending {
                site,
                way,
                first,
                before,
                after,
            });
        }
    }

    /// At a step's start: drops what a step cut short left unread.
    pub fn start_step(&self) {
        self.pending.borrow_mut().clear();
        self.raw.borrow_mut().forget();
    }

    /// After a step's last read-back (so the card has run what was timed): reads the
    /// times and decides the sites that have enough.
    pub fn harvest(&self) {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        if pending.is_empty() {
            // (nothing to read; the queries of times dropped are free again)
            self.raw.borrow_mut().forget();
            return;
        }
        let ts = self.raw.borrow_mut().timestamps();
        let mut sites = self.sites.borrow_mut();
        for p in pending {
            if let (Some(&a), Some(&b)) = (ts.get(p.before), ts.get(p.after)) {
                sites[p.site].record(p.way, p.first, b.saturating_sub(a));
            }
        }
    }

    /// Every site as it stands, for a step's statistics.
    pub fn report(&self) -> Vec<TunedChoice> {
        self.sites
            .borrow()
            .iter()
            .zip(&self.names)
            .map(|(s, (site, ways))| TunedChoice {
                site,
                ways: ways
                    .iter()
                    .enumerate()
                    .map(|(i, &name)| TunedWay {
                        name,
                        samples: s.samples[i],
                        best_us: s.best_ns[i].map(|ns| ns as f64 / 1e3),
                    })
                    .collect(),
                picked: s.fixed.or(s.picked),
                fixed: s.fixed.is_some(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `site` through `next` and `record` with the times `ns(way)`, as a step would.
    fn tune(s: &mut SiteState, ns: impl Fn(usize) -> u64, rounds: usize) -> Vec<usize> {
        let mut ways = Vec::new();
        for _ in 0..rounds {
            let (w, timed) = s.next(true);
            ways.push(w);
            if timed {
                let first = s.issued[w] == 1;
                s.record(w, first, ns(w));
            }
        }
        ways
    }

    #[test]
    fn the_ways_alternate_and_the_faster_is_kept() {
        let mut s = SiteState::new(2);
        // The second way faster; each way's first time (a slow first use) not kept.
        let ways = tune(&mut s, |w| [100, 60][w], 30);
        assert_eq!(&ways[..6], &[0, 1, 0, 1, 0, 1]);
        let decided = 2 * (SAMPLES as usize + 1);
        assert!(ways[decided..].iter().all(|&w| w == 1), "{ways:?}");
        assert_eq!(s.picked, Some(1));
        assert_eq!(s.samples, [SAMPLES, SAMPLES]);
        assert_eq!(s.best_ns, [Some(100), Some(60)]);
    }

    #[test]
    fn the_first_time_of_a_way_is_not_kept_and_the_default_wins_a_tie() {
        let mut s = SiteState::new(2);
        // A first use that costs nothing would win if it were kept.
        let (w, _) = s.next(true);
        s.record(w, true, 1);
        let (w, _) = s.next(true);
        s.record(w, true, 1);
        tune(&mut s, |_| 50, 20);
        assert_eq!(s.best_ns, [Some(50), Some(50)]);
        assert_eq!(s.picked, Some(0));
    }

    #[test]
    fn four_ways_take_turns_and_the_fastest_is_kept() {
        let mut s = SiteState::new(4);
        let ways = tune(&mut s, |w| [90, 70, 50, 80][w], 40);
        assert_eq!(&ways[..8], &[0, 1, 2, 3, 0, 1, 2, 3]);
        let decided = 4 * (SAMPLES as usize + 1);
        assert!(ways[decided..].iter().all(|&w| w == 2), "{ways:?}");
        assert_eq!(s.picked, Some(2));
    }

    #[test]
    fn a_fixed_site_and_a_tuner_that_is_off_time_nothing() {
        let mut s = SiteState {
            fixed: Some(1),
            ..SiteState::new(2)
        };
        assert!(tune(&mut s, |_| 1, 5).iter().all(|&w| w == 1));
        assert_eq!(s.issued, [0, 0]);
        let mut off = SiteState::new(2);
        assert_eq!(off.next(false), (0, false));
        assert_eq!(off.issued, [0, 0]);
    }
}
