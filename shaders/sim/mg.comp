// The multigrid V-cycle that preconditions the pressure's conjugate gradients: on a level of
// `ld` cells (the grid halved, rounded up, level by level), damped Jacobi sweeps, the
// residual, cell-centred trilinear prolongation and its exact transpose as restriction.
// Level l's operator is 2^l times the pressure operator rediscretised on that grid (a cell is
// fluid where any of its children is; an open side couples with 2H/(H + 1) for a cell H fine
// cells wide, the open face being half a fine cell beyond the last one): 2 is what
// restriction·operator·prolongation gives per level for smooth fields.
// Arrays are addressed by offsets into the blocks, so every level lives in one buffer.
// In the byte model (an item a cell of the level worked on): op 0 reads b and writes x; ops
// 1 and 2 read x and b and write the result; op 3 (an item a coarse cell) reads its eight
// fine cells' residual and writes one value; op 4 reads and writes the fine cell (the
// coarse correction, an eighth, not counted); op 5 copies; ops 6 and 7 (one work group)
// work levels of a few thousand cells at most, not counted; op 8 reads b (its neighbours'
// too, from cache) and writes the second sweep's value.
// bytes when op=0: B r, Dst w
// bytes when op=1: Src r, B r, Dst w
// bytes when op=2: Src r, B r, Dst w
// bytes when op=3: Dst r ×8, Dst w
// bytes when op=4: Dst rw
// bytes when op=5: Src r, Dst w
// bytes when op=8: B r, Dst w
// bytes: none
layout(std430) readonly buffer Src { float src[]; };
#ifdef SHARED_LEVELS
// Ops 6 and 7 with the levels they work in this work group's shared memory (MG_PART 6): the
// values of Dst from `lbase` (`lspan` of them, at most SHARED_FLOATS) copied in first and
// back out last, every offset of `dst` taken from `lbase`. Each sweep's reads of the pass
// before then wait on shared memory, not on the card's second-level cache (on a card the
// writes of one pass reach the next only through it): the same arithmetic in the same
// order, the same bits.
#define DST_VALUES dst_g
shared float dst[SHARED_FLOATS];
uniform uint lbase;
uniform uint lspan;
#define LEVEL_SYNC() memoryBarrierShared(); barrier()
#else
#define DST_VALUES dst
const uint lbase = 0u;
#define LEVEL_SYNC() memoryBarrierBuffer(); barrier()
#endif
layout(std430) buffer Dst { float DST_VALUES[]; };
layout(std430) readonly buffer B { float b[]; };
// Op 7: every level's figures, 16 words a level (see `Multigrid::table`): dims (3), the
// offsets of x, y, t and b in Dst, the mask's first word, 2^level's bits, and the
// transfers' end weights to the next level (low x, y, z, high x, y, z; a float's bits).
layout(std430) readonly buffer Table { uint table[]; };
// The solve's figures: once it has converged (Scalars[4]) a V-cycle is not needed (the
// iterations a batch issues past that point do nothing).
#ifdef RZ_SUMS
layout(std430) buffer Scalars { double scalars[]; };
#else
layout(std430) readonly buffer Scalars { double scalars[]; };
#endif

uniform uint op;        // 0 sweep from zero, 1 sweep, 2 residual, 3 restrict, 4 prolong and add, 5 copy,
                        // 6 the coarsest level's `sweeps` sweeps (one work group), 7 the whole
                        // cycle from level `first` down (one work group; see `fused`), 8 the
                        // sweep from zero and the one after it in one pass (`omega` the second's)
uniform uint sweeps;
uniform uvec3 ld;       // this level's cells (3: the coarse level's; 4: the fine level's)
uniform uvec3 cd;       // 3, 4: the other level's cells
uniform uint so;        // offsets: source, destination, right-hand side
uniform uint dso;
uniform uint bo;
uniform uint mo;        // this level's mask bits (word offset) in Levels; 0xffffffff: level 0
uniform uint cmo;       // 3, 4: the other level's
uniform float scale;    // 2^level
uniform float omega;
uniform uint first;     // 7: the first level of the fused cycle (the coarsest is `last`)
uniform uint last;
uniform vec3 weights;   // 7, 8: the smoother's three weights
uniform vec3 end_lo;    // 3, 4: the transfers' end weights (1 past a wall, less towards an
uniform vec3 end_hi;    // open face), as the CPU's

