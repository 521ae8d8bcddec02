// A work group's Σ of a double, one value an invocation, in a fixed tree (deterministic),
// into `partial_sum[at]`. Every invocation of the group must call it, those past the end
// with 0 (it waits at barriers). (`coherent`: the dispatch's last work group may finish the
// sums itself, `last_group.glsl`.)
// With SUM_PER defined (values an invocation), `write_group_sums` takes that many, invocation
// t's at the tree's slots SUM_PER·t to SUM_PER·t + SUM_PER − 1: the same tree over WG·SUM_PER
// slots as a group of WG·SUM_PER invocations of one value each makes, so the same bits
// (`mg_rows.comp`'s rows of four against `mg.comp`'s cell an invocation).
#ifndef GROUP_SUM_GLSL
#define GROUP_SUM_GLSL
#ifndef SUM_PER
#define SUM_PER 1
#endif
layout(std430) coherent buffer PartialSum { double partial_sum[]; };

shared double group_sums[WG * SUM_PER];

void write_group_sums(double v[SUM_PER], uint at) {
    uint t = gl_LocalInvocationID.x;
    for (uint k = 0u; k < uint(SUM_PER); k++) {
        group_sums[uint(SUM_PER) * t + k] = v[k];
    }
    barrier();
    for (uint h = uint(WG * SUM_PER) / 2u; h > 0u; h /= 2u) {
        for (uint i = t; i < h; i += uint(WG)) {
            group_sums[i] += group_sums[i + h];
        }
        barrier();
    }
    if (t == 0u) {
        partial_sum[at] = group_sums[0];
    }
}

#if SUM_PER == 1
void write_group_sum(double v, uint at) {
    write_group_sums(double[1](v), at);
}
#endif
#endif
