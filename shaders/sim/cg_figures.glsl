// The conjugate gradients' figures, finished on the card so that the host reads back only
// now and then: α or β worked out from a dot product's Σ, and whether the solve has
// converged. Run by one invocation, in `cg_scalars.comp` (a dispatch of one work group) or
// in the last work group of the kernel before it (`last_group.glsl`), with the same inputs:
// `s` a dot product's Σ (`cg_sum.glsl`), `m` the largest of the partial maxima (op 0's
// right-hand side, `partial_top.glsl`) and `rbits` the residual's largest |value| (a
// float's bits: from `largest[0]`, merged there by the kernel that wrote the residual, the
// residual's `laplace` or the update's `cg_step`, which the op before each of them sets to
// 0; or from the divergence's pass, its RESIDUAL variant, as partial maxima).
// An iteration: z = M·r, op 2, p = z + β·p; q = A·p, op 1, x += α·p and r −= α·q, op 6 (the
// CPU's order: no preconditioning once converged).
// op 0: the right-hand side's largest |value| (its float's bits, as a double) into [11];
// where it is 0 or not finite there is nothing to solve and the solve stops at once; else
// the starting residual checked (β = 0, no iterations yet).
// op 2: ρ' = r·z, β = ρ'/ρ (0 the first time: p = z), ρ = ρ'. op 1: α = ρ / p·q (0 once
// converged). op 6: one more iteration done and the residual checked.
// op 3: Σx of the starting pressure. op 4: what the solve added to the fluid cells' mean
// (a closed domain, where z's mean is free: the CPU keeps the pressure's mean, so does this).
// Scalars: [0] ρ, [1] p·q, [2] α, [3] β, [4] converged (1) or not (0), [5] iterations at
// convergence, [6] max|r| at the last check, [7] iterations done, [8] max|r| at the start,
// [9] Σx at the start, [10] minus the change of the fluid cells' mean, [11] max|rhs|.
// Needs the blocks Scalars { double scalars[]; } and Largest { uint largest[]; } declared
// before it (writable).
#ifndef CG_FIGURES_GLSL
#define CG_FIGURES_GLSL
uniform float tol;      // the relative tolerance: stop at max|r| ≤ tol · max|rhs|
uniform float fluid;    // op 4: the fluid cells

void cg_figures(uint op, double s, uint m, uint rbits) {
    if (op == 0u) {
        scalars[11] = double(m);
    }
    uint bm = uint(scalars[11]);
    float target = tol * uintBitsToFloat(bm);
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

#if defined(LAST_GROUP_GLSL) && defined(CG_SUM_GLSL)
// A dot product finished in the kernel that wrote its `groups` partial sums, with `finish`:
// the work group that finishes last (`last_group.glsl`) sums them (`cg_sum`) and works out
// op `op` from the Σ (1: α from p·q, 2: β from r·z), as `cg_scalars.comp` would next. Every
// invocation of every group must call it (it waits at barriers); compiled with
// NO_LAST_GROUP it does nothing.
void finish_dot(uint op, uint groups, bool finish) {
    if (LAST_GROUP_ON && finish && last_group(groups)) {
        double s = cg_sum(groups);
        if (gl_LocalInvocationID.x == 0u) {
            cg_figures(op, s, 0u, 0u);
        }
    }
}
#endif
#endif