// The transfers read the levels' values from Dst (see levels.glsl).
#define LEVEL_VALUES dst
#include "levels.glsl"

// The same of the neighbours' values at `off` in ARR: DIAG_AND_SUM(name, ARR) makes the
// function for an array. Every neighbour's value is read before the first is added (one
// past the level's end reads p's own, unused): the reads in flight together, not each
// waited on behind a branch.
#define DIAG_AND_SUM(NAME, ARR) \
float NAME(uvec3 d, uint m, float sc, uvec3 p, uint off, out float s) { \
    uint c = at(d, p); \
    uint st[3] = uint[3](1u, d.x, d.x * d.y); \
    float v[6]; \
    for (int a = 0; a < 3; a++) { \
        v[2 * a] = ARR[off + (p[a] > 0u ? c - st[a] : c)]; \
        v[2 * a + 1] = ARR[off + (p[a] + 1u < d[a] ? c + st[a] : c)]; \
    } \
    return diag_and_sum_of(d, m, sc, p, v, s); \
}

// Of `src` (ops 1 and 2) and of the values in Dst (the coarsest level's sweeps and the
// fused cycle work there).
DIAG_AND_SUM(diag_and_sum_src, src)
DIAG_AND_SUM(diag_and_sum_dst, dst)

// Op 8, the first two sweeps in one pass: the first sweep's value at each neighbour q (op
// 0's: from zero, with the smoother's first weight) worked out where the second needs it,
// from q's right-hand side and diagonal by the functions op 0 works it out with (`jacobi`
// is `precise`; the diagonal a sum of small whole numbers and the open sides' weight), so
// the same bits as op 0 writing it and op 1 reading it back, and a pass over the level
// fewer. Every right-hand side is read before any is worked (one past the level's end reads
// p's own, unused). (`first_sweep_at`: levels.glsl.)
float diag_and_sum_first(uvec3 d, uint m, float sc, uvec3 p, out float s) {
    // (each neighbour by name: no array of places indexed in a loop, which a compiler
    // might keep in memory)
    uvec3 lo = uvec3(p.x > 0u ? p.x - 1u : p.x, p.y > 0u ? p.y - 1u : p.y,
                     p.z > 0u ? p.z - 1u : p.z);
    uvec3 hi = uvec3(p.x + 1u < d.x ? p.x + 1u : p.x, p.y + 1u < d.y ? p.y + 1u : p.y,
                     p.z + 1u < d.z ? p.z + 1u : p.z);
    uvec3 q0 = uvec3(lo.x, p.y, p.z);
    uvec3 q1 = uvec3(hi.x, p.y, p.z);
    uvec3 q2 = uvec3(p.x, lo.y, p.z);
    uvec3 q3 = uvec3(p.x, hi.y, p.z);
    uvec3 q4 = uvec3(p.x, p.y, lo.z);
    uvec3 q5 = uvec3(p.x, p.y, hi.z);
    float r0 = b[bo + at(d, q0)];
    float r1 = b[bo + at(d, q1)];
    float r2 = b[bo + at(d, q2)];
    float r3 = b[bo + at(d, q3)];
    float r4 = b[bo + at(d, q4)];
    float r5 = b[bo + at(d, q5)];
    // (a neighbour that is not fluid, or past the end, is not added: its value is unused)
    float w = weights[0];
    float v[6] = float[6](first_sweep_at(d, m, sc, q0, r0, w), first_sweep_at(d, m, sc, q1, r1, w),
                          first_sweep_at(d, m, sc, q2, r2, w), first_sweep_at(d, m, sc, q3, r3, w),
                          first_sweep_at(d, m, sc, q4, r4, w), first_sweep_at(d, m, sc, q5, r5, w));
    return diag_and_sum_of(d, m, sc, p, v, s);
}

