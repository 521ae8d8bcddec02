// Finishes a dot product of conjugate gradients from the reduction's partial sums (one
// thread, a fixed order: the same result every run), works out α or β and decides on the
// card whether the solve has converged, so the host reads back only now and then.
// op 0: ρ = r·z, β = 0, and the starting residual. op 1: α = ρ / p·q (0 once converged).
// op 2: one more iteration done: ρ' = r·z, β = ρ'/ρ, ρ = ρ', and the residual checked.
// op 5: the right-hand side's largest |value| (its float's bits, as a double) into [11];
// where it is 0 or not finite there is nothing to solve: op 0 stops at once.
// op 3: Σx of the starting pressure. op 4: what the solve added to the fluid cells' mean
// (a closed domain, where z's mean is free: the CPU keeps the pressure's mean, so does this).
// Scalars: [0] ρ, [1] p·q, [2] α, [3] β, [4] converged (1) or not (0), [5] iterations at
// convergence, [6] max|r| at the last check, [7] iterations done, [8] max|r| at the start,
// [9] Σx at the start, [10] minus the change of the fluid cells' mean, [11] max|rhs|.
layout(std430) readonly buffer PartialSum { double partial_sum[]; };
layout(std430) readonly buffer PartialMax { uint partial_max[]; };
layout(std430) buffer Scalars { double scalars[]; };

uniform uint op;
uniform uint groups;
uniform float tol;      // the relative tolerance: stop at max|r| ≤ tol · max|rhs|
uniform float fluid;    // op 4: the fluid cells

void main() {
    double s = 0.0;
    uint m = 0u;
    for (uint g = 0u; g < groups; g++) {
        s += partial_sum[g];
        m = max(m, partial_max[g]);
    }
    if (op == 5u) {
        scalars[11] = double(m);
        return;
    }
    uint bm = uint(scalars[11]);
    float target = tol * uintBitsToFloat(bm);
    float rmax = uintBitsToFloat(m);
    // Not finite (bits at or above infinity's): stop, the finite check reports it.
    bool stop = rmax <= target || m >= 0x7f800000u;
    if (op == 0u) {
        stop = stop || bm == 0u || bm >= 0x7f800000u;
        scalars[0] = s;
        scalars[3] = 0.0;
        scalars[4] = stop ? 1.0 : 0.0;
        scalars[5] = 0.0;
        scalars[6] = double(rmax);
        scalars[7] = 0.0;
        scalars[8] = double(rmax);
    } else if (op == 3u) {
        scalars[9] = s;
    } else if (op == 4u) {
        // (nothing solved: the pressure is 0, as the CPU's, and stays so)
        bool none = bm == 0u || bm >= 0x7f800000u;
        scalars[10] = none ? 0.0 : (scalars[9] - s) / double(fluid);
    } else if (op == 1u) {
        scalars[1] = s;
        scalars[2] = (scalars[4] == 0.0 && s != 0.0) ? scalars[0] / s : 0.0;
    } else if (scalars[4] == 0.0) {
        scalars[7] += 1.0;
        scalars[6] = double(rmax);
        scalars[3] = scalars[0] != 0.0 ? s / scalars[0] : 0.0;
        scalars[0] = s;
        if (stop) {
            scalars[4] = 1.0;
            scalars[5] = scalars[7];
            scalars[3] = 0.0;
        }
    }
}
