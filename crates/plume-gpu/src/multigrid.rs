//! The multigrid V-cycle that preconditions the pressure solve (`mg.comp`): the CPU's
//! Chebyshev-Jacobi smoother (three weighted Jacobi sweeps before and three after the coarse
//! correction; two damped ones took 8 iterations a solve at 256³ on an H100 and 12 at 512³,
//! the CPU takes 2), trilinear prolongation
//! and its transpose, coarse grids halved (rounded up) down to 4 cells on the shortest axis,
//! a cell fluid where any of its children is, 16 sweeps on the coarsest. Symmetric and
//! positive definite, as conjugate gradients needs. It keeps nothing of its own on the card
//! but the coarse masks: the finest level's arrays are the solve's `q` (the result z = M·r,
//! read from `r`) and the cell velocity's buffer, idle during the projection, which also
//! holds every coarser level. The smoother's sweeps go by tiles (`smooth.comp`: the three
//! before the coarse correction and the residual in one pass, the three after it in another;
//! the same values as a pass a sweep). The coarse levels of at most [`crate::kernels::FUSED_CELLS`] cells (on
//! a hardware renderer) are worked in one dispatch of one work group (`mg.comp`'s op 7: the
//! same passes, the same results), not a dispatch a pass.

use glium::buffer::{Buffer, BufferMode, BufferType};
use glium::uniform;

use crate::engine::{Engine, Site};
use crate::fields::{Bound, Field};
use crate::kernels::{groups_of, run, tile_count, ROW_CELLS, SHARED_FLOATS, TILE, TILE_WG};
use crate::lists::{At, Level, Multigrid};
use plume_core::sim::pressure::multigrid::{
    coarsest_sweeps, smoother_weights, transfer_end_weight, COARSEST_OMEGA,
};

const NONE: u32 = u32::MAX;

impl Multigrid {
    /// The levels of a `dims` grid, the coarse masks from the finest `solid` cells (one bit a
    /// cell, as the engine's mask), or `None` where the levels take more than three floats a
    /// cell of the cell velocity's buffer (they take about 2.6; the buffer holds a `vec4` a
    /// cell, or three floats where its vec4s would not fit one buffer: the bound is three,
    /// so that every grid keeps the levels it had, whichever way it holds its velocity).
    pub fn new(e: &Engine, solid: Option<&[u8]>) -> Option<Self> {
        let d = e.dims();
        let n0 = d[0] * d[1] * d[2];
        // The finest level's sweeps end where they did not start (three after the coarse
        // correction): starting in the cell velocity's buffer, they end in `q`, the result.
        let mut levels = vec![Level {
            dims: d,
            n: n0,
            x: At::Cell(0),
            y: At::Q,
            t: At::Cell(n0),
            b: At::R,
            mask: NONE,
        }];
        let mut next = 2 * n0;
        let mut fluid: Vec<bool> = match solid {
            Some(m) => m.iter().map(|&s| s == 0).collect(),
            None => Vec::new(),
        };
        let mut bits: Vec<u32> = Vec::new();
        while levels
            .last()
            .is_some_and(|l| l.dims.iter().min().copied().unwrap_or(0) > 4)
        {
            let f = levels.last()?.dims;
            let c = f.map(|v| v.div_ceil(2));
            let n = c[0] * c[1] * c[2];
            if !fluid.is_empty() {
                // A coarse cell is fluid where any of its children is.
                let mut cf = vec![false; n as usize];
                for z in 0..f[2] {
                    for y in 0..f[1] {
                        for x in 0..f[0] {
                            if fluid[(x + f[0] * (y + f[1] * z)) as usize] {
                                cf[(x / 2 + c[0] * (y / 2 + c[1] * (z / 2))) as usize] = true;
                            }
                        }
                    }
                }
                fluid = cf;
            }
            // Without obstacles every cell is fluid and no mask is read.
            let mask = bits.len() as u32;
            if !fluid.is_empty() {
                let mut words = vec![0u32; (n as usize).div_ceil(32)];
                for (i, &on) in fluid.iter().enumerate() {
                    if on {
                        words[i >> 5] |= 1 << (i & 31);
                    }
                }
                bits.extend(words);
            }
            levels.push(Level {
                dims: c,
                n,
                x: At::Cell(next),
                y: At::Cell(next + n),
                t: At::Cell(next + 2 * n),
                b: At::Cell(next + 3 * n),
                mask,
            });
            next += 4 * n;
        }
        if u64::from(next) > 3 * u64::from(n0) || levels.len() < 2 {
            return None;
        }
        if bits.is_empty() {
            bits.push(0);
        }
        let bits = Buffer::new(
            &e.ctx,
            &bits[..],
            BufferType::ShaderStorageBuffer,
            BufferMode::Default,
        )
        .ok()?;
        let (lo, hi) = e.open_flags();
        let table = Buffer::new(
            &e.ctx,
            &table(&levels, lo, hi)[..],
            BufferType::ShaderStorageBuffer,
            BufferMode::Default,
        )
        .ok()?;
        Some(Self {
            levels,
            bits,
            table,
        })
    }