// Op 6: the coarsest level's damped Jacobi sweeps, the first from zero into Dst at `dso`,
// then back and forth between `dso` and `so` (both in Dst's buffer), in one work group:
// one dispatch instead of one a sweep. The result is at `dso` after an odd number of
// sweeps, at `so` after an even one.
// The right-hand side is read from Dst too (the coarsest level's is in the same buffer).
// Returns where the result is.
uint coarsest_at(uvec3 ldim, uint m, float sc, uint into, uint spare, uint boff) {
    uint t = gl_LocalInvocationID.x;
    uint n = ldim.x * ldim.y * ldim.z;
    uint cur = into;
    uint other = spare;
    for (uint k = 0u; k < sweeps; k++) {
        for (uint c = t; c < n; c += uint(WG)) {
            uvec3 p = coords(ldim, c);
            float v = 0.0;
            if (fluid_in(ldim, m, p)) {
                float s;
                float d = diag_and_sum_dst(ldim, m, sc, p, cur, s);
                float x = k == 0u ? 0.0 : dst[cur + c];
                v = jacobi(d, s, x, dst[boff + c], sc, omega, k == 0u);
            }
            dst[(k == 0u ? cur : other) + c] = v;
        }
        LEVEL_SYNC();
        if (k > 0u) {
            uint w = cur;
            cur = other;
            other = w;
        }
    }
    return cur;
}

// Restriction: coarse cell `pc` (of `cdim`) sums the fine residual at `toff` in Dst (of `d`,
// mask `m`) with P's weights (ends `elo`, `ehi`). A slab of 4 × 4 fine cells is read at
// once before any is added (a cell past the level's end reads a clamped one, unused), and
// added or not by a select in the same order: four waits on reads, not sixty-four.
float restricted(uvec3 pc, uvec3 cdim, uvec3 d, uint m, uint toff, vec3 elo, vec3 ehi) {
    float v = 0.0;
    for (uint dz = 0u; dz < 4u; dz++) {
        int fz = int(2u * pc.z + dz) - 1;
        bool inz = fz >= 0 && fz < int(d.z);
        uint cz = uint(clamp(fz, 0, int(d.z) - 1));
        float wz = weight_at(elo, ehi, 2, cz, d.z, pc.z, cdim.z);
        float vals[16];
        for (uint k = 0u; k < 16u; k++) {
            int fy = int(2u * pc.y + k / 4u) - 1;
            int fx = int(2u * pc.x + k % 4u) - 1;
            uvec3 f = uvec3(clamp(fx, 0, int(d.x) - 1), clamp(fy, 0, int(d.y) - 1), cz);
            vals[k] = dst[toff + at(d, f)];
        }
        for (uint dy = 0u; dy < 4u; dy++) {
            int fy = int(2u * pc.y + dy) - 1;
            bool iny = fy >= 0 && fy < int(d.y);
            uint cy = uint(clamp(fy, 0, int(d.y) - 1));
            float wy = weight_at(elo, ehi, 1, cy, d.y, pc.y, cdim.y);
            for (uint dx = 0u; dx < 4u; dx++) {
                int fx = int(2u * pc.x + dx) - 1;
                bool inx = fx >= 0 && fx < int(d.x);
                uint cx = uint(clamp(fx, 0, int(d.x) - 1));
                float wx = weight_at(elo, ehi, 0, cx, d.x, pc.x, cdim.x);
                bool on = inz && iny && inx && wz != 0.0 && wy != 0.0 && wx != 0.0
                    && fluid_in(d, m, uvec3(cx, cy, cz));
                v += on ? wx * wy * wz * vals[4u * dy + dx] : 0.0;
            }
        }
    }
    return v;
}


