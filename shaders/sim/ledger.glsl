// A step's books (the slots and ops: see `ledger.comp`) from the last reduction's partial
// sums, from 0: `groups` of them (and op 5's second reduction's `groups2` after them),
// summed by one invocation in their order, the same result every run. Run by
// `ledger.comp`'s item 0, or by invocation 0 of the reduction's last work group
// (`reduce.glsl`'s `book`, `last_group.glsl`): the same bits. Needs the block
// PartialSum { double partial_sum[]; } declared before it (readable).
#ifndef LEDGER_GLSL
#define LEDGER_GLSL
layout(std430) buffer Ledger { double ledger[]; };

void keep_books(uint op, uint slot, uint groups, uint groups2, float k, float fade,
    double swept, dvec2 bounds) {
    double s = 0.0;
    for (uint g = 0u; g < groups; g++) {
        s += partial_sum[g];
    }
    if (op == 5u) {
        double o = 0.0;
        for (uint g = groups; g < groups + groups2; g++) {
            o += partial_sum[g];
        }
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
