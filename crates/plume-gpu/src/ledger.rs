//! A step's books on the card (`ledger.comp`): the smoke the sources added, what left through
//! open faces, the fuel burned, the mass correction, the faces the speed limit held. The
//! stages finish their reductions into it on the card, and the mass correction is worked
//! out and applied there, so a step waits for the card only where the host must decide
//! something (the pressure solve's end, the next sub-step's length) and once at its end,
//! when the finite check's read-back has drained the card and the books are read with it.

use glium::uniform;
use plume_core::sim::solver::MASS_CORRECTION_BOUNDS;

use glium::uniforms::{AsUniformValue, Uniforms, UniformsStorage};

use crate::engine::Engine;
use crate::fields::{Field, Fields, LEDGER_SLOTS};
use crate::kernels::{run, run_reduce, Kernel};

/// The smoke the sources added (Σ, cell units).
const SOURCE_ADDED: u32 = 0;
/// The fuel burned (Σ, cell units).
const FUEL_BURNED: u32 = 2;

/// A ledger op on a reduction's partial sums: run by the reduction's last work group
/// (`reduce.glsl`'s `book`, `ledger.glsl`) where the books are kept that way, else by a
/// dispatch of `ledger.comp` after it ([`Engine::books_apart`]); the same figures.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Book {
    /// 1 + the op; 0: none (the reduction keeps no books).
    code: u32,
    slot: u32,
    /// Op 5's second reduction's partial sums, after the first's.
    groups2: u32,
    k: f32,
    fade: f32,
    swept: f64,
}

impl Book {
    /// No books kept by the reduction.
    pub const NONE: Book = Book {
        code: 0,
        slot: 0,
        groups2: 0,
        k: 0.0,
        fade: 0.0,
        swept: 0.0,
    };

    /// The ledger's `op` (see `ledger.comp`), its other figures none.
    fn op(op: u32) -> Book {
        Book {
            code: op + 1,
            ..Book::NONE
        }
    }

    /// Whether the reduction keeps these books.
    pub fn is_kept(&self) -> bool {
        self.code != 0
    }
}

/// Runs a reduction kernel (`reduce.glsl`: `reduce.comp`, `outflow.comp`) with its uniforms
/// `u` and a `book`'s (the ledger, the count of work groups done, the op and its figures),
/// as [`run_reduce`] does; returns how many partial results it wrote.
pub(crate) fn run_booked<'a, T: AsUniformValue, R: Uniforms>(
    k: &Kernel,
    dims: [u32; 3],
    items: usize,
    u: UniformsStorage<'a, T, R>,
    book: Book,
    f: &'a Fields,
) -> u32 {
    let u = u
        .add("Done", &f.done)
        .add("Ledger", &f.ledger)
        .add("book", book.code)
        .add("book_slot", book.slot)
        .add("book_groups2", book.groups2)
        .add("book_k", book.k)
        .add("book_fade", book.fade)
        .add("book_swept", book.swept)
        .add("book_bounds", MASS_CORRECTION_BOUNDS);
    run_reduce(k, dims, items, u)
}

/// What a step's books hold at its end.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Books {
    /// Σ smoke the sources and the flames added, cell units.
    pub source_added: f64,
    /// Σ smoke out through open faces, cell units.
    pub outflow: f64,
    /// Σ fuel burned, cell units.
    pub fuel_burned: f64,
    /// The last sub-step's mass correction factor.
    pub mass_correction: f32,
    /// Faces the speed limit held back.
    pub speed_limited: u64,
}

impl Engine {
    /// Clears the books for a step (queued writes: no wait).
    pub(crate) fn open_books(&self) {
        self.f.ledger.write(&[0.0f64; LEDGER_SLOTS][..]);
        self.f.counter.write(&[0u32][..]);
    }

    /// Reads the books. Called after a read-back that waited for the card (the finite
    /// check's), so the card has nothing left to do and this read waits for nothing.
    pub(crate) fn read_books(&self) -> Books {
        let v = self.f.ledger.read().unwrap_or_default();
        let held = self
            .f
            .counter
            .read()
            .ok()
            .and_then(|v| v.first().copied())
            .unwrap_or(0);
        let at = |i: usize| v.get(i).copied().unwrap_or(0.0);
        Books {
            source_added: at(SOURCE_ADDED as usize),
            outflow: at(1),
            fuel_burned: at(FUEL_BURNED as usize),
            mass_correction: at(3) as f32,
            speed_limited: u64::from(held),
        }
    }

    /// Runs `op` of `ledger.comp` on the last reduction's `groups` partial sums.
    fn ledger_op(&self, op: u32, slot: u32, k: f32, groups: u32, fade: f32, swept: f64) {
        self.ledger_run(op, [slot, groups], k, (fade, swept), &self.f.density, 1, 0);
    }

