// The multigrid levels' fluid cells: the finest level's from the solid bits, a coarser
// one's from its mask in Levels (one bit a cell, from word `m` on; a cell is fluid where
// any of its children is); without obstacles every cell is fluid and no mask is read.
#ifndef LEVELS_GLSL
#define LEVELS_GLSL
#include "solid.glsl"
layout(std430) readonly buffer Levels { uint level_bits[]; };

bool fluid_in(uvec3 d, uint m, uvec3 p) {
    uint c = p.x + d.x * (p.y + d.y * p.z);
    if (m == 0xffffffffu) {
        return !solid_at(c);
    }
    if (solids == 0u) {
        return true;
    }
    return (level_bits[m + (c >> 5)] & (1u << (c & 31u))) != 0u;
}

uniform uvec3 open_lo;
uniform uvec3 open_hi;

// A damped Jacobi sweep's new value at a fluid cell of a level with 2^level `sc`: its
// diagonal `d` (0: nothing couples it), the sum `s` of its fluid neighbours' values, its old
// value `x`, its right-hand side `rhs` and the sweep's weight `w`; `zero`: the sweep from
// x = 0 (s and x not read). And its residual rhs − sc·(d·x − s). `precise`: no multiply-add,
// so that every kernel working them out (`mg.comp`'s passes one cell an invocation or
// several, its fused cycle and coarsest sweeps, `smooth.comp`'s tiles) gives the same bits:
// a compiler may fuse each differently (NVIDIA's did, elsewhere, four cells an invocation).
float jacobi(float d, float s, float x, float rhs, float sc, float w, bool zero) {
    if (!(d > 0.0)) {
        return 0.0;
    }
    precise float v = zero ? w * (rhs / sc) / d : x + w * (rhs / sc - (d * x - s)) / d;
    return v;
}

float residual(float d, float s, float x, float rhs, float sc) {
    precise float v = rhs - sc * (d * x - s);
    return v;
}

// The rediscretised diagonal at p of a level of `d` cells (mask `m`, 2^level `sc`): its
// fluid neighbours, and each open side (pressure 0 at the open face, half a fine cell
// beyond the last fine centre: (H + 1)/2 fine cells from a coarse centre H fine cells wide,
// so the face couples with 2H/(H + 1), 1 on the finest level, as the CPU's levels do).
// Summed in the order `mg.comp`'s DIAG_AND_SUM sums it.
float level_diag(uvec3 d, uint m, float sc, uvec3 p) {
    float n = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int side = 0; side < 2; side++) {
            bool inside = side == 0 ? p[a] > 0u : p[a] + 1u < d[a];
            if (inside) {
                uvec3 q = p;
                q[a] = side == 0 ? p[a] - 1u : p[a] + 1u;
                if (fluid_in(d, m, q)) {
                    n += 1.0;
                }
            } else if ((side == 0 ? open_lo[a] : open_hi[a]) != 0u) {
                n += 2.0 * sc / (sc + 1.0);
            }
        }
    }
    return n;
}

// The rediscretised diagonal at p of a level of `d` cells (mask `m`, 2^level `sc`), and
// which of its neighbours (−x, +x, −y, +y, −z, +z) are fluid (`f`; one past the level's end
// is not). The diagonal is summed as level_diag sums it (the same terms in the same order,
// +0 where it adds none: the same bits).
float couplings_of(uvec3 d, uint m, float sc, uvec3 p, out bool f[6]) {
    float n = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int side = 0; side < 2; side++) {
            bool inside = side == 0 ? p[a] > 0u : p[a] + 1u < d[a];
            uvec3 q = p;
            if (inside) {
                q[a] = side == 0 ? p[a] - 1u : p[a] + 1u;
            }
            bool on = inside && fluid_in(d, m, q);
            bool open = !inside && (side == 0 ? open_lo[a] : open_hi[a]) != 0u;
            n += on ? 1.0 : (open ? 2.0 * sc / (sc + 1.0) : 0.0);
            f[2 * a + side] = on;
        }
    }
    return n;
}

