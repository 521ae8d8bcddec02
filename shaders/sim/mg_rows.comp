// The V-cycle's passes a sweep (`mg.comp`'s ops 0 to 2 and 8; with RZ_SUMS its finest
// level's last sweep, ops 9 and 10 on the host), the coarse correction's prolongation
// (op 4) and, compiled apart (RESTRICT_ROWS), the restriction (op 3; an item a row of four
// coarse cells) in rows: an item is a row of four cells
// along x, from cell 4·item, loaded as `vec4`s (its values, its right-hand sides, the rows
// beside it along y and z, and the vec4s left and right of it for the two cells past its
// ends) and stored as one. On the H200 a copy moved 1530 GB/s a float an invocation and
// 4127 as `vec4`s. Each cell is worked out by the functions `mg.comp`'s passes use
// (levels.glsl: `couplings_of`, `fluid_sum`, `jacobi`, `residual`, `first_sweep_at`) from
// the same values in the same order: the same bits. Only for a level whose rows are whole vec4s (its
// cells along x a multiple of four, every array's offset too): the host checks and takes
// `mg.comp` elsewhere (`Engine::mg_op`).
// In the byte model an item is a row, a vec4 of each array (the same bytes a cell as
// `mg.comp`'s ops).
// bytes when op=0: B r, Dst w
// bytes when op=1: Src r, B r, Dst w
// bytes when op=2: Src r, B r, Dst w
// bytes when op=3: Src r ×8, Dst w
// bytes when op=4: Dst rw
// bytes when op=8: B r, Dst w
// bytes: none
layout(std430) readonly buffer Src { vec4 src[]; };
layout(std430) buffer Dst { vec4 dst[]; };
layout(std430) readonly buffer B { vec4 b[]; };
// Op 4: the coarse level's correction, a float at a time (its cells' eight values a fine
// cell, the same buffer as Src's).
layout(std430) readonly buffer Coarse { float coarse[]; };
// The solve's figures: once it has converged (Scalars[4]) a V-cycle is not needed.
#ifdef RZ_SUMS
layout(std430) buffer Scalars { double scalars[]; };
#else
layout(std430) readonly buffer Scalars { double scalars[]; };
#endif

uniform uint op;        // 0 sweep from zero, 1 sweep, 2 residual, 3 restrict (compiled
                        // apart: RESTRICT_ROWS), 4 prolong and add, 8 the first two sweeps
uniform uvec3 ld;       // this level's cells (ld.x a multiple of 4)
uniform uint so;        // offsets in floats (multiples of 4): source (4: the coarse
uniform uint dso;       // correction, in Coarse), destination, right-hand side
uniform uint bo;
uniform uint mo;        // this level's mask bits (word offset) in Levels; 0xffffffff: level 0
uniform float scale;    // 2^level
uniform float omega;
uniform vec3 weights;   // 8: the smoother's three weights (the first's for the first sweep)
uniform uvec3 cd;       // 3, 4: the other level's cells, its mask bits, and the
uniform uint cmo;       // transfers' end weights, as `mg.comp`'s
uniform vec3 end_lo;
uniform vec3 end_hi;

// (the prolongation reads the coarse level's values from Coarse: levels.glsl's `prolonged`)
#define LEVEL_VALUES coarse
#include "levels.glsl"

#include "rows.glsl"
vec4 src_at(uint i) { return src[i]; }
vec4 b_at(uint i) { return b[i]; }
ROW_OF(row_of_src, src_at)
ROW_OF(row_of_b, b_at)

// Op 8: the first sweep's values where the second reads them (as `mg.comp`'s
// `diag_and_sum_first`: each by `first_sweep_at` from its cell's right-hand side; the
// row's own four are the cells' own first sweeps, `own`, worked out as `mg.comp` works out
// a cell's). The cells past the row's ends and past the level's are clamped to the row's
// (their values unused).
Row first_sweeps(Row rb, uvec3 p, vec4 own) {
    float w0 = weights[0];
    Row f;
    f.o = own;
    uvec3 qlo = uvec3(p.x > 0u ? p.x - 1u : p.x, p.y, p.z);
    uvec3 qhi = uvec3(p.x + 4u < ld.x ? p.x + 4u : p.x + 3u, p.y, p.z);
    f.lo = first_sweep_at(ld, mo, scale, qlo, rb.lo, w0);
    f.hi = first_sweep_at(ld, mo, scale, qhi, rb.hi, w0);
    uint yl = p.y > 0u ? p.y - 1u : p.y;
    uint yh = p.y + 1u < ld.y ? p.y + 1u : p.y;
    uint zl = p.z > 0u ? p.z - 1u : p.z;
    uint zh = p.z + 1u < ld.z ? p.z + 1u : p.z;
    for (int k = 0; k < 4; k++) {
        uint x = p.x + uint(k);
        f.yl[k] = first_sweep_at(ld, mo, scale, uvec3(x, yl, p.z), rb.yl[k], w0);
        f.yh[k] = first_sweep_at(ld, mo, scale, uvec3(x, yh, p.z), rb.yh[k], w0);
        f.zl[k] = first_sweep_at(ld, mo, scale, uvec3(x, p.y, zl), rb.zl[k], w0);
        f.zh[k] = first_sweep_at(ld, mo, scale, uvec3(x, p.y, zh), rb.zh[k], w0);
    }
    return f;
}

