// The multigrid smoother's damped Jacobi sweeps on one level (see `mg.comp`), several in
// one pass: each work group takes a tile of 8×8×8 cells with two cells of halo into shared
// memory (the right-hand side, the diagonal, x), sweeps the tile and its inner halo, then
// the tile, and writes only the tile. With `from_zero` the first of three sweeps starts
// from x = 0 (its values need no neighbours, so they are worked out as the tile is read):
// weights[0], [1] and [2]; without it two sweeps from Src's x: weights[0] and [1]. The same
// values, cell for cell, as ops 0 and 1 of `mg.comp` give one pass each, for a third of
// their reads and writes of the level (the halo comes from the cache). The work group must
// have 512 invocations.
layout(std430) readonly buffer Src { float src[]; };
layout(std430) writeonly buffer Dst { float dst[]; };
layout(std430) readonly buffer B { float b[]; };
// The solve's figures: once it has converged (Scalars[4]) there is nothing to do.
layout(std430) readonly buffer Scalars { double scalars[]; };

uniform uvec3 ld;       // this level's cells
uniform uint mo;        // its mask bits (word offset) in Levels; 0xffffffff: level 0
uniform float scale;    // 2^level
uniform vec3 weights;   // the smoother's three weights
uniform uint from_zero; // 1: three sweeps, the first from zero; 0: two, from Src's x
uniform uint so;        // offsets: source, destination, right-hand side
uniform uint dso;
uniform uint bo;
uniform uvec3 tiles;    // tiles along each axis (8 cells a side, the last ones cut short)
uniform uvec3 open_lo;
uniform uvec3 open_hi;

#include "levels.glsl"

const int T = 8;         // a tile's cells along an axis
const int H = 2;         // halo: one cell a sweep after the first
const int R = T + 2 * H; // the region read
const int R3 = R * R * R;

shared float xa[R3];     // x before the sweeps
shared float xb[R3];     // after the first of them
shared float bs[R3];     // the right-hand side
shared float ds[R3];     // the diagonal; −1 for a cell that is solid or outside the level

int ri(ivec3 r) { return r.x + R * (r.y + R * r.z); }

// The rediscretised diagonal at p, summed as `mg.comp`'s diag_and_sum sums it.
float diag_at(uvec3 p) {
    float n = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int side = 0; side < 2; side++) {
            bool inside = side == 0 ? p[a] > 0u : p[a] + 1u < ld[a];
            if (inside) {
                uvec3 q = p;
                q[a] = side == 0 ? p[a] - 1u : p[a] + 1u;
                if (fluid_in(ld, mo, q)) {
                    n += 1.0;
                }
            } else if ((side == 0 ? open_lo[a] : open_hi[a]) != 0u) {
                n += 2.0 * scale / (scale + 1.0);
            }
        }
    }
    return n;
}

// One damped Jacobi update of region cell r from xa (`first`) or xb, as op 1: the fluid
// neighbours (inside the level) summed in diag_and_sum's order.
float relax(ivec3 r, float w, bool first) {
    int c = ri(r);
    float d = ds[c];
    if (d < 0.0) {
        return 0.0;
    }
    float s = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int side = 0; side < 2; side++) {
            ivec3 q = r;
            q[a] += side == 0 ? -1 : 1;
            int k = ri(q);
            if (ds[k] >= 0.0) {
                s += first ? xa[k] : xb[k];
            }
        }
    }
    float x = first ? xa[c] : xb[c];
    return d > 0.0 ? x + w * (bs[c] / scale - (d * x - s)) / d : 0.0;
}

void main() {
    // (the same for the whole work group: no invocation is left waiting at a barrier)
    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (scalars[4] != 0.0 || g >= tiles.x * tiles.y * tiles.z) {
        return;
    }
    ivec3 o = ivec3(coords(tiles, g) * uint(T)) - ivec3(H);
    uint t = gl_LocalInvocationID.x;
    bool zero = from_zero != 0u;
    for (uint i = t; i < uint(R3); i += uint(WG)) {
        ivec3 p = o + ivec3(int(i) % R, (int(i) / R) % R, int(i) / (R * R));
        float d = -1.0;
        float bv = 0.0;
        float x = 0.0;
        if (all(greaterThanEqual(p, ivec3(0))) && all(lessThan(p, ivec3(ld)))) {
            uvec3 up = uvec3(p);
            if (fluid_in(ld, mo, up)) {
                uint c = at(ld, up);
                d = diag_at(up);
                bv = b[bo + c];
                // (op 0's value: the sweep from zero)
                x = zero ? (d > 0.0 ? weights[0] * (bv / scale) / d : 0.0) : src[so + c];
            }
        }
        ds[i] = d;
        bs[i] = bv;
        xa[i] = x;
    }
    barrier();
    float w1 = zero ? weights[1] : weights[0];
    float w2 = zero ? weights[2] : weights[1];
    // The tile and one cell of halo.
    const int M = R - 2;
    for (uint i = t; i < uint(M * M * M); i += uint(WG)) {
        ivec3 r = ivec3(int(i) % M, (int(i) / M) % M, int(i) / (M * M)) + 1;
        xb[ri(r)] = relax(r, w1, true);
    }
    barrier();
    // The tile.
    ivec3 r = ivec3(int(t) % T, (int(t) / T) % T, int(t) / (T * T)) + H;
    ivec3 p = o + r;
    if (all(lessThan(p, ivec3(ld)))) {
        dst[dso + at(ld, uvec3(p))] = relax(r, w2, false);
    }
}