// A level's figures from the table (op 7).
uvec3 lv_dims(uint l) { return uvec3(table[16u * l], table[16u * l + 1u], table[16u * l + 2u]); }
uint lv_word(uint l, uint i) { return table[16u * l + i]; }
// An array's offset in `dst` (words 3 to 6: x, y, t, b).
uint lv_at(uint l, uint i) { return table[16u * l + i] - lbase; }
float lv_float(uint l, uint i) { return uintBitsToFloat(table[16u * l + i]); }
vec3 lv_ends(uint l, uint i) { return vec3(lv_float(l, i), lv_float(l, i + 1u), lv_float(l, i + 2u)); }

// Op 7's passes, each over a whole level in this one work group, then a barrier: a damped
// Jacobi sweep of level l from `from` (zero: from 0) into `to` (as ops 0 and 1), ...
void sweep_at(uint l, uint from, uint to, float w, bool zero) {
    uvec3 d = lv_dims(l);
    uint m = lv_word(l, 7u);
    float sc = lv_float(l, 8u);
    uint boff = lv_at(l, 6u);
    uint n = d.x * d.y * d.z;
    for (uint c = gl_LocalInvocationID.x; c < n; c += uint(WG)) {
        uvec3 p = coords(d, c);
        float v = 0.0;
        if (fluid_in(d, m, p)) {
            float s;
            float dg = diag_and_sum_dst(d, m, sc, p, from, s);
            float x = zero ? 0.0 : dst[from + c];
            v = jacobi(dg, s, x, dst[boff + c], sc, w, zero);
        }
        dst[to + c] = v;
    }
    LEVEL_SYNC();
}

// ... its residual from x into t (as op 2), restricted into level l + 1's right-hand side
// (as op 3: a second pass, each coarse cell summing its fine cells) ...
void residual_restrict_at(uint l, uint x) {
    uvec3 d = lv_dims(l);
    uint m = lv_word(l, 7u);
    float sc = lv_float(l, 8u);
    uint boff = lv_at(l, 6u);
    uint toff = lv_at(l, 5u);
    uint n = d.x * d.y * d.z;
    for (uint c = gl_LocalInvocationID.x; c < n; c += uint(WG)) {
        uvec3 p = coords(d, c);
        float v = 0.0;
        if (fluid_in(d, m, p)) {
            float s;
            float dg = diag_and_sum_dst(d, m, sc, p, x, s);
            v = residual(dg, s, dst[x + c], dst[boff + c], sc);
        }
        dst[toff + c] = v;
    }
    LEVEL_SYNC();
    uvec3 cdim = lv_dims(l + 1u);
    uint cm = lv_word(l + 1u, 7u);
    uint cb = lv_at(l + 1u, 6u);
    vec3 elo = lv_ends(l, 9u);
    vec3 ehi = lv_ends(l, 12u);
    uint cn = cdim.x * cdim.y * cdim.z;
    for (uint c = gl_LocalInvocationID.x; c < cn; c += uint(WG)) {
        uvec3 pc = coords(cdim, c);
        dst[cb + c] = fluid_in(cdim, cm, pc) ? restricted(pc, cdim, d, m, toff, elo, ehi) : 0.0;
    }
    LEVEL_SYNC();
}

// ... and level l + 1's correction (at `from`) prolonged and added to level l's x (as op 4).
void prolong_at(uint l, uint from, uint x) {
    uvec3 d = lv_dims(l);
    uint m = lv_word(l, 7u);
    uvec3 cdim = lv_dims(l + 1u);
    uint cm = lv_word(l + 1u, 7u);
    vec3 elo = lv_ends(l, 9u);
    vec3 ehi = lv_ends(l, 12u);
    uint n = d.x * d.y * d.z;
    for (uint c = gl_LocalInvocationID.x; c < n; c += uint(WG)) {
        uvec3 pf = coords(d, c);
        if (fluid_in(d, m, pf)) {
            precise float v = dst[x + c] + prolonged(pf, d, cdim, cm, from, elo, ehi);
            dst[x + c] = v;
        }
    }
    LEVEL_SYNC();
}

