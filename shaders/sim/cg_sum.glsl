// A dot product of conjugate gradients finished from its `groups` partial sums in
// PartialSum (declared before it, readable), in one fixed order whatever the work group's
// size: REDUCE_WG lanes, lane l summing the partial sums l, l + REDUCE_WG, … in turn, then
// a tree over the lanes. So `cg_scalars.comp` (a group of REDUCE_WG) and the last work
// group of the kernel that wrote the partial sums (`last_group.glsl`) give the same bits.
// Every invocation of the group must call it (it waits at barriers); each gets the Σ.
#ifndef CG_SUM_GLSL
#define CG_SUM_GLSL
#include "partial_sum.glsl"
shared double cg_lanes[REDUCE_WG];

double cg_sum(uint groups) {
    uint t = gl_LocalInvocationID.x;
    for (uint l = t; l < uint(REDUCE_WG); l += uint(WG)) {
        // (a 256³ solve's Laplacian leaves 65 536 partial sums)
        cg_lanes[l] = sum_in_order(l, groups, uint(REDUCE_WG));
    }
    barrier();
    for (uint h = uint(REDUCE_WG) / 2u; h > 0u; h /= 2u) {
        for (uint l = t; l < h; l += uint(WG)) {
            cg_lanes[l] += cg_lanes[l + h];
        }
        barrier();
    }
    double s = cg_lanes[0];
    // (before a next call overwrites it)
    barrier();
    return s;
}
#endif
