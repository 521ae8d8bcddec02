// The vector updates of conjugate gradients preconditioned with the diagonal (Jacobi; the
// preconditioned residual z = r / diagonal is worked out where it is needed, not kept).
// phase 0: x += α·p, r −= α·q. phase 1: p = r / diagonal + β·p. phase 2: the fluid cells'
// mean back where it was (a closed domain; Scalars[10]). Where there was nothing to solve
// (Scalars[11]), phase 0 sets x = 0. α, β and the mean come from the
// Scalars block (worked out on the card).
layout(std430) buffer X { float x[]; };
layout(std430) buffer R { float r[]; };
layout(std430) buffer P { float pdir[]; };
layout(std430) readonly buffer Q { float q[]; };
layout(std430) readonly buffer Scalars { double scalars[]; };

uniform uint phase;
uniform uint precond;   // 1: z = M·r is in Q (multigrid); 0: z = r / diagonal (Jacobi)

#include "pressure.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    if (phase == 2u) {
        if (!solid_at(n)) {
            x[n] += float(scalars[10]);
        }
        return;
    }
    if (phase == 1u) {
        float z;
        if (precond != 0u) {
            z = q[n];
        } else {
            float d = diagonal(coords(dims, n));
            z = d > 0.0 ? r[n] / d : 0.0;
        }
        float beta = float(scalars[3]);
        // The first direction is z itself (whatever p held, NaN too, is not read).
        pdir[n] = beta == 0.0 ? z : z + beta * pdir[n];
        return;
    }
    // Nothing to solve (max|rhs| 0 or not finite): no pressure, as the CPU's (every solve
    // runs this phase at least once).
    uint bm = uint(scalars[11]);
    if (bm == 0u || bm >= 0x7f800000u) {
        x[n] = 0.0;
        return;
    }
    float alpha = float(scalars[2]);
    x[n] += alpha * pdir[n];
    r[n] -= alpha * q[n];
}
