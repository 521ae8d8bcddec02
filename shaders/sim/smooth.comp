// The multigrid smoother (see `mg.comp`) by tiles: each work group takes a tile of 8×8×8
// cells of a level with three cells of halo into shared memory and does the three damped
// Jacobi sweeps there, each on a region one cell smaller a side, writing only the tile.
// Mode 0, before the coarse correction: the first sweep from x = 0 (its values need no
// neighbours, so they are worked out as the tile is read), then the level's residual; x
// and the residual written (at `dso` and `tso` in Dst). Mode 1, after it: the three sweeps
// from Src's x (with the coarse correction added as it is read, where `prolong` says), the
// result written at `dso`. The same values, cell for cell, as ops 0, 1
// and 2 of `mg.comp` give one pass each: one pass over the level instead of four, and one
// instead of three (the halo comes from the cache). With `rz_sums` (mode 1 on the finest
// level, where b is the solve's r and the result its z) each work group also writes its
// Σ r·z (ρ, for β) to PartialSum at its tile's number, and with `finish` the last tile's
// work group (`last_group.glsl`) finishes op 2 (β) as `cg_scalars.comp` would next. The
// work group must have 512 invocations; shared memory is 31 KB (OpenGL promises 32).
// In the byte model (an item a cell): before the correction a pass reads b and writes x and
// the residual (both in Dst); after it, reads x and b and writes the result (the coarse
// correction it prolongs, an eighth, not counted). The tile's halo comes from the cache.
// bytes when mode=0: B r, Dst w ×2
// bytes: Src r, B r, Dst w
layout(std430) readonly buffer Src { float src[]; };
layout(std430) writeonly buffer Dst { float dst[]; };
layout(std430) readonly buffer B { float b[]; };
// The solve's figures: once it has converged (Scalars[4]) there is nothing to do.
layout(std430) buffer Scalars { double scalars[]; };
layout(std430) coherent buffer PartialSum { double partial_sum[]; };
layout(std430) buffer Largest { uint largest[]; };

uniform uvec3 ld;       // this level's cells
uniform uint mo;        // its mask bits (word offset) in Levels; 0xffffffff: level 0
uniform float scale;    // 2^level
uniform vec3 weights;   // the smoother's three weights
uniform uint mode;      // 0: before the correction (from zero, and the residual); 1: after
uniform uint so;        // offsets: Src's x, Dst's x (mode 0) or result (1), the residual
uniform uint dso;       // (mode 0, in Dst) and the right-hand side
uniform uint tso;
uniform uint bo;
uniform uvec3 tiles;    // tiles along each axis (8 cells a side, the last ones cut short)
uniform uint rz_sums;   // 1: the tile's Σ b·result into PartialSum (mode 1)
uniform uint finish;    // 1 (with rz_sums): the last tile's group finishes op 2
// Mode 1 with `prolong`: the coarse level's correction (of `cd` cells, mask `cmo`, at `eo`
// in Src) prolonged and added to x as it is read (as `mg.comp`'s op 4, which then needs no
// pass of its own), with the transfers' end weights.
uniform uint prolong;
uniform uvec3 cd;
uniform uint cmo;
uniform uint eo;
uniform vec3 end_lo;
uniform vec3 end_hi;

#define LEVEL_VALUES src
#include "levels.glsl"

const int T = 8;         // a tile's cells along an axis
const int H = 3;         // halo: one cell a sweep
const int R = T + 2 * H; // the region read, 14
const int M = R - 2;     // the region of the first sweep's results, 12

shared float xa[R * R * R];  // x as read, then after the second sweep
shared uint xb[M * M * M];   // after the first sweep (region cells 1 to 12; a float's
                             // bits), then the tile's Σ b·result (a double as two words)
shared float ds[R * R * R];  // the diagonal; −1 for a cell that is solid or outside the level

int ra(ivec3 r) { return r.x + R * (r.y + R * r.z); }
int rb(ivec3 r) { return (r.x - 1) + M * ((r.y - 1) + M * (r.z - 1)); }

// Σ of the fluid neighbours (inside the level) of region cell r, in the order of
// `mg.comp`'s DIAG_AND_SUM, from xa (`in_a`) or xb.
float neighbours(ivec3 r, bool in_a) {
    float s = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int side = 0; side < 2; side++) {
            ivec3 q = r;
            q[a] += side == 0 ? -1 : 1;
            if (ds[ra(q)] >= 0.0) {
                s += in_a ? xa[ra(q)] : uintBitsToFloat(xb[rb(q)]);
            }
        }
    }
    return s;
}

uint cell_of(ivec3 o, ivec3 r) { return at(ld, uvec3(o + r)); }