// Op 7: the V-cycle from level `first` (its right-hand side in place) down to the coarsest,
// `last`, in one work group: the same passes in the same order as the host's `cycle` issues
// them one dispatch each (the coarse levels have a few thousand cells at most, so one
// group does them faster than a dispatch a pass). The result is in `first`'s y.
void fused() {
    for (uint l = first; l < last; l++) {
        uint x = lv_at(l, 3u);
        uint y = lv_at(l, 4u);
        sweep_at(l, x, x, weights[0], true);
        sweep_at(l, x, y, weights[1], false);
        sweep_at(l, y, x, weights[2], false);
        residual_restrict_at(l, x);
    }
    uint res = coarsest_at(lv_dims(last), lv_word(last, 7u), lv_float(last, 8u),
                           lv_at(last, 3u), lv_at(last, 4u), lv_at(last, 6u));
    for (uint l = last; l > first; l--) {
        uint f = l - 1u;
        uint x = lv_at(f, 3u);
        uint y = lv_at(f, 4u);
        prolong_at(f, res, x);
        sweep_at(f, x, y, weights[0], false);
        sweep_at(f, y, x, weights[1], false);
        sweep_at(f, x, y, weights[2], false);
        res = y;
    }
}

#include "cells.glsl"

// Ops 0 to 2 and 8 on PER cells an invocation (cells.glsl): every cell's values are loaded
// before the first is stored (more loads in flight; Src, B and Dst are different arrays in
// these ops), each cell worked out as with one.
void sweep_cells() {
    float ds[PER];
    float ss[PER];
    float xs[PER];
    float rhs[PER];
    for (int k = 0; k < PER; k++) {
        uint c = cell_of(k);
        ds[k] = -1.0;
        ss[k] = 0.0;
        xs[k] = 0.0;
        rhs[k] = 0.0;
        if (c < count) {
            uvec3 p = coords(ld, c);
            if (fluid_in(ld, mo, p)) {
                rhs[k] = b[bo + c];
                if (op == 0u) {
                    // (the sweep from zero reads no values: the diagonal alone, summed as
                    // DIAG_AND_SUM sums it)
                    ds[k] = level_diag(ld, mo, scale, p);
                } else if (op == 8u) {
                    // (the first two sweeps: this cell's first as op 0 works it out)
                    float s;
                    ds[k] = diag_and_sum_first(ld, mo, scale, p, s);
                    ss[k] = s;
                    xs[k] = jacobi(ds[k], 0.0, 0.0, rhs[k], scale, weights[0], true);
                } else {
                    float s;
                    ds[k] = diag_and_sum_src(ld, mo, scale, p, so, s);
                    ss[k] = s;
                    xs[k] = src[so + c];
                }
            }
        }
    }
    for (int k = 0; k < PER; k++) {
        uint c = cell_of(k);
        if (c < count) {
            float v = 0.0;
            if (ds[k] >= 0.0) {
                v = op == 2u ? residual(ds[k], ss[k], xs[k], rhs[k], scale)
                             : jacobi(ds[k], ss[k], xs[k], rhs[k], scale, omega, op == 0u);
            }
            dst[dso + c] = v;
        }
    }
}

#ifdef RZ_SUMS
// The finest level's last sweep (op 1, one cell an invocation; compiled with RZ_SUMS, in
// groups of DOT_WG) with r·z's partial sums, as `smooth.comp`'s tiles write theirs: each
// work group's Σ b·result (b is r there) in a fixed tree into PartialSum at its number
// (`group_sum.glsl`, as the Laplacian's p·q), and with `finish` the last group to finish
// (`last_group.glsl`) works out op 2 (β) from them as `cg_scalars.comp` would next: the
// reduction of r·z and that dispatch saved.
// (b and the cell's own value read again, from the cache: not in the byte model.) Scalars
// is writable in this variant, for cg_figures.glsl.
layout(std430) buffer Largest { uint largest[]; };
uniform uint finish;
#include "group_sum.glsl"
#include "last_group.glsl"
#include "cg_sum.glsl"
#include "cg_figures.glsl"