// The Σ of the fluid neighbours' values `v` (`f` as couplings_of gives it; a value left out
// any, unused), added or not by a select, in one order: the one neighbour sum of every pass
// a sweep (`mg.comp`, `mg_rows.comp`). (Adding +0 for a neighbour left out changes no bits:
// a sum from +0 is never −0.)
float fluid_sum(bool f[6], float v[6]) {
    float s = 0.0;
    for (int k = 0; k < 6; k++) {
        s += f[k] ? v[k] : 0.0;
    }
    return s;
}

// Both at once: the diagonal, and into `s` the Σ.
float diag_and_sum_of(uvec3 d, uint m, float sc, uvec3 p, float v[6], out float s) {
    bool f[6];
    float n = couplings_of(d, m, sc, p, f);
    s = fluid_sum(f, v);
    return n;
}

// The first sweep's value at q (from zero, weight `w`: what `mg.comp`'s op 0 writes) from
// q's right-hand side, where the first two sweeps go in one pass and the second needs it at
// a neighbour (`mg.comp`'s op 8, `mg_rows.comp`).
float first_sweep_at(uvec3 d, uint m, float sc, uvec3 q, float rhs, float w) {
    return jacobi(level_diag(d, m, sc, q), 0.0, 0.0, rhs, sc, w, true);
}

// Weight of coarse index `ci` in the interpolation to fine index `i` along axis `a` of `n`
// fine cells and `cn` coarse ones: ¾ for its parent and ¼ for the parent's neighbour on its
// side, or the end's weight for the parent where that neighbour does not exist.
float weight_at(vec3 elo, vec3 ehi, int a, uint i, uint n, uint ci, uint cn) {
    uint parent = i / 2u;
    bool low = i % 2u == 0u;
    int other = low ? int(parent) - 1 : int(parent) + 1;
    bool has = other >= 0 && other < int(cn);
    if (ci == parent) {
        return has ? 0.75 : (low ? elo[a] : ehi[a]);
    }
    return (has && int(ci) == other) ? 0.25 : 0.0;
}

#ifdef LEVEL_VALUES
// Prolongation (where LEVEL_VALUES is defined as the array the levels' values are in): what
// fine cell `pf` (of `d`) gets from the coarse correction at `from` in LEVEL_VALUES (of
// `cdim`, mask `cm`) with P's weights (ends `elo`, `ehi`). The eight coarse values are read
// before any is added (a corner past the level's end reads the parent's, unused), then
// added or not by a select in the same order: one wait on reads, not eight.
float prolonged(uvec3 pf, uvec3 d, uvec3 cdim, uint cm, uint from, vec3 elo, vec3 ehi) {
    uvec3 cc[8];
    float w[8];
    bool on[8];
    float vals[8];
    for (uint q = 0u; q < 8u; q++) {
        uvec3 pick = uvec3(q & 1u, (q >> 1) & 1u, (q >> 2) & 1u);
        float wq = 1.0;
        bool ok = true;
        for (int a = 0; a < 3; a++) {
            uint parent = pf[a] / 2u;
            int other = (pf[a] % 2u == 0u) ? int(parent) - 1 : int(parent) + 1;
            if (pick[a] == 0u) {
                cc[q][a] = parent;
            } else if (other >= 0 && other < int(cdim[a])) {
                cc[q][a] = uint(other);
            } else {
                cc[q][a] = parent;
                ok = false;
            }
            wq *= ok ? weight_at(elo, ehi, a, pf[a], d[a], cc[q][a], cdim[a]) : 0.0;
        }
        w[q] = wq;
        on[q] = ok;
        vals[q] = LEVEL_VALUES[from + at(cdim, cc[q])];
    }
    float v = 0.0;
    for (uint q = 0u; q < 8u; q++) {
        bool take = on[q] && w[q] != 0.0 && fluid_in(cdim, cm, cc[q]);
        v += take ? w[q] * vals[q] : 0.0;
    }
    return v;
}
#endif
#endif