    /// A dispatch of `ledger.comp` over `items` of `field` (`groups2`: op 5's second
    /// reduction).
    #[allow(clippy::too_many_arguments)]
    fn ledger_run(
        &self,
        op: u32,
        slots: [u32; 2],
        k: f32,
        fade_swept: (f32, f64),
        field: &Field,
        items: usize,
        groups2: u32,
    ) {
        self.ledger_in(op, slots, k, fade_swept, field, items, groups2, None);
    }

    /// [`Engine::ledger_run`], op 4 scaling only the scalars' region (spans at `region`)
    /// where given. (Every call sets the region's uniforms: a program keeps the last ones.)
    #[allow(clippy::too_many_arguments)]
    fn ledger_in(
        &self,
        op: u32,
        [slot, groups]: [u32; 2],
        k: f32,
        (fade, swept): (f32, f64),
        field: &Field,
        items: usize,
        groups2: u32,
        region: Option<u32>,
    ) {
        run(
            &self.k.ledger,
            self.dims(),
            items,
            uniform! {
                PartialSum: &self.f.partial_sum,
                Ledger: &self.f.ledger,
                Field: field,
                op: op,
                slot: slot,
                groups: groups,
                groups2: groups2,
                k: k,
                fade: fade,
                swept: swept,
                bounds: MASS_CORRECTION_BOUNDS,
                Rows: &self.f.rows,
                Active: &self.f.active,
                region: u32::from(region.is_some()),
                d_at: region.unwrap_or(0),
                dense_from: crate::lists::dense_from(self.cells()),
            },
        );
    }

    /// `book` as the reduction it follows gets it: none where the books are kept apart.
    fn kept(&self, book: Book) -> Book {
        if self.folds.books_in_last_group {
            book
        } else {
            Book::NONE
        }
    }

    /// `book` run by a dispatch of `ledger.comp` on the last reduction's `groups` partial
    /// sums, where the reduction did not keep it.
    fn books_apart(&self, book: Book, groups: u32) {
        if !self.kept(book).is_kept() {
            let (op, slots) = (book.code - 1, [book.slot, groups]);
            let field = &self.f.density;
            self.ledger_run(
                op,
                slots,
                book.k,
                (book.fade, book.swept),
                field,
                1,
                book.groups2,
            );
        }
    }

    /// The smoke now, before the sources: taken from what they will have added.
    pub(crate) fn book_before_sources(&self) {
        let n = self.cells();
        let book = Book {
            slot: SOURCE_ADDED,
            k: -1.0,
            ..Book::op(0)
        };
        let f = &self.f.density;
        let groups = self.reduce_in(0, 0, f, n, None, self.kept(book));
        self.last_groups.set(groups);
        self.books_apart(book, groups);
    }

    /// The smoke before advection (kept for the mass correction; what the sources added is
    /// what it has more than before them) and this sub-step's outflow (`k_dt` cells per
    /// unit velocity): the two reductions' partial sums side by side, one dispatch of the
    /// books for both.
    /// Where a side is open both reductions are one dispatch (`outflow.comp`). Their last
    /// work group keeps the books, where they are kept that way.
    pub(crate) fn book_before_advection(&self, k_dt: f32) {
        let n = self.cells();
        // (the outflow's partial sums follow the smoke's, as many)
        let both = Book {
            groups2: crate::kernels::reduce_groups(n),
            k: 1.0,
            ..Book::op(5)
        };
        let (groups, book) = match self.outflow(k_dt, self.kept(both)) {
            Some(groups) => (groups, both),
            None => {
                let smoke = Book {
                    k: 1.0,
                    ..Book::op(5)
                };
                let f = &self.f.density;
                (self.reduce_in(0, 0, f, n, None, self.kept(smoke)), smoke)
            }
        };
        self.books_apart(book, groups);
    }

    /// The fuel burned (the last reduction's `groups` partial sums) and the smoke its
    /// flames make, `smoke` a unit of fuel.
    pub(crate) fn book_burned(&self, groups: u32, smoke: f32) {
        self.ledger_op(0, FUEL_BURNED, 1.0, groups, 0.0, 0.0);
        self.ledger_op(0, SOURCE_ADDED, smoke, groups, 0.0, 0.0);
    }

    /// The mass correction (the CPU's `correct_mass`) worked out and applied to `density`
    /// on the card: what the smoke should be (what it was before advection, plus what
    /// moving solids swept in, less the outflow, faded) against what it is.
    /// Where the scalars' region (spans at `region`) was used, only its cells are read and
    /// scaled: the others came out +0, which adds nothing and scales to itself.
    pub(crate) fn correct_mass(&self, density: &Field, fade: f32, swept: f64, region: Option<u32>) {
        let n = self.cells();
        let book = Book {
            k: 1.0,
            fade,
            swept,
            ..Book::op(3)
        };
        let groups = self.reduce_in(0, 0, density, n, region, self.kept(book));
        self.last_groups.set(groups);
        self.books_apart(book, groups);
        self.ledger_in(4, [0, 0], 1.0, (fade, swept), density, n, 0, region);
    }
}
