// A step's books (the slots and ops: see `ledger.comp`) from the last reduction's partial
// sums, from 0: `groups` of them (and op 5's second reduction's `groups2` after them),
// summed by one invocation in their order, the same result every run. Run by
// `ledger.comp`'s item 0, or by invocation 0 of the reduction's last work group
// (`reduce.glsl`'s `book`, `last_group.glsl`): the same bits. Needs the block
// PartialSum { double partial_sum[]; } declared before it (readable).
#ifndef LEDGER_GLSL
#define LEDGER_GLSL
layout(std430) buffer Ledger { double ledger[]; };
// (the partial sums eight read at once: 32 waits in turn for a reduction's 256, where the
// books' one invocation left the rest of its work group idle; on an H200 the smoke's
// reductions with books took 293 and 341 µs at 256³ where the residual's without them took
// 163, 2026-11-28)
#include "partial_sum.glsl"

void keep_books(uint op, uint slot, uint groups, uint groups2, float k, float fade,
    double swept, dvec2 bounds) {
    double s = sum_in_order(0u, groups, 1u);
    if (op == 5u) {
        double o = sum_in_order(groups, groups + groups2, 1u);
        ledger[4] = s;
        ledger[0] += s;
        ledger[5] = o;
        ledger[1] += o;
    } else if (op == 0u) {
        ledger[slot] += double(k) * s;
    } else if (op == 1u) {
        ledger[4] = s;
        ledger[0] += s;
    } else if (op == 2u) {
        ledger[5] = s;
        ledger[1] += s;
    } else if (op == 3u) {
        double target = double(fade) * max(ledger[4] + swept - ledger[5], 0.0lf);
        float f = 1.0;
        if (s > 0.0 && target > 0.0) {
            f = float(clamp(target / s, bounds.x, bounds.y));
        }
        ledger[6] = double(f);
        ledger[3] = double(f);
    }
}
#endif