    /// The first level of the fused cycle (op 7) where levels of at most `most` cells are
    /// fused: the first coarse level that small, where two or more are (the coarsest alone
    /// is one dispatch already).
    pub fn fuse_from(&self, most: u32) -> Option<usize> {
        (1..self.levels.len())
            .find(|&l| self.levels[l].n <= most)
            .filter(|&l| l + 1 < self.levels.len())
    }

    /// Where level `l`'s arrays start in the cell velocity's buffer and how many values
    /// there are from there to the end of the coarsest level's (none for the finest level,
    /// whose are elsewhere): what the coarsest sweeps and the fused cycle from `l` work in.
    fn shared_span(&self, l: usize) -> (u32, u32) {
        let end = |lv: &Level| match (lv.x, lv.b) {
            (At::Cell(x), At::Cell(b)) => Some((x, b + lv.n)),
            _ => None,
        };
        match (end(&self.levels[l]), self.levels.last().and_then(end)) {
            (Some((base, _)), Some((_, last))) => (base, last - base),
            _ => (0, u32::MAX),
        }
    }

    /// Bytes it keeps on the card (the coarse masks and the levels' table).
    pub fn bytes(&self) -> u64 {
        (self.bits.get_size() + self.table.get_size()) as u64
    }
}

/// Words a level takes in the table.
const TABLE_WORDS: usize = 16;

/// The levels' figures as `mg.comp`'s op 7 reads them (16 words a level): dims, the
/// offsets of x, y, t and b (in the cell velocity's buffer; 0 for the finest level's, which
/// op 7 never works on), the mask's first word, 2^level as a float's bits, and the
/// transfers' end weights to the next level (the CPU's, for open faces `lo` and `hi`).
fn table(levels: &[Level], lo: [u32; 3], hi: [u32; 3]) -> Vec<u32> {
    let off = |a: At| match a {
        At::Cell(o) => o,
        At::Q | At::R => 0,
    };
    let mut t = Vec::with_capacity(TABLE_WORDS * levels.len());
    for (l, lv) in levels.iter().enumerate() {
        let spacing = 1usize << l;
        let ends = |open: [u32; 3]| open.map(|o| transfer_end_weight(spacing, o != 0).to_bits());
        t.extend(lv.dims);
        t.extend([off(lv.x), off(lv.y), off(lv.t), off(lv.b), lv.mask]);
        t.push(((1u32 << l) as f32).to_bits());
        t.extend(ends(lo));
        t.extend(ends(hi));
        t.push(0);
    }
    t
}

/// How a V-cycle goes: its smoother by tiles (`smooth.comp`) or a pass a sweep, and the
/// most cells of a coarse level worked in its one fused dispatch (0: none).
#[derive(Clone, Copy, Debug)]
struct VCycleWay {
    tiled: bool,
    fused_cells: u32,
    /// Cells an invocation of the passes a sweep (ops 0 to 2 and 8).
    sweep_cells: u32,
    /// By tiles below the finest level (a pass a sweep on it).
    tiled_coarse: bool,
    /// The passes a sweep in rows of four cells, `vec4`s, where a level's rows are whole.
    rows: bool,
}

/// How one pass of `mg.comp` goes: a cell an invocation, [`crate::kernels::WIDE_CELLS`] a
/// dispatch apart (ops 0 to 2 and 8), or in rows of four, `vec4`s (`mg_rows.comp`: those ops,
/// the prolongation's 4 and the last sweep's 9 and 10, on a level whose rows are whole
/// vec4s, else one cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    One,
    Wide,
    Rows,
}

impl VCycleWay {
    /// How its passes a sweep go.
    fn pass(self) -> Pass {
        if self.rows {
            Pass::Rows
        } else if self.sweep_cells > 1 {
            Pass::Wide
        } else {
            Pass::One
        }
    }
}

impl Engine {
    /// Fixes the V-cycle's way (the tuner times it no more) to what the engine's fields say
    /// (`tiled_smoothing`, `fused_cells`, `sweep_cells`, `sweep_rows`), after a setter
    /// changed one.
    pub(crate) fn fix_v_cycle(&self) {
        self.tuner.fix_v_cycle(
            self.tiled_smoothing,
            self.fused_cells,
            self.sweep_cells,
            self.sweep_rows,
        );
    }

