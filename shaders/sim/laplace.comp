// out = A·x for the pressure operator, or with `residual` set out = b − A·x and its
// largest |value| (as a float's bits, NaN above infinity) merged into `largest[0]`.
// Without `residual` it is an iteration of the solve: each work group also writes its
// Σ x·(A·x) (p·q, for α) to PartialSum at its number, and it does nothing once the solve
// has converged (Scalars[4]: the card decides; a batch's later iterations change nothing).
// Compiled with RESIDUAL it is the residual (`residual` 1), else an iteration (0).
// Compiled with DIRECTION, an iteration's new search direction comes first, in the same
// pass: x is the last direction p and Z the preconditioned residual z, each value the
// stencil reads is p' = z + β·p (z where β is 0: the first direction), as `cg_step.comp`'s
// phase 1 works it out, p' is written to PNew (each cell its own; another array than X, as
// the neighbours still read X) and out = A·p'. One pass over the grid instead of two.
// With `finish` the dispatch's last work group (`last_group.glsl`) finishes what
// `cg_scalars.comp` would next: an iteration's op 1 (α, from the groups' p·q; once
// converged, from the partial sums there were, as that dispatch reads them), or after the
// residual op 0 (the right-hand side's largest |value| from `fin_groups` partial maxima of
// its reduction, the residual's from `largest[0]`): a dispatch fewer.
// In the byte model an iteration's A·p reads x and writes the result (b is not read), with
// DIRECTION it reads p and z and writes p' and the result; the residual reads all three.
// bytes when residual=0 direction=1: X r, Z r, PNew w, Out w
// bytes when residual=0: X r, Out w
// bytes: X r, B r, Out w
layout(std430) readonly buffer X { float x[]; };
layout(std430) readonly buffer B { float b[]; };
layout(std430) writeonly buffer Out { float result[]; };
layout(std430) buffer Scalars { double scalars[]; };
layout(std430) readonly buffer PartialMax { uint partial_max[]; };
#ifdef DIRECTION
layout(std430) readonly buffer Z { float z[]; };
layout(std430) writeonly buffer PNew { float p_new[]; };
#endif

// The residual (once a solve) is compiled on its own (RESIDUAL), so that an iteration's
// pass does not carry its code's registers (a program takes those of its widest path).
uniform uint residual;   // 1 in the RESIDUAL variant (for the byte model)
#ifdef RESIDUAL
const bool RESIDUAL_PASS = true;
#else
const bool RESIDUAL_PASS = false;
#endif
uniform uint direction;  // 1 in the DIRECTION variant (for the byte model)
uniform uint finish;     // 1: the last work group finishes op 1 (or op 0 after the residual)
uniform uint fin_groups; // op 0: the right-hand side's partial maxima

#ifdef DIRECTION
// β, read once (set in main).
float beta;

// The new direction at cell m.
float value(uint m) {
    precise float v = beta == 0.0 ? z[m] : z[m] + beta * x[m];
    return v;
}
#else
float value(uint m) {
    return x[m];
}
#endif

#define STENCIL_VALUE value
#include "pressure.glsl"
#include "group_max.glsl"
#include "group_sum.glsl"
#include "last_group.glsl"
#include "cg_sum.glsl"
#include "partial_top.glsl"
#include "cg_figures.glsl"

void main() {
    uint n = gid();
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    if (!RESIDUAL_PASS) {
        // (the same for every invocation: none is left waiting at a barrier)
        if (scalars[4] == 0.0) {
#ifdef DIRECTION
            beta = float(scalars[3]);
#endif
            double pq = 0.0;
            if (n < count) {
                float v = apply(n);
                result[n] = v;
                float pn = value(n);
#ifdef DIRECTION
                p_new[n] = pn;
#endif
                pq = double(pn) * double(v);
            }
            write_group_sum(pq, gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
        }
        finish_dot(1u, groups, finish != 0u);
        return;
    }
    uint bits = 0u;
    if (n < count) {
        // (b is r, read by each cell before it writes it)
        float v = b[n] - apply(n);
        result[n] = v;
        bits = floatBitsToUint(v) & 0x7fffffffu;
    }
    merge_largest(bits);
    if (LAST_GROUP_ON && finish != 0u && last_group(groups)) {
        uint m = partial_top(0u, fin_groups);
        if (gl_LocalInvocationID.x == 0u) {
            cg_figures(0u, 0.0lf, m, atomicMax(largest[0], 0u));
        }
    }
}