// The row `r`'s new values (0 in a cell that is not fluid), as `mg.comp`'s `sweep_cells`
// works out each cell.
vec4 sweep_row(uint r) {
    uvec3 p = coords(ld, 4u * r);
    Around a = around(ld, r, p);
    Row rb = row_of_b(bo / 4u, r, a);
    vec4 rhs = rb.o;
    bool fl[4];
    // Each cell's diagonal and fluid neighbours, worked out once (`couplings_of`).
    float ds[4];
    bool fs[4][6];
    for (int k = 0; k < 4; k++) {
        uvec3 q = p + uvec3(uint(k), 0u, 0u);
        fl[k] = fluid_in(ld, mo, q);
        ds[k] = couplings_of(ld, mo, scale, q, fs[k]);
    }
    vec4 v = vec4(0.0);
    if (op == 0u) {
        // (the sweep from zero reads no values: the diagonal alone)
        for (int k = 0; k < 4; k++) {
            v[k] = fl[k] ? jacobi(ds[k], 0.0, 0.0, rhs[k], scale, omega, true) : 0.0;
        }
        return v;
    }
    // The values the cells' sums read: the source's, or (op 8) the first sweep's.
    Row x;
    if (op == 8u) {
        // (each cell's own first sweep from its diagonal, as `mg.comp` works it out)
        vec4 own = vec4(0.0);
        for (int k = 0; k < 4; k++) {
            own[k] = jacobi(ds[k], 0.0, 0.0, rhs[k], scale, weights[0], true);
        }
        x = first_sweeps(rb, p, own);
    } else {
        x = row_of_src(so / 4u, r, a);
    }
    for (int k = 0; k < 4; k++) {
        if (!fl[k]) {
            continue;
        }
        float s = fluid_sum(fs[k], neighbours(x, k));
        v[k] = op == 2u ? residual(ds[k], s, x.o[k], rhs[k], scale)
                        : jacobi(ds[k], s, x.o[k], rhs[k], scale, omega, false);
    }
    return v;
}