    /// The preconditioner's levels for the grid and the solid cells `solid` (`None`: no
    /// obstacles).
    pub(crate) fn rebuild_multigrid(&mut self, solid: Option<&[u8]>) {
        self.mg = Multigrid::new(self, solid);
    }

    /// z = M·r into `q`: one V-cycle (its last sweep writes `q`; a copy where it would not).
    /// The last sweep also writes r·z's partial sums (by tiles one a tile, else one a work
    /// group: `mg.comp`'s RZ_SUMS): returns how many; with `finish` its last work group
    /// finishes op 2 (β) of the conjugate gradients (`last_group.glsl`).
    ///
    /// How it goes (the smoother by tiles or not, the coarse levels fused) is the tuner's
    /// pick, or as `tiled_smoothing` and `fused_cells` say where set from outside; timed for
    /// the tuner where `timed`. The same results every way.
    pub(crate) fn precondition(&self, mg: &Multigrid, finish: bool, timed: bool) -> u32 {
        self.v_cycles.set(self.v_cycles.get() + 1);
        let (way, t) = self.tuner.begin(Site::VCycle, timed);
        let how = if self.tuner.fixed(Site::VCycle) {
            VCycleWay {
                tiled: self.tiled_smoothing,
                fused_cells: self.fused_cells,
                sweep_cells: self.sweep_cells,
                tiled_coarse: false,
                rows: self.sweep_rows,
            }
        } else {
            let w = self.tuner.v_cycle(way);
            VCycleWay {
                tiled: w.tiled,
                fused_cells: w.fused_cells,
                sweep_cells: w.sweep_cells,
                tiled_coarse: w.tiled_coarse,
                rows: w.rows,
            }
        };
        let top = self.cycle(mg, 0, finish, how);
        if top != At::Q {
            self.mg_op(Pass::One, mg, 5, 0, top, At::Q, At::R, 0, 0.0);
        }
        self.tuner.end(t);
        // (by tiles a partial sum a tile, else one a work group of the last sweep: ops 9,
        // 10; in rows one a group of a quarter as many rows, so as many groups)
        if how.tiled {
            tile_count(mg.levels[0].dims)
        } else {
            groups_of(mg.levels[0].n as usize, self.k.mg_last.wg)
        }
    }

    /// The V-cycle from level `l` down; returns where its result is. (`finish`: see
    /// [`Engine::precondition`].)
    fn cycle(&self, mg: &Multigrid, l: usize, finish: bool, how: VCycleWay) -> At {
        let lv = &mg.levels[l];
        if mg.fuse_from(how.fused_cells) == Some(l) {
            // Every pass below, as this function would issue them, in one dispatch.
            self.mg_op(Pass::One, mg, 7, l, lv.y, lv.x, lv.b, 0, COARSEST_OMEGA);
            return lv.y;
        }
        if l + 1 == mg.levels.len() {
            // The CPU's sweeps, all in one dispatch of one work group (the level has a few
            // dozen cells): the first from zero into x, then y, x, … (the coarsest level is
            // never the finest, so both are in the cell velocity's buffer).
            self.mg_op(Pass::One, mg, 6, l, lv.y, lv.x, lv.b, 0, COARSEST_OMEGA);
            return if coarsest_sweeps(lv.dims.map(|v| v as usize)).is_multiple_of(2) {
                lv.y
            } else {
                lv.x
            };
        }
        // The CPU's smoother: three Jacobi sweeps with the weights of a Chebyshev
        // polynomial (the first from zero), the residual restricted, the coarse correction
        // added, the three sweeps again (polynomials in D⁻¹A commute: the cycle stays
        // symmetric).
        let w = smoother_weights();
        let coarse = &mg.levels[l + 1];
        if how.tiled || (how.tiled_coarse && l > 0) {
            // By tiles (`smooth.comp`): the three sweeps before and the residual in one
            // pass (into x and t); the correction added to x as the pass after reads it,
            // and the three sweeps after (into y: the finest level's y is `q`, where the
            // result belongs).
            self.smooth(mg, l, lv.b, lv.x, lv.t, lv.b, None, false);
            self.mg_op(Pass::One, mg, 3, l + 1, lv.t, coarse.b, lv.b, l, 0.0);
            let e = self.cycle(mg, l + 1, false, how);
            self.smooth(mg, l, lv.x, lv.y, lv.t, lv.b, Some(e), finish && l == 0);
            return lv.y;
        }
        // (the passes a sweep one cell an invocation or several, `mg.comp`'s sweep_cells, or
        // in rows, `mg_rows.comp`; the first two sweeps in one pass, op 8, where
        // `first_sweeps_together`)
        let pass = how.pass();
        let (mut cur, mut other) = (lv.x, lv.y);
        let mut done = 1;
        if self.folds.first_sweeps_together {
            self.mg_op(pass, mg, 8, l, lv.x, lv.y, lv.b, 0, w[1]);
            (cur, other) = (lv.y, lv.x);
            done = 2;
        } else {
            self.mg_op(pass, mg, 0, l, lv.x, lv.x, lv.b, 0, w[0]);
        }
        for &wk in &w[done..] {
            self.mg_op(pass, mg, 1, l, cur, other, lv.b, 0, wk);
            std::mem::swap(&mut cur, &mut other);
        }
        self.mg_op(pass, mg, 2, l, cur, lv.t, lv.b, 0, 0.0);
        // (the restriction in rows of four coarse cells where the sweeps are in rows)
        self.mg_op(pass, mg, 3, l + 1, lv.t, coarse.b, lv.b, l, 0.0);
        let e = self.cycle(mg, l + 1, false, how);
        self.mg_op(pass, mg, 4, l, e, cur, lv.b, l + 1, 0.0);
        for (i, &wk) in w.iter().enumerate() {
            // (the finest level's last sweep with r·z's partial sums, and with `finish` β
            // from them in its last work group: ops 9 and 10)
            let op = match (l == 0 && i + 1 == w.len(), finish) {
                (false, _) => 1,
                (true, false) => 9,
                (true, true) => 10,
            };
            self.mg_op(pass, mg, op, l, cur, other, lv.b, 0, wk);
            std::mem::swap(&mut cur, &mut other);
        }
        cur
    }

