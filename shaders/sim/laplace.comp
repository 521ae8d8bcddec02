// out = A·x for the pressure operator, or with `residual` set out = b − A·x and its
// largest |value| (as a float's bits, NaN above infinity) merged into `largest[0]`.
// Without `residual` it is an iteration of the solve: each work group also writes its
// Σ x·(A·x) (p·q, for α) to PartialSum at its number, and it does nothing once the solve
// has converged (Scalars[4]: the card decides; a batch's later iterations change nothing).
// Compiled with DIRECTION, an iteration's new search direction comes first, in the same
// pass: x is the last direction p and Z the preconditioned residual z, each value the
// stencil reads is p' = z + β·p (z where β is 0: the first direction), as `cg_step.comp`'s
// phase 1 works it out, p' is written to PNew (each cell its own; another array than X, as
// the neighbours still read X) and out = A·p'. One pass over the grid instead of two.
// In the byte model an iteration's A·p reads x and writes the result (b is not read), with
// DIRECTION it reads p and z and writes p' and the result; the residual reads all three.
// bytes when residual=0 direction=1: X r, Z r, PNew w, Out w
// bytes when residual=0: X r, Out w
// bytes: X r, B r, Out w
layout(std430) readonly buffer X { float x[]; };
layout(std430) readonly buffer B { float b[]; };
layout(std430) writeonly buffer Out { float result[]; };
layout(std430) readonly buffer Scalars { double scalars[]; };
#ifdef DIRECTION
layout(std430) readonly buffer Z { float z[]; };
layout(std430) writeonly buffer PNew { float p_new[]; };
#endif

uniform uint residual;
uniform uint direction;  // 1 in the DIRECTION variant (for the byte model)

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

void main() {
    uint n = gid();
    if (residual == 0u) {
        // (the same for every invocation: none is left waiting at a barrier)
        if (scalars[4] != 0.0) {
            return;
        }
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
}