#ifdef RESTRICT_ROWS
// Op 3 in rows (a program of its own, RESTRICT_ROWS, so that the sweeps' does not carry its
// registers): an item is a row of four coarse cells along x (of `ld`, from cell 4·item),
// each summing the fine residual (at `so` in Src, a level of `cd` cells, mask `cmo`) with
// P's weights as `mg.comp`'s `restricted` sums it: the same values and weights, added in
// the same order (z, then y, then x), so the same bits. Along x the row's fine cells,
// 2·x0 − 1 to 2·x0 + 8, are in four vec4s of each fine row (the one before the row's eight
// cells, their two, the one after; clamped to the fine row's ends, where what they hold is
// not added): 64 vec4 reads for four coarse cells, where a coarse cell an invocation reads
// 64 floats. Only where both levels' rows are whole vec4s (the host checks).
vec4 restricted_row(uint r) {
    uvec3 pc = coords(ld, 4u * r);
    int per_row = int(cd.x / 4u);
    // (the vec4 holding fine cells 2·x0 − 4 to 2·x0 − 1; x0 is a multiple of four)
    int first = int(pc.x / 2u) - 1;
    vec4 v = vec4(0.0);
    for (uint dz = 0u; dz < 4u; dz++) {
        int fz = int(2u * pc.z + dz) - 1;
        bool inz = fz >= 0 && fz < int(cd.z);
        uint cz = uint(clamp(fz, 0, int(cd.z) - 1));
        float wz = weight_at(end_lo, end_hi, 2, cz, cd.z, pc.z, ld.z);
        // (a slab's sixteen vec4s read before any is added)
        vec4 vals[16];
        for (uint k = 0u; k < 16u; k++) {
            uint fy = uint(clamp(int(2u * pc.y + k / 4u) - 1, 0, int(cd.y) - 1));
            uint q = uint(clamp(first + int(k % 4u), 0, per_row - 1));
            vals[k] = src[so / 4u + (fy + cd.y * cz) * uint(per_row) + q];
        }
        for (uint dy = 0u; dy < 4u; dy++) {
            int fy = int(2u * pc.y + dy) - 1;
            bool iny = fy >= 0 && fy < int(cd.y);
            uint cy = uint(clamp(fy, 0, int(cd.y) - 1));
            float wy = weight_at(end_lo, end_hi, 1, cy, cd.y, pc.y, ld.y);
            for (uint j = 0u; j < 4u; j++) {
                uint px = pc.x + j;
                for (uint dx = 0u; dx < 4u; dx++) {
                    int fx = int(2u * px + dx) - 1;
                    bool inx = fx >= 0 && fx < int(cd.x);
                    uint cx = uint(clamp(fx, 0, int(cd.x) - 1));
                    float wx = weight_at(end_lo, end_hi, 0, cx, cd.x, px, ld.x);
                    // (fine cell 2·px − 1 + dx is 2·j + dx + 3 cells past the first vec4's
                    // first)
                    uint i = 2u * j + dx + 3u;
                    float val = vals[4u * dy + i / 4u][i % 4u];
                    bool on = inz && iny && inx && wz != 0.0 && wy != 0.0 && wx != 0.0
                        && fluid_in(cd, cmo, uvec3(cx, cy, cz));
                    v[j] += on ? wx * wy * wz * val : 0.0;
                }
            }
        }
    }
    return v;
}
#endif

#ifdef RZ_SUMS
// The finest level's last sweep (op 1) with r·z's partial sums, as `mg.comp`'s RZ_SUMS
// variant writes them: in groups of DOT_WG / 4 rows, each group's Σ b·result over its
// DOT_WG cells in the tree a group of DOT_WG cells makes (`group_sum.glsl`'s SUM_PER 4),
// so the same partial sums, one a work group; with `finish` the last group works out op 2
// (β) from them.
layout(std430) buffer Largest { uint largest[]; };
uniform uint finish;
#include "group_sum.glsl"
#include "last_group.glsl"
#include "cg_sum.glsl"
#include "cg_figures.glsl"
#endif

void main() {
    if (scalars[4] != 0.0) {
        return;
    }
    uint r = gid();
    bool in_level = r < count;
#ifdef RESTRICT_ROWS
    // Restrict: the row's coarse cells (0 where not fluid, as `mg.comp`'s op 3).
    if (in_level) {
        uvec3 pc = coords(ld, 4u * r);
        vec4 v = restricted_row(r);
        for (uint k = 0u; k < 4u; k++) {
            v[k] = fluid_in(ld, mo, pc + uvec3(k, 0u, 0u)) ? v[k] : 0.0;
        }
        dst[dso / 4u + r] = v;
    }
    return;
#endif
#ifndef RZ_SUMS
    if (op == 4u) {
        // Prolong: each fluid cell of the row adds the coarse correction with P's weights,
        // as `mg.comp`'s op 4 (a cell not fluid keeps its value).
        if (in_level) {
            uvec3 p = coords(ld, 4u * r);
            vec4 x = dst[dso / 4u + r];
            for (int k = 0; k < 4; k++) {
                uvec3 pf = p + uvec3(uint(k), 0u, 0u);
                if (fluid_in(ld, mo, pf)) {
                    precise float v = x[k] + prolonged(pf, ld, cd, cmo, so, end_lo, end_hi);
                    x[k] = v;
                }
            }
            dst[dso / 4u + r] = x;
        }
        return;
    }
#endif
    if (in_level) {
        dst[dso / 4u + r] = sweep_row(r);
    }
#ifdef RZ_SUMS
    // (its own values read back: the sweep's bits, whatever the compiler keeps)
    vec4 z = in_level ? dst[dso / 4u + r] : vec4(0.0);
    vec4 rr = in_level ? b[bo / 4u + r] : vec4(0.0);
    double sums[4];
    for (int k = 0; k < 4; k++) {
        sums[k] = double(rr[k]) * double(z[k]);
    }
    write_group_sums(sums, gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    finish_dot(2u, groups, finish != 0u);
#endif
}
