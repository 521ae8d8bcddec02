//! An emitter's sources on the card in one dispatch (`emit.comp`): its coverage applied to
//! the density, fuel, flame, temperature and velocity it feeds, where `cover.comp` took a
//! dispatch a field (five for a plume's smoke, heat and push).

use glium::uniform;
use plume_core::sim::Emitter;

use crate::engine::Engine;
use crate::kernels::run;
use crate::lists::{Covered, List};

impl Engine {
    /// Applies emitter `e`'s sources for a sub-step of `dt` through its coverage `c` (the
    /// velocity held within `limit`), as `cover.comp`'s modes 0 (density, fuel, flame: c·rate·dt
    /// added) and 1 (temperature, velocity: blended towards the emitter's by c) would one
    /// field at a time. The fuel and flame only where fire is active. (The caller marks
    /// the temperature in use where the emitter sets one.)
    pub(crate) fn emit(&self, c: &Covered, e: &Emitter, dt: f32, limit: f32) {
        let [cells, fu, fv, fw] = &c.0;
        // (a list that is not there binds one that is: its length is 0)
        let Some(any) = c.0.iter().flatten().next() else {
            return;
        };
        let [l0, l1, l2, l3] = [cells, fu, fv, fw].map(|l| l.as_ref().unwrap_or(any));
        let f = &self.f;
        let (fuel, flame) = (self.fire_field(0), self.fire_field(1));
        let density = e.density * dt;
        let (fuel_add, flame_add) = (e.fuel * dt, e.flame * dt);
        let cells_on = [
            e.density > 0.0,
            fuel_add > 0.0 && fuel.is_some(),
            flame_add > 0.0 && flame.is_some(),
            e.temperature.is_some(),
        ];
        let faces_on = e.velocity.is_some();
        let len = |l: &Option<List>, on: bool| {
            if on {
                l.as_ref().map_or(0, |l| l.len)
            } else {
                0
            }
        };
        let lens = [
            len(cells, cells_on.iter().any(|&o| o)),
            len(fu, faces_on),
            len(fv, faces_on),
            len(fw, faces_on),
        ];
        let items: usize = lens.iter().sum();
        let velocity = e
            .velocity
            .unwrap_or([0.0; 3])
            .map(|v| v.clamp(-limit, limit));
        run(
            &self.k.emit,
            self.dims(),
            items,
            uniform! {
                Index0: &l0.index,
                Weight0: &l0.weight,
                Index1: &l1.index,
                Weight1: &l1.weight,
                Index2: &l2.index,
                Weight2: &l2.weight,
                Index3: &l3.index,
                Weight3: &l3.weight,
                F0: &f.density,
                F1: fuel.unwrap_or(&f.density),
                F2: flame.unwrap_or(&f.density),
                F3: &f.temperature,
                U: &f.vel[0],
                V: &f.vel[1],
                W: &f.vel[2],
                lens: lens.map(|l| l as u32),
                cells_on: cells_on.map(u32::from),
                cells_amount: [density, fuel_add, flame_add, e.temperature.unwrap_or(0.0)],
                faces_on: [u32::from(faces_on); 3],
                faces_amount: velocity,
            },
        );
    }
}
