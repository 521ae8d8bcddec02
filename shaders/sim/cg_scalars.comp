// Finishes a dot product of conjugate gradients from the partial sums of a reduction or
// of the kernel that worked out its terms, and the figures of `cg_figures.glsl` (its `op`),
// in one work group of REDUCE_WG: the same order, and so the same result, every run and as
// the last work group of that kernel gives where it finishes them itself (`last_group.glsl`:
// the divergence's RESIDUAL pass op 0, the residual's Laplacian op 0, an iteration's
// Laplacian op 1, the V-cycle's last sweep by tiles op 2, the update op 6). With
// `residual_groups`, op 0's starting residual was worked out in the divergence's pass (its
// RESIDUAL variant): its largest |value| is finished from the partial maxima after the
// right-hand side's (at `groups`), not read from `largest[0]`.
layout(std430) readonly buffer PartialSum { double partial_sum[]; };
layout(std430) readonly buffer PartialMax { uint partial_max[]; };
layout(std430) buffer Scalars { double scalars[]; };
layout(std430) buffer Largest { uint largest[]; };

uniform uint op;
uniform uint groups;
uniform uint residual_groups;  // op 0: see above (0: the residual's maximum in largest[0])

#include "cg_sum.glsl"
#include "partial_top.glsl"
#include "cg_figures.glsl"

void main() {
    double s = cg_sum(groups);
    uint m = partial_top(0u, groups);
    uint mr = partial_top(groups, residual_groups);
    if (gl_LocalInvocationID.x == 0u) {
        cg_figures(op, s, m, residual_groups != 0u ? mr : largest[0]);
    }
}
