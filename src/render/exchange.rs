//! The volume's textures handed between the renderer and the GPU solver, which run on two
//! threads with two OpenGL contexts of one share group. The renderer makes a few sets of 3D
//! textures (density, and temperature with flame where something burns) in its context and
//! owns them; the solver's kernels write a free set on the card, the snapshot names it, and
//! the renderer draws it. No set is written while it may be drawn: a set is free again only
//! once the renderer has finished every frame that drew it.

use crate::sim::Dims;
use plume_gpu::VolumeTextures;
use std::sync::Mutex;

/// Sets the renderer makes: one shown, one published and not yet taken, one being written.
pub const SETS: usize = 3;

/// What the solver needs sets of: the grid's size, and whether the heat texture too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Want {
    /// The grid.
    pub dims: Dims,
    /// Temperature and flame as well (something burns).
    pub heat: bool,
}

/// Where a set is in its round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetState {
    /// The solver may write it.
    Free,
    /// The solver is writing it.
    Writing,
    /// Written and named by a snapshot the window has not yet taken.
    Ready,
    /// The window draws it.
    Shown,
    /// The window drew it until it took a newer set; free once that frame has finished.
    Retired,
}

#[derive(Debug, Default)]
struct Inner {
    want: Option<Want>,
    /// The sets on offer, made for `made`.
    sets: Vec<(VolumeTextures, SetState)>,
    made: Option<Want>,
    /// Sets the window could not make (no memory left on the card for them).
    refused: Option<Want>,
    kelvin_per_unit: f32,
    needs: Option<crate::frame::Select>,
}

/// The hand-over of the volume's textures (see the module's text).
#[derive(Debug, Default)]
pub struct VolumeExchange {
    inner: Mutex<Inner>,
}

impl VolumeExchange {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind; keep using it.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The solver's side: asks for sets matching `want` and takes a free one to write,
    /// with the renderer's kelvin per unit of temperature; `None` while the renderer has
    /// none free of that kind (it makes them on its next frame).
    pub fn take_free(&self, want: Want) -> Option<(usize, VolumeTextures, f32)> {
        let mut g = self.lock();
        g.want = Some(want);
        if g.refused == Some(want) {
            return None;
        }
        if g.made != Some(want) {
            return None;
        }
        let kelvin = g.kelvin_per_unit;
        let (i, set) = g
            .sets
            .iter_mut()
            .enumerate()
            .find(|(_, s)| s.1 == SetState::Free)?;
        set.1 = SetState::Writing;
        Some((i, set.0, kelvin))
    }

    /// The solver's side: set `i` is written (`ok`) and about to be named by a snapshot, or
    /// not written after all.
    pub fn written(&self, i: usize, ok: bool) {
        self.set(
            i,
            SetState::Writing,
            if ok { SetState::Ready } else { SetState::Free },
        );
    }

    /// Set `i` was published but its snapshot was replaced before the window took it.
    pub fn dropped(&self, i: usize) {
        self.set(i, SetState::Ready, SetState::Free);
    }

    /// The window's side, under the lock it takes snapshots with: it draws set `i` from now
    /// on; the set it drew before is retired.
    pub fn show(&self, i: usize) {
        let mut g = self.lock();
        for s in &mut g.sets {
            if s.1 == SetState::Shown {
                s.1 = SetState::Retired;
            }
        }
        if let Some(s) = g.sets.get_mut(i) {
            if s.1 == SetState::Ready {
                s.1 = SetState::Shown;
            }
        }
    }

    /// The window's side: every frame that drew a retired set has finished on the card.
    pub fn retired_finished(&self) {
        let mut g = self.lock();
        for s in &mut g.sets {
            if s.1 == SetState::Retired {
                s.1 = SetState::Free;
            }
        }
    }

    /// The window's side: the sets the solver wants, when they differ from those made and
    /// none is being written (the renderer then makes new ones and [`VolumeExchange::offer`]s
    /// them).
    pub fn wanted(&self) -> Option<Want> {
        let g = self.lock();
        let busy = g.sets.iter().any(|s| s.1 == SetState::Writing);
        match g.want {
            Some(w) if g.made != Some(w) && g.refused != Some(w) && !busy => Some(w),
            _ => None,
        }
    }

