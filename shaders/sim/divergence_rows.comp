// The pressure equation's right-hand side (`divergence.comp`'s pass: the speed limit held
// first where `limiting`, and with RESIDUAL the solve's starting residual in b's place and
// each work group's largest |b| and |r|) in rows of four cells an invocation: an item is a
// row of four cells along x, from cell 4·item. The y and z faces, the warm start and the
// result are read and written as vec4s; the x faces, whose rows are one longer than the
// grid's and so not whole vec4s, a float at a time. Each cell is worked out as
// `divergence.comp` works it out, from the same values in the same order (the faces held by
// `limit.glsl`, the sum in the same order, the residual by `pressure.glsl`'s `applied`):
// the same bits. The work groups' maxima are of other cells (four times as many a group),
// and the largest of them all the same. Only for a grid whose cells along x are a multiple
// of four (the host checks; `divergence.comp` elsewhere). `divergence.comp` reads six
// floats a cell (thirteen with RESIDUAL) and writes one; this pass reads nine vec4s or
// floats (sixteen) and writes one vec4 for four cells.
// In the byte model an item is a row (the same bytes a cell as `divergence.comp`'s).
// bytes when residual=1: U r ×4, V r, W r, X r, Rhs w
// bytes: U r ×4, V r, W r, Rhs w
layout(std430) buffer U { float u[]; };
layout(std430) buffer V { vec4 v[]; };
layout(std430) buffer W { vec4 w[]; };
layout(std430) writeonly buffer Rhs { vec4 rhs[]; };
layout(std430) buffer Counter { uint held_count[]; };
layout(std430) writeonly buffer Largest { uint largest[]; };
layout(std430) writeonly buffer Active { uint act[]; };

uniform float scale;   // −h/dt
uniform uint limiting;
uniform uint residual;  // 1 in the RESIDUAL variant (for the byte model)
uniform uint clear_region;
uniform uint out_at;

#ifdef RESIDUAL
layout(std430) readonly buffer X { vec4 x[]; };
layout(std430) coherent buffer PartialMax { uint partial_max[]; };
layout(std430) buffer Scalars { double scalars[]; };

uniform uint finish;  // 1: the last work group finishes op 0

#include "pressure.glsl"
#include "rows.glsl"
vec4 x_at(uint i) { return x[i]; }
ROW_OF(row_of_x, x_at)
#include "group_top.glsl"
#include "last_group.glsl"
#include "partial_top.glsl"
#include "cg_figures.glsl"

#include "pressure_rows.glsl"

// (A·x) at the row r's cells from the warm start (`laplace_rows.comp`'s way).
vec4 apply_row(uint r, uvec3 p) {
    return applied_row(row_of_x(0u, r, around(dims, r, p)), r, p);
}
#endif

#include "limit.glsl"

// The row r's right-hand sides (the speed limit held first, with `limiting`), written to
// Rhs; with RESIDUAL the residuals written in their place and the largest |values|' bits.
void divergence_row(uint r, out uint b_bits, out uint r_bits) {
    b_bits = 0u;
    r_bits = 0u;
    uvec3 p = coords(dims, 4u * r);
    uint sy = dims.x / 4u;
    uint sz = sy * dims.y;
    uint a = at(face_dims(0u), p);
    uint b = at(face_dims(1u), p) / 4u;
    uint c = at(face_dims(2u), p) / 4u;
    // (every face read before any is held: x's five, y's and z's low and high rows)
    float us[5] = float[5](u[a], u[a + 1u], u[a + 2u], u[a + 3u], u[a + 4u]);
    vec4 v0 = v[b];
    vec4 v1 = v[b + sy];
    vec4 w0 = w[c];
    vec4 w1 = w[c + sz];
#ifdef RESIDUAL
    vec4 ax = apply_row(r, p);
#endif
    uint count_held = 0u;
    bvec3 last = equal(p + uvec3(4u, 1u, 1u), dims);
    vec4 out_v;
    for (uint k = 0u; k < 4u; k++) {
        float u0 = us[k];
        float u1 = us[k + 1u];
        float vl = v0[k];
        float vh = v1[k];
        float wl = w0[k];
        float wh = w1[k];
        if (limiting != 0u) {
            // (as `divergence.comp`'s HOLD: each cell writes back the faces it owns, its
            // low ones and the high ones at the grid's end)
            if (over_limit(u0)) {
                u0 = held(u0);
                u[a + k] = u0;
                count_held += 1u;
            }
            if (over_limit(u1)) {
                u1 = held(u1);
                if (k == 3u && last.x) {
                    u[a + 4u] = u1;
                    count_held += 1u;
                }
            }
            if (over_limit(vl)) {
                vl = held(vl);
                v[b][k] = vl;
                count_held += 1u;
            }
            if (over_limit(vh)) {
                vh = held(vh);
                if (last.y) {
                    v[b + sy][k] = vh;
                    count_held += 1u;
                }
            }
            if (over_limit(wl)) {
                wl = held(wl);
                w[c][k] = wl;
                count_held += 1u;
            }
            if (over_limit(wh)) {
                wh = held(wh);
                if (last.z) {
                    w[c + sz][k] = wh;
                    count_held += 1u;
                }
            }
        }
        float d = u1 - u0 + vh - vl + wh - wl;
#ifdef RESIDUAL
        // (b's product kept apart: it must round as the stored b did)
        precise float bn = scale * d;
        float res = bn - ax[k];
        out_v[k] = res;
        b_bits = max(b_bits, floatBitsToUint(bn) & 0x7fffffffu);
        r_bits = max(r_bits, floatBitsToUint(res) & 0x7fffffffu);
#else
        out_v[k] = scale * d;
#endif
    }
    if (count_held > 0u) {
        atomicAdd(held_count[0], count_held);
    }
    rhs[r] = out_v;
}

void main() {
    uint r = gid();
    if (r == 0u) {
        for (uint a = 0u; a < 3u; a++) {
            act[8u + a] = 0u;
        }
        act[13] = 0u;
        if (clear_region != 0u) {
            for (uint q = 0u; q < 4u; q++) {
                act[out_at + q] = 0u;
            }
            act[11] = 0u;
            act[12] = 0u;
        }
    }
#ifdef RESIDUAL
    // (every invocation reaches the work group's maxima: they wait at barriers)
    uint b_bits = 0u;
    uint r_bits = 0u;
    if (r < count) {
        divergence_row(r, b_bits, r_bits);
    }
    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    uvec4 top = group_largest_of4(uvec4(b_bits, r_bits, 0u, 0u));
    if (gl_LocalInvocationID.x == 0u) {
        partial_max[g] = top.x;
        partial_max[groups + g] = top.y;
    }
    if (LAST_GROUP_ON && finish != 0u && last_group(groups)) {
        uint m = partial_top(0u, groups);
        uint mr = partial_top(groups, groups);
        if (gl_LocalInvocationID.x == 0u) {
            cg_figures(0u, 0.0lf, m, mr);
        }
    }
#else
    if (r >= count) {
        return;
    }
    if (r == 0u) {
        largest[0] = 0u;
    }
    uint b_bits;
    uint r_bits;
    divergence_row(r, b_bits, r_bits);
#endif
}