// One damped Jacobi update of region cell r (at level cell c), as op 1.
float relax(ivec3 r, uint c, float w, bool in_a) {
    float d = ds[ra(r)];
    if (d < 0.0) {
        return 0.0;
    }
    float s = neighbours(r, in_a);
    float x = in_a ? xa[ra(r)] : uintBitsToFloat(xb[rb(r)]);
    return jacobi(d, s, x, b[bo + c], scale, w, false);
}

bool in_level(ivec3 p) { return all(greaterThanEqual(p, ivec3(0))) && all(lessThan(p, ivec3(ld))); }

#include "last_group.glsl"
#include "cg_sum.glsl"
#include "cg_figures.glsl"

void main() {
    // (the same for the whole work group: no invocation is left waiting at a barrier)
    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (scalars[4] != 0.0 || g >= tiles.x * tiles.y * tiles.z) {
        return;
    }
    ivec3 o = ivec3(coords(tiles, g) * uint(T)) - ivec3(H);
    uint t = gl_LocalInvocationID.x;
    bool before = mode == 0u;
    for (uint i = t; i < uint(R * R * R); i += uint(WG)) {
        ivec3 r = ivec3(int(i) % R, (int(i) / R) % R, int(i) / (R * R));
        ivec3 p = o + r;
        float d = -1.0;
        float x = 0.0;
        if (in_level(p) && fluid_in(ld, mo, uvec3(p))) {
            uint c = cell_of(o, r);
            d = level_diag(ld, mo, scale, uvec3(p));
            // (op 0's value: the sweep from zero)
            if (before) {
                x = jacobi(d, 0.0, 0.0, b[bo + c], scale, weights[0], true);
            } else if (prolong != 0u) {
                precise float xc = src[so + c] + prolonged(uvec3(p), ld, cd, cmo, eo, end_lo, end_hi);
                x = xc;
            } else {
                x = src[so + c];
            }
        }
        ds[i] = d;
        xa[i] = x;
    }
    barrier();
    // Before the correction the sweep from zero was the first of three: two to go.
    float w1 = before ? weights[1] : weights[0];
    float w2 = before ? weights[2] : weights[1];
    // Region cells 1 to 12 into xb (those outside the level are never read).
    for (uint i = t; i < uint(M * M * M); i += uint(WG)) {
        ivec3 r = ivec3(int(i) % M, (int(i) / M) % M, int(i) / (M * M)) + 1;
        if (in_level(o + r)) {
            xb[i] = floatBitsToUint(relax(r, cell_of(o, r), w1, true));
        }
    }
    barrier();
    // Region cells 2 to 11 into xa (xa's values there are no longer read).
    const int K = R - 4;
    for (uint i = t; i < uint(K * K * K); i += uint(WG)) {
        ivec3 r = ivec3(int(i) % K, (int(i) / K) % K, int(i) / (K * K)) + 2;
        if (in_level(o + r)) {
            xa[ra(r)] = relax(r, cell_of(o, r), w2, false);
        }
    }
    barrier();
    // The tile: after the correction the third sweep; before it x and the residual.
    ivec3 r = ivec3(int(t) % T, (int(t) / T) % T, int(t) / (T * T)) + H;
    bool here = in_level(o + r);
    uint c = here ? cell_of(o, r) : 0u;
    if (before) {
        if (here) {
            float x = xa[ra(r)];
            dst[dso + c] = x;
            float d = ds[ra(r)];
            // (op 2: 0 where the cell is solid)
            dst[tso + c] = d < 0.0 ? 0.0 : residual(d, neighbours(r, true), x, b[bo + c], scale);
        }
        return;
    }
    double term = 0.0;
    if (here) {
        float z = relax(r, c, weights[2], true);
        dst[dso + c] = z;
        term = double(b[bo + c]) * double(z);
    }
    if (rz_sums == 0u) {
        return;
    }
    // The tile's Σ in a fixed tree, in xb (no longer read: every invocation is past the
    // barrier after the second sweep).
    uvec2 u = unpackDouble2x32(term);
    xb[2u * t] = u.x;
    xb[2u * t + 1u] = u.y;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            double v = packDouble2x32(uvec2(xb[2u * t], xb[2u * t + 1u]))
                + packDouble2x32(uvec2(xb[2u * (t + h)], xb[2u * (t + h) + 1u]));
            u = unpackDouble2x32(v);
            xb[2u * t] = u.x;
            xb[2u * t + 1u] = u.y;
        }
        barrier();
    }
    if (t == 0u) {
        partial_sum[g] = packDouble2x32(uvec2(xb[0], xb[1]));
    }
    uint all_tiles = tiles.x * tiles.y * tiles.z;
    finish_dot(2u, all_tiles, finish != 0u);
}
