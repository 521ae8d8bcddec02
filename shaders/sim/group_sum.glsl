// A work group's Σ of a double, one value an invocation, in a fixed tree (deterministic),
// into `partial_sum[at]`. Every invocation of the group must call it, those past the end
// with 0 (it waits at barriers). (`coherent`: the dispatch's last work group may finish the
// sums itself, `last_group.glsl`.)
#ifndef GROUP_SUM_GLSL
#define GROUP_SUM_GLSL
layout(std430) coherent buffer PartialSum { double partial_sum[]; };

shared double group_sums[WG];

void write_group_sum(double v, uint at) {
    uint t = gl_LocalInvocationID.x;
    group_sums[t] = v;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            group_sums[t] += group_sums[t + h];
        }
        barrier();
    }
    if (t == 0u) {
        partial_sum[at] = group_sums[0];
    }
}
#endif
