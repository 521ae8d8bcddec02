// The vector updates of conjugate gradients. phase 0: x += α·p, r −= α·q, and the new
// residual's largest |value| merged into `largest[0]` (for the check that follows). phase
// 1: p = z + β·p, z being M·r in Q (multigrid) or r / diagonal (Jacobi, worked out here,
// not kept). phase 2: the fluid cells' mean back where it was (a closed domain;
// Scalars[10]). Where there was nothing to solve (Scalars[11]), phase 0 sets x = 0; once
// the solve has converged (Scalars[4]) phases 0 and 1 do nothing. α, β and the mean come
// from the Scalars block (worked out on the card). With `finish` phase 0's last work group
// (`last_group.glsl`) checks the residual (op 6) as `cg_scalars.comp` would next.
// In the byte model (crates/plume-gpu/src/bytes.rs): phase 0 reads x, p, r and q and
// writes x and r; phase 1 reads z (in Q, or r for Jacobi) and p and writes p; phase 2
// reads and writes x.
// bytes when phase=0: X rw, R rw, P r, Q r
// bytes when phase=1 precond=1: Q r, P rw
// bytes when phase=1 precond=0: R r, P rw
// bytes when phase=2: X rw
layout(std430) buffer X { float x[]; };
layout(std430) buffer R { float r[]; };
layout(std430) buffer P { float pdir[]; };
layout(std430) readonly buffer Q { float q[]; };
layout(std430) buffer Scalars { double scalars[]; };

uniform uint phase;
uniform uint precond;   // 1: z = M·r is in Q (multigrid); 0: z = r / diagonal (Jacobi)

#include "pressure.glsl"
#include "group_max.glsl"
#include "last_group.glsl"
#include "cg_figures.glsl"

uniform uint finish;    // 1 (phase 0): the last work group finishes op 6

// (PER cells an invocation where the host compiled it so: cells.glsl)
#include "cells.glsl"

void main() {
    if (phase == 2u) {
        for (int k = 0; k < PER; k++) {
            uint n = cell_of(k);
            if (n < count && !solid_at(n)) {
                x[n] += float(scalars[10]);
            }
        }
        return;
    }
    bool converged = scalars[4] != 0.0;
    if (phase == 1u) {
        if (converged) {
            return;
        }
        float beta = float(scalars[3]);
        float zs[PER];
        float ps[PER];
        for (int k = 0; k < PER; k++) {
            uint n = cell_of(k);
            zs[k] = 0.0;
            ps[k] = 0.0;
            if (n < count) {
                if (precond != 0u) {
                    zs[k] = q[n];
                } else {
                    float d = diagonal(coords(dims, n));
                    zs[k] = d > 0.0 ? r[n] / d : 0.0;
                }
                // The first direction is z itself (whatever p held, NaN too, is not read).
                if (beta != 0.0) {
                    ps[k] = pdir[n];
                }
            }
        }
        for (int k = 0; k < PER; k++) {
            uint n = cell_of(k);
            if (n < count) {
                precise float pn = beta == 0.0 ? zs[k] : zs[k] + beta * ps[k];
                pdir[n] = pn;
            }
        }
        return;
    }
    // Nothing to solve (max|rhs| 0 or not finite): no pressure, as the CPU's (every solve
    // runs this phase at least once). The same for every invocation, as is `converged`.
    uint bm = uint(scalars[11]);
    if (bm == 0u || bm >= 0x7f800000u) {
        for (int k = 0; k < PER; k++) {
            uint n = cell_of(k);
            if (n < count) {
                x[n] = 0.0;
            }
        }
        return;
    }
    if (converged) {
        return;
    }
    uint bits = 0u;
    float alpha = float(scalars[2]);
    float xs[PER];
    float ps[PER];
    float rs[PER];
    float qs[PER];
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        xs[k] = 0.0;
        ps[k] = 0.0;
        rs[k] = 0.0;
        qs[k] = 0.0;
        if (n < count) {
            xs[k] = x[n];
            ps[k] = pdir[n];
            rs[k] = r[n];
            qs[k] = q[n];
        }
    }
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        if (n < count) {
            // (`precise`: no multiply-add, so the same bits one cell an invocation or four;
            // NVIDIA's compiler fused the two differently)
            precise float xn = xs[k] + alpha * ps[k];
            x[n] = xn;
            precise float v = rs[k] - alpha * qs[k];
            r[n] = v;
            bits = max(bits, floatBitsToUint(v) & 0x7fffffffu);
        }
    }
    merge_largest(bits);
    if (LAST_GROUP_ON && finish != 0u && last_group(gl_NumWorkGroups.x * gl_NumWorkGroups.y)) {
        if (gl_LocalInvocationID.x == 0u) {
            cg_figures(6u, 0.0lf, 0u, atomicMax(largest[0], 0u));
        }
    }
}
