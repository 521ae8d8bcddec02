// A step's books, kept on the card so that the host reads them once, at the end of the step,
// instead of waiting for the card at every stage. Each op but 4 runs on item 0 only and
// finishes the last reduction's partial sums (`groups` of them, in a fixed order: the
// host's order, the same result every run; `ledger.glsl`, which the reduction's own last
// work group runs instead where it keeps the books itself, `reduce.glsl`'s `book`).
// Slots: [0] smoke the sources added, [1] smoke out through open faces, [2] fuel burned
// (Σ, cell units), [3] the last mass correction factor, [4] this sub-step's smoke before
// advection, [5] this sub-step's outflow, [6] the factor to apply now.
// op 0: [slot] += k·Σ. op 1: [4] = Σ, [0] += Σ. op 2: [5] = Σ, [1] += Σ.
// op 3: the mass correction (the CPU's `correct_mass`): Σ is the smoke now; the target is
// fade·max([4] + swept − [5], 0); the factor target/Σ, within `bounds` (the CPU's), 1
// where either is 0, into [6] and [3]. op 4 (every item): Field ×= [6], unless it is 1.
// op 5: ops 1 and 2 in one, from two reductions side by side: the first `groups` partial
// sums are op 1's, the `groups2` after them op 2's.
// In the byte model op 4 reads and writes the field; the others finish partial sums.
// bytes when op=4: Field rw
// bytes: none
layout(std430) readonly buffer PartialSum { double partial_sum[]; };
layout(std430) buffer Field { float field[]; };

uniform uint op;
uniform uint slot;
uniform uint groups;
uniform uint groups2;
uniform float k;
uniform float fade;
uniform double swept;
uniform dvec2 bounds;

#include "ledger.glsl"
// (op 4 scales only the scalars' region, where it is given: the cells outside hold +0)
#include "region.glsl"

void main() {
    uint n = gid();
    if (op == 4u) {
        // (the cells outside the scalars' region hold +0, which scaling keeps)
        float f = float(ledger[6]);
        if (n < count && f != 1.0 && in_region(n)) {
            field[n] *= f;
        }
        return;
    }
    if (n == 0u) {
        keep_books(op, slot, groups, groups2, k, fade, swept, bounds);
    }
}
