//! The scalars' active region on the card (`active.comp`), as the CPU's `sim::active`: the
//! scalar advection works out only the cells within its traces' reach of anything but
//! outside air (above a cut-off of each field's largest departure from it, found the
//! sub-step before), and writes the others as outside air. Four dispatches a sub-step
//! (the figures cleared, the support, and the reach along y and along z), none of them
//! waited for: the advection reads the spans, and whether to skip at all (the velocity
//! finite, the region under nine tenths of the grid), on the card.

use glium::uniform;
use plume_core::sim::active;

use crate::engine::Engine;
use crate::fields::Field;
use crate::kernels::run;
use crate::lists::dense_from;

/// Cells along x an item of `active.comp`'s support works on (its `CHUNK`).
const CHUNK: usize = 8;

impl Engine {
    /// The advected fields with their outside values, in the CPU's order.
    fn region_fields(&self) -> Vec<(&Field, f32)> {
        let mut v = vec![(&self.f.density, 0.0)];
        if self.temp_active {
            v.push((&self.f.temperature, self.params.ambient_temperature));
        }
        if self.fire_active {
            if let (Some(fu), Some(fl)) = (&self.f.fuel, &self.f.flame) {
                v.push((fu, 0.0));
                v.push((fl, 0.0));
            }
        }
        v
    }

    /// Works out the region for a scalar advection over `k_dt` cells per unit velocity;
    /// returns where its spans are in `rows` (in rows), `None` where the region is off
    /// (`bench --dense`: every cell worked out).
    pub(crate) fn scalar_region(&mut self, k_dt: f32) -> Option<u32> {
        self.region.used = active::sparse_enabled();
        if !self.region.used {
            return None;
        }
        let d = self.grid.dims;
        let rows = (d.ny * d.nz) as u32;
        let fields = self.region_fields();
        let count = fields.len();
        let parity = self.region.parity;
        let (cut_at, out_at) = self.region.maxima_at();
        let cut = active::cuts_from(self.region.valid.map(|v| v.then_some(1.0f32)).as_ref());
        let exact: [u32; 4] = std::array::from_fn(|i| u32::from(cut[i].is_none()));
        let mut background = [0.0f32; 4];
        for (b, (_, v)) in background.iter_mut().zip(&fields) {
            *b = *v;
        }
        let field = |i: usize| fields.get(i).map_or(&self.f.density, |f| f.0);
        let (s_at, other_at, t_at, d_at) = (parity * rows, (1 - parity) * rows, 2 * rows, 3 * rows);
        // (op 0: an item a run of `CHUNK` cells along a row)
        let runs = rows as usize * d.nx.div_ceil(CHUNK);
        // Op 3 first, one item: this sub-step's maxima, the reach's velocities, the cells and
        // the flag start at 0 (on the card: a write from the host into a buffer the card
        // still reads would wait for it). Where the projection's passes left the faces'
        // maxima, its first cleared the rest (`divergence.comp`'s `clear_region`): no op 3.
        let ops = [(3u32, 1), (0, runs), (1, rows as usize), (2, rows as usize)];
        let first = usize::from(self.region.faces_top);
        for &(op, items) in &ops[first..] {
            run(
                &self.k.active,
                self.dims(),
                items,
                uniform! {
                    S0: field(0),
                    S1: field(1),
                    S2: field(2),
                    S3: field(3),
                    U: &self.f.vel[0],
                    V: &self.f.vel[1],
                    W: &self.f.vel[2],
                    Rows: &self.f.rows,
                    Active: &self.f.active,
                    op: op,
                    fields: count as u32,
                    background: background,
                    exact: exact,
                    cutoff: active::CUTOFF,
                    cut_at: cut_at,
                    out_at: out_at,
                    s_at: s_at,
                    other_at: other_at,
                    t_at: t_at,
                    d_at: d_at,
                    kt: k_dt,
                    faces_known: u32::from(self.region.faces_top),
                },
            );
        }
        for v in &mut self.region.valid[..count] {
            *v = true;
        }
        self.region.parity = 1 - parity;
        Some(d_at)
    }

    /// The share of the cells the last scalar advection worked out (the CPU's
    /// `scalar_active`): its region's, or all where it had none or worked out every cell.
    /// Read once the step's work is done, with the books.
    pub(crate) fn region_share(&mut self) -> f32 {
        if !self.region.used {
            self.region.last_share = 1.0;
            return 1.0;
        }
        let v = self.f.active.read().unwrap_or_default();
        let n = self.cells() as f64;
        let share = match (v.get(11), v.get(12)) {
            (Some(&cells), Some(&0)) if cells < dense_from(self.cells()) => {
                (f64::from(cells) / n) as f32
            }
            _ => 1.0,
        };
        self.region.last_share = share;
        share
    }
}
