// Finishes a dot product of conjugate gradients from the partial sums of a reduction or
// of the kernel that worked out its terms (one work group, a fixed order: the same result
// every run), works out α or β and decides on the
// card whether the solve has converged, so the host reads back only now and then. The
// residual's largest |value| comes from `largest[0]` (merged there by the kernel that
// wrote the residual: the residual's `laplace`, the update's `cg_step`), which the op
// before each of them sets to 0. An iteration: z = M·r, op 2, p = z + β·p; q = A·p, op 1,
// x += α·p and r −= α·q, op 6 (the CPU's order: no preconditioning once converged).
// op 0: the right-hand side's largest |value| (its float's bits, as a double, from the
// partial results of a reduction of it) into [11]; where it is 0 or not finite there is
// nothing to solve and the solve stops at once; else the starting residual checked (β = 0,
// no iterations yet). (`largest[0]` was set to 0 by `divergence.comp` before the
// residual's Laplacian.) With `residual_groups`, the starting residual was worked out in
// the divergence's pass (its RESIDUAL variant): its largest |value| is finished from the
// partial maxima after the right-hand side's (at `groups`), not read from `largest[0]`.
// op 2: ρ' = r·z, β = ρ'/ρ (0 the first time: p = z), ρ = ρ'. op 1: α = ρ / p·q (0 once
// converged). op 6: one more iteration done and the residual checked.
// op 3: Σx of the starting pressure. op 4: what the solve added to the fluid cells' mean
// (a closed domain, where z's mean is free: the CPU keeps the pressure's mean, so does this).
// Scalars: [0] ρ, [1] p·q, [2] α, [3] β, [4] converged (1) or not (0), [5] iterations at
// convergence, [6] max|r| at the last check, [7] iterations done, [8] max|r| at the start,
// [9] Σx at the start, [10] minus the change of the fluid cells' mean, [11] max|rhs|.
layout(std430) readonly buffer PartialSum { double partial_sum[]; };
layout(std430) readonly buffer PartialMax { uint partial_max[]; };
layout(std430) buffer Scalars { double scalars[]; };
layout(std430) buffer Largest { uint largest[]; };

uniform uint op;
uniform uint groups;
uniform float tol;      // the relative tolerance: stop at max|r| ≤ tol · max|rhs|
uniform float fluid;    // op 4: the fluid cells
uniform uint residual_groups;  // op 0: see above (0: the residual's maximum in largest[0])

shared double sums[WG];
shared uint maxes[WG];
shared uint maxes_r[WG];

void main() {
    // The partial results summed by the work group in a fixed order (each invocation a
    // stride of them, then a tree), then one invocation does the rest.
    uint t = gl_LocalInvocationID.x;
    double s = 0.0;
    uint m = 0u;
    for (uint g = t; g < groups; g += uint(WG)) {
        s += partial_sum[g];
        m = max(m, partial_max[g]);
    }
    uint mr = 0u;
    for (uint g = t; g < residual_groups; g += uint(WG)) {
        mr = max(mr, partial_max[groups + g]);
    }
    sums[t] = s;
    maxes[t] = m;
    maxes_r[t] = mr;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            sums[t] += sums[t + h];
            maxes[t] = max(maxes[t], maxes[t + h]);
            maxes_r[t] = max(maxes_r[t], maxes_r[t + h]);
        }
        barrier();
    }
    if (t != 0u) {
        return;
    }
    s = sums[0];
    m = maxes[0];
    if (op == 0u) {
        scalars[11] = double(m);
    }
    uint bm = uint(scalars[11]);
    float target = tol * uintBitsToFloat(bm);
    uint rbits = residual_groups != 0u ? maxes_r[0] : largest[0];
    float rmax = uintBitsToFloat(rbits);
    // Not finite (bits at or above infinity's): stop, the finite check reports it.
    bool stop = rmax <= target || rbits >= 0x7f800000u;
    if (op == 0u) {
        stop = stop || bm == 0u || bm >= 0x7f800000u;
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
        largest[0] = 0u;
    } else if (scalars[4] != 0.0) {
        // converged: the batch's later iterations change nothing
    } else if (op == 2u) {
        scalars[3] = scalars[7] == 0.0 ? 0.0 : (scalars[0] != 0.0 ? s / scalars[0] : 0.0);
        scalars[0] = s;
    } else if (op == 6u) {
        scalars[7] += 1.0;
        scalars[6] = double(rmax);
        if (stop) {
            scalars[4] = 1.0;
            scalars[5] = scalars[7];
        }
    }
}
