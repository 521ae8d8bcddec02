//! The reductions on the card (`reduce.comp`, `outflow.comp`, `reduce_fields.comp`): Σ and
//! the largest |value| of fields, as partial results a work group, finished on the card (the
//! conjugate gradients, the books) or read back and finished here in a fixed order.

use glium::uniform;

use crate::engine::Engine;
use crate::fields::Field;
use crate::kernels::{reduce_groups, REDUCE_GROUPS};
use crate::ledger::{run_booked, Book};
use crate::lists::Reduced;

impl Engine {
    /// Σ and the largest |value| of the first `n` values of `a` (mode 0) or of Σ a²/diagonal
    /// (mode 2); partial results stay on the card when `read` is false (the conjugate
    /// gradients finish them there).
    pub fn reduce(&self, mode: u32, a: &Field, n: usize, read: bool) -> Option<Reduced> {
        let groups = self.reduce_at(0, mode, a, n);
        self.last_groups.set(groups);
        read.then(|| self.read_partials(groups))
    }

    /// Σ and the largest |value| of each field's first `n` values (mode 0), in one read-back
    /// (the finite check, the largest speed: one wait for the card instead of one a field).
    pub fn reduce_all(&self, fields: &[(&Field, usize)]) -> Vec<Reduced> {
        fields
            .chunks(crate::fields::AT_ONCE as usize)
            .flat_map(|c| self.reduce_together(c))
            .collect()
    }

    /// [`Engine::reduce_all`] of at most [`crate::fields::AT_ONCE`] fields: their partial
    /// results side by side, read back at once.
    fn reduce_together(&self, fields: &[(&Field, usize)]) -> Vec<Reduced> {
        let spans = self.reduce_side_by_side(fields);
        self.read_spans(spans)
    }

    /// Runs the reductions of at most [`crate::fields::AT_ONCE`] fields in one dispatch
    /// (`reduce_fields.comp`: a row of work groups a field, each as `reduce.comp` alone),
    /// their partial results side by side; returns where each one's are, for
    /// [`Engine::read_spans`].
    pub(crate) fn reduce_side_by_side(
        &self,
        fields: &[(&Field, usize)],
    ) -> Vec<std::ops::Range<usize>> {
        debug_assert!(fields.len() <= crate::fields::AT_ONCE as usize);
        let Some(&(first, _)) = fields.first() else {
            return Vec::new();
        };
        let mut spans = Vec::with_capacity(fields.len());
        let (mut counts, mut bases) = ([0u32; 8], [0u32; 8]);
        let mut base = 0u32;
        for (i, (_, n)) in fields.iter().enumerate() {
            let groups = reduce_groups(*n);
            (counts[i], bases[i]) = (*n as u32, base);
            spans.push(base as usize..(base + groups) as usize);
            base += groups;
        }
        let field = |i: usize| fields.get(i).map_or(first, |f| f.0);
        let quad = |v: &[u32; 8], at: usize| [v[at], v[at + 1], v[at + 2], v[at + 3]];
        let rows = fields.len() as u32;
        let most = fields.iter().map(|f| reduce_groups(f.1)).max().unwrap_or(1);
        let k = &self.k.reduce_fields;
        let items: usize = fields.iter().map(|f| f.1).sum();
        let u = uniform! {
            F0: field(0),
            F1: field(1),
            F2: field(2),
            F3: field(3),
            F4: field(4),
            F5: field(5),
            F6: field(6),
            F7: field(7),
            counts_lo: quad(&counts, 0),
            counts_hi: quad(&counts, 4),
            bases_lo: quad(&bases, 0),
            bases_hi: quad(&bases, 4),
            max_groups: REDUCE_GROUPS,
            PartialSum: &self.f.partial_sum,
            PartialMax: &self.f.partial_max,
            dims: self.dims(),
        };
        let bytes = k.bytes_of(items, self.dims(), &u);
        k.dispatch(items, bytes, || k.execute(u, most, rows, 1));
        spans
    }

    /// The partial results `0..end` of the reductions just run, read back at once, finished
    /// (in a fixed order) for each span of them.
    pub(crate) fn read_spans(&self, spans: Vec<std::ops::Range<usize>>) -> Vec<Reduced> {
        let len = spans.iter().map(|r| r.end).max().unwrap_or(0);
        let sums = self
            .f
            .partial_sum
            .slice(0..len)
            .map_or_else(Vec::new, |s| s.read().unwrap_or_default());
        let maxes = self
            .f
            .partial_max
            .slice(0..len)
            .map_or_else(Vec::new, |s| s.read().unwrap_or_default());
        self.count_small(len * 12);
        spans
            .into_iter()
            .map(|r| Reduced {
                sum: sums.get(r.clone()).map_or(0.0, |s| s.iter().sum()),
                max_bits: maxes
                    .get(r)
                    .and_then(|m| m.iter().copied().max())
                    .unwrap_or(0),
            })
            .collect()
    }

    /// Runs a reduction writing its partial results from `base` on; returns how many.
    pub(crate) fn reduce_at(&self, base: u32, mode: u32, a: &Field, n: usize) -> u32 {
        self.reduce_in(base, mode, a, n, None, Book::NONE)
    }

    /// [`Engine::reduce_at`] of the advected density, reading only the scalars' region
    /// whose spans are at `region` (the cells outside hold +0: the same sums), where given.
    /// (Every call sets the region's uniforms: a program keeps the last ones it was given.)
    /// With a `book` its last work group keeps the books from its partial sums (from 0).
    pub(crate) fn reduce_in(
        &self,
        base: u32,
        mode: u32,
        a: &Field,
        n: usize,
        region: Option<u32>,
        book: Book,
    ) -> u32 {
        debug_assert!(!book.is_kept() || base == 0, "books from partial sums at 0");
        let (lo, hi) = self.open_flags();
        run_booked(
            &self.k.reduce,
            self.dims(),
            n,
            uniform! {
                A: a,
                PartialSum: &self.f.partial_sum,
                PartialMax: &self.f.partial_max,
                base: base,
                mode: mode,
                open_lo: lo,
                open_hi: hi,
                Solid: &self.solid_bits,
                solids: self.solids_flag(),
                Rows: &self.f.rows,
                Active: &self.f.active,
                region: u32::from(region.is_some()),
                d_at: region.unwrap_or(0),
                dense_from: crate::lists::dense_from(n),
            },
            book,
            &self.f,
        )
    }

    /// The partial results of the last reduction, finished here (in a fixed order).
    pub fn read_partials(&self, groups: u32) -> Reduced {
        let all = 0..groups as usize;
        let mut one = self.read_spans(vec![all]);
        one.pop().unwrap_or(Reduced {
            sum: 0.0,
            max_bits: 0,
        })
    }
}