    /// The window's side: new sets made for `want`, all free (the old ones are gone).
    pub fn offer(&self, want: Want, sets: Vec<VolumeTextures>) {
        let mut g = self.lock();
        g.sets = sets.into_iter().map(|t| (t, SetState::Free)).collect();
        g.made = Some(want);
    }

    /// The window's side: it could not make sets for `want`; the solver's frames carry the
    /// fields instead until it wants another kind.
    pub fn refuse(&self, want: Want) {
        let mut g = self.lock();
        g.refused = Some(want);
        g.sets.clear();
        g.made = None;
    }

    /// Whether the window could not make the sets the solver wants (see
    /// [`VolumeExchange::refuse`]).
    pub fn refused(&self, want: Want) -> bool {
        self.lock().refused == Some(want)
    }

    /// The window's side: the kelvin per unit of temperature the flame's light is summed at.
    pub fn set_kelvin_per_unit(&self, k: f32) {
        self.lock().kelvin_per_unit = k;
    }

    /// The window's side: what its panels need frames to carry; whether that changed.
    pub fn set_needs(&self, n: crate::frame::Select) -> bool {
        let mut g = self.lock();
        let changed = g.needs != Some(n);
        g.needs = Some(n);
        changed
    }

    /// Each set's state (for tests and the statistics).
    pub fn states(&self) -> Vec<SetState> {
        self.lock().sets.iter().map(|s| s.1).collect()
    }

    fn set(&self, i: usize, from: SetState, to: SetState) {
        if let Some(s) = self.lock().sets.get_mut(i) {
            if s.1 == from {
                s.1 = to;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex(i: u32) -> VolumeTextures {
        VolumeTextures {
            dims: Dims::cube(8),
            density: i,
            heat: None,
        }
    }

    #[test]
    fn a_set_is_never_written_while_it_may_be_drawn() {
        let x = VolumeExchange::default();
        let want = Want {
            dims: Dims::cube(8),
            heat: false,
        };
        // Nothing made yet: the solver asks, the window makes.
        assert!(x.take_free(want).is_none());
        assert_eq!(x.wanted(), Some(want));
        x.offer(want, (1..=SETS as u32).map(tex).collect());
        assert_eq!(x.wanted(), None);
        let (a, _, _) = x.take_free(want).expect("a free set");
        x.written(a, true);
        x.show(a);
        // Two more written and shown in turn: the first is retired, not free, until the
        // window's frames that drew it have finished.
        let (b, _, _) = x.take_free(want).expect("second");
        assert_ne!(a, b);
        x.written(b, true);
        x.show(b);
        assert_eq!(x.states()[a], SetState::Retired);
        let (c, _, _) = x.take_free(want).expect("third");
        assert!(c != a && c != b);
        x.written(c, true);
        assert!(x.take_free(want).is_none(), "every set is in use");
        x.retired_finished();
        assert_eq!(x.take_free(want).map(|t| t.0), Some(a));
        // A snapshot replaced before the window took it frees its set.
        x.dropped(c);
        assert_eq!(x.states()[c], SetState::Free);
        // A new size is made only once nothing is being written.
        let bigger = Want {
            dims: Dims::cube(16),
            heat: true,
        };
        assert!(x.take_free(bigger).is_none());
        assert_eq!(x.wanted(), None, "set a is still being written");
        x.written(a, false);
        assert_eq!(x.wanted(), Some(bigger));
        // Sets the window cannot make: the solver stops asking (its frames carry the fields).
        x.refuse(bigger);
        assert!(x.refused(bigger) && x.take_free(bigger).is_none());
        assert_eq!(x.wanted(), None);
        assert!(x.take_free(want).is_none() && !x.refused(want));
        assert_eq!(x.wanted(), Some(want), "another kind is asked for again");
    }
}