void last_sweep() {
    sweep_cells();
    uint c = gid();
    // (its own value read back: the sweep's bits, whatever the compiler keeps)
    write_group_sum(c < count ? double(b[bo + c]) * double(dst[dso + c]) : 0.0,
                    gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    finish_dot(2u, groups, finish != 0u);
}
#endif

// The kernel is compiled in parts (`MG_PART`, see `Kernels::mg_for`), each with only the
// code of its ops: a program's registers are those of its widest path, so the passes over
// the finest level, which are most of a V-cycle's time, do not carry the fused cycle's or
// the restriction's (a card runs fewer of its invocations at once the more registers each
// takes). 0: ops 0 to 2 and 8 (the sweeps and residual), 3: op 3, 4: op 4, 5: ops 5 to 7, 6:
// ops 6 and 7 in shared memory (with SHARED_LEVELS, where their levels fit); 9: every
// op in one program, as it was before (compiled only for `PLUME_GPU_DUMP_PROGRAMS` and
// `PLUME_GPU_MG_WHOLE`, so that a card's registers and times can be compared with the
// parts').
#ifndef MG_PART
#define MG_PART 0
#endif

void main() {
    if (scalars[4] != 0.0) {
        return;
    }
#ifdef RZ_SUMS
    last_sweep();
    return;
#endif
#if MG_PART == 6
    // Ops 6 and 7 in shared memory (SHARED_LEVELS): the levels' values in, the op, out.
    for (uint i = gl_LocalInvocationID.x; i < lspan; i += uint(WG)) {
        dst[i] = dst_g[lbase + i];
    }
    LEVEL_SYNC();
    if (op == 6u) {
        coarsest_at(ld, mo, scale, dso - lbase, so - lbase, bo - lbase);
    } else {
        fused();
    }
    for (uint i = gl_LocalInvocationID.x; i < lspan; i += uint(WG)) {
        dst_g[lbase + i] = dst[i];
    }
    return;
#endif
#if MG_PART == 5 || MG_PART == 9
    if (op == 6u) {
        coarsest_at(ld, mo, scale, dso, so, bo);
        return;
    }
    if (op == 7u) {
        fused();
        return;
    }
#endif
#if MG_PART == 0 || MG_PART == 9
    // Ops 0 to 2 and 8 (the host dispatches no other from part 0).
    if (op <= 2u || op == 8u) {
        sweep_cells();
        return;
    }
#endif
#if MG_PART != 0 && MG_PART != 6
    // (ops 3 to 5: one cell an invocation; the host dispatches them from a kernel compiled
    // with PER 1 only)
    uint c = gid();
    if (c >= count) {
        return;
    }
#if MG_PART == 5 || MG_PART == 9
    if (op == 5u) {
        dst[dso + c] = src[so + c];
        return;
    }
#endif
    // Both transfers read the other level in Dst: every level's arrays but the finest's
    // right-hand side and result are in the cell velocity's buffer (the host checks).
#if MG_PART == 3 || MG_PART == 9
    if (op == 3u) {
        // Restrict: coarse cell c (of ld) sums the fine residual (of cd) with P's weights.
        uvec3 pc = coords(ld, c);
        dst[dso + c] = fluid_in(ld, mo, pc) ? restricted(pc, ld, cd, cmo, so, end_lo, end_hi) : 0.0;
        return;
    }
#endif
#if MG_PART == 4 || MG_PART == 9
    // Prolong: fine cell c (of ld) adds the coarse correction (of cd) with P's weights.
    uvec3 pf = coords(ld, c);
    if (fluid_in(ld, mo, pf)) {
        precise float x = dst[dso + c] + prolonged(pf, ld, cd, cmo, so, end_lo, end_hi);
        dst[dso + c] = x;
    }
#endif
#endif
}