    /// The smoother's sweeps on level `l` by tiles (`smooth.comp`): before the coarse
    /// correction (`after` none) the three of them from x = 0 into `dst` and the residual
    /// into `t` (in the same buffer); after it, the coarse level's correction (`after`, in
    /// the cell velocity's buffer as `src`) prolonged and added to `src` as it is read, and
    /// the three sweeps into `dst`, on the finest level with r·z's partial sums (one a tile),
    /// and with `finish` β from them in the last tile's work group (op 2).
    #[allow(clippy::too_many_arguments)]
    fn smooth(
        &self,
        mg: &Multigrid,
        l: usize,
        src: At,
        dst: At,
        t: At,
        b: At,
        after: Option<At>,
        finish: bool,
    ) {
        let before = after.is_none();
        let lv = &mg.levels[l];
        let ((sb, so), (db, dso), (tb, tso), (bb, bo)) =
            (self.at(src), self.at(dst), self.at(t), self.at(b));
        assert!(
            !before || std::ptr::eq(db, tb),
            "the residual outside x's buffer"
        );
        let (lo, hi) = self.open_flags();
        // The coarse correction's level, place and the transfers' end weights (the CPU's,
        // from this level's spacing), as `mg_op` gives op 4.
        let coarse = &mg.levels[(l + 1).min(mg.levels.len() - 1)];
        let eo = match after {
            Some(e) => {
                let (eb, eo) = self.at(e);
                assert!(std::ptr::eq(eb, sb), "the correction outside x's buffer");
                eo
            }
            None => 0,
        };
        let ends = |open: [u32; 3]| open.map(|o| transfer_end_weight(1 << l, o != 0));
        run(
            &self.k.smooth,
            self.dims(),
            (tile_count(lv.dims) * TILE_WG) as usize,
            uniform! {
                Src: sb,
                Dst: db,
                B: bb,
                Scalars: &self.f.scalars,
                Levels: &mg.bits,
                ld: lv.dims,
                mo: lv.mask,
                scale: (1u32 << l) as f32,
                weights: smoother_weights(),
                mode: u32::from(!before),
                so: so,
                dso: dso,
                tso: tso,
                bo: bo,
                tiles: lv.dims.map(|v| v.div_ceil(TILE)),
                rz_sums: u32::from(l == 0 && !before),
                finish: u32::from(finish),
                Largest: &self.f.largest,
                Done: &self.f.done,
                tol: self.params.pressure_tolerance,
                prolong: u32::from(after.is_some()),
                cd: coarse.dims,
                cmo: coarse.mask,
                eo: eo,
                end_lo: ends(lo),
                end_hi: ends(hi),
                PartialSum: &self.f.partial_sum,
                open_lo: lo,
                open_hi: hi,
                Solid: &self.solid_bits,
                solids: self.solids_flag(),
            },
        );
    }

    /// The buffer an array of the levels is in, and its offset there.
    fn at(&self, a: At) -> (&Field, u32) {
        match a {
            At::Q => (&self.f.q, 0),
            At::R => (&self.f.r, 0),
            At::Cell(o) => (&self.f.cell_vel, o),
        }
    }

    /// One pass of `mg.comp` on level `l` (`other`: the level restricted from or prolonged
    /// from) with the part of it that works `op` (`Kernels::mg_for`): ops 0 to 2 and 8 several
    /// cells an invocation, or they, 3, 4, 9 and 10 in rows (`mg_rows.comp`), as `pass` says
    /// (in rows only where the level's rows are whole vec4s: its cells along x, the finer
    /// level's too for the restriction, and every array's offset multiples of four; one cell
    /// an invocation elsewhere, the same bits).
    #[allow(clippy::too_many_arguments)]
    fn mg_op(
        &self,
        pass: Pass,
        mg: &Multigrid,
        op: u32,
        l: usize,
        src: At,
        dst: At,
        b: At,
        other: usize,
        omega: f32,
    ) {
        let lv = &mg.levels[l];
        let ol = &mg.levels[other];
        let ((sb, so), (db, dso), (bb, bo)) = (self.at(src), self.at(dst), self.at(b));
        // (the restriction reads the finer level's rows as vec4s too)
        let whole_rows = lv.dims[0].is_multiple_of(ROW_CELLS)
            && (op != 3 || ol.dims[0].is_multiple_of(ROW_CELLS))
            && [so, dso, bo].iter().all(|o| o.is_multiple_of(ROW_CELLS));
        let rows = self
            .k
            .mg_rows_for(op)
            .filter(|_| pass == Pass::Rows && whole_rows);
        let k = rows.unwrap_or_else(|| self.k.mg_for(op, pass == Pass::Wide));
        // (the coarsest sweeps and the fused cycle in shared memory where their levels fit:
        // from this level's x to the coarsest's right-hand side)
        let (lbase, lspan) = mg.shared_span(l);
        let k = if (6..=7).contains(&op) && self.folds.levels_in_shared && lspan <= SHARED_FLOATS {
            self.shared_levels.set(self.shared_levels.get() + 1);
            &self.k.mg_shared
        } else {
            k
        };
        // (ops 9 and 10 are op 1 in the RZ_SUMS variant, 10 with β finished)
        let (op, finish) = match op {
            9 | 10 => (1, u32::from(op == 10)),
            op => (op, 0),
        };
        // The transfers read the other level from Dst's buffer (`mg.comp`).
        assert!(
            !(3..=4).contains(&op) || (matches!(src, At::Cell(_)) && matches!(dst, At::Cell(_))),
            "a transfer outside the cell velocity's buffer"
        );
        let (lo, hi) = self.open_flags();
        // The transfers' end weights (the CPU's), from the finer level's spacing.
        let spacing = 1usize << l.min(other);
        let ends = |open: [u32; 3]| open.map(|o| transfer_end_weight(spacing, o != 0));
        // The coarsest level's sweeps and the fused cycle run in one work group.
        // In rows an item is a row.
        let items = if (6..=7).contains(&op) {
            k.wg as usize
        } else if rows.is_some() {
            (lv.n / ROW_CELLS) as usize
        } else {
            lv.n as usize
        };
        run(
            k,
            self.dims(),
            items,
            uniform! {
                sweeps: coarsest_sweeps(mg.levels[if op == 7 { mg.levels.len() - 1 } else { l }].dims.map(|v| v as usize)),
                Table: &mg.table,
                first: l as u32,
                last: (mg.levels.len() - 1) as u32,
                weights: smoother_weights(),
                end_lo: ends(lo),
                end_hi: ends(hi),
                Src: Bound { field: sb, vec4: rows.is_some() },
                Dst: Bound { field: db, vec4: rows.is_some() },
                B: Bound { field: bb, vec4: rows.is_some() },
                Coarse: Bound { field: sb, vec4: false },
                Levels: &mg.bits,
                Scalars: &self.f.scalars,
                op: op,
                ld: lv.dims,
                cd: ol.dims,
                so: so,
                dso: dso,
                bo: bo,
                mo: lv.mask,
                cmo: ol.mask,
                scale: (1u32 << l) as f32,
                omega: omega,
                open_lo: lo,
                open_hi: hi,
                Solid: &self.solid_bits,
                solids: self.solids_flag(),
                PartialSum: &self.f.partial_sum,
                Largest: &self.f.largest,
                Done: &self.f.done,
                tol: self.params.pressure_tolerance,
                finish: finish,
                lbase: lbase,
                lspan: lspan,
            },
        );
    }
}
