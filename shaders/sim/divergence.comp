// The pressure equation's right-hand side: rhs = −(h/dt)·D with D the sum of each cell's
// outgoing face velocities (as the CPU's `divergence_rhs`). With `limiting`, the speed
// limit's stage first, as `limit.comp` does it (limit.glsl): every face held within the
// limit, the held ones written back and counted by the cell that owns them (its low face
// along each axis, and the high one at the grid's end), and D summed from the held values
// (clamping rounds nothing, so a face a neighbour owns gives the same value either way).
// Item 0 also sets the pressure solve's largest |residual| to 0, before the solve's first
// Laplacian merges into it (`cg_scalars.comp`'s op 0 reads it), and each axis' largest
// |face velocity| and the pressure's largest |value| in Active to 0, before the gradient's
// pass merges into them; with `clear_region` also the scalars' region's figures that
// `active.comp`'s op 3 would clear (this sub-step's maxima at `out_at`, the cells and the
// flag), so that op needs no dispatch of its own.
// Compiled with RESIDUAL (where nothing changes the right-hand side before the solve: an
// open domain, no obstacles, no gas expansion), the solve's starting residual is worked out
// in the same pass: r = b − A·x from the pressure's warm start X is written in b's place
// (b itself is not stored), and each work group writes its largest |b| and |r| (a float's
// bits) to PartialMax at its number g and at groups + g, where `cg_scalars.comp`'s op 0
// finishes both (maxima: the same in any order). Two dispatches fewer (the right-hand
// side's reduction and the residual's Laplacian) and one pass over the grid. With `finish`
// the dispatch's last work group (`last_group.glsl`) finishes op 0 itself: a dispatch
// fewer again.
// In the byte model the faces are read and the right-hand side written: with `limiting`
// only faces over the limit are written back (a few, or none), not counted; with RESIDUAL
// the warm start is read too.
// bytes when residual=1: U r, V r, W r, X r, Rhs w
// bytes: U r, V r, W r, Rhs w
layout(std430) buffer U { float u[]; };
layout(std430) buffer V { float v[]; };
layout(std430) buffer W { float w[]; };
layout(std430) writeonly buffer Rhs { float rhs[]; };
layout(std430) buffer Counter { uint held_count[]; };
layout(std430) writeonly buffer Largest { uint largest[]; };
layout(std430) writeonly buffer Active { uint act[]; };

uniform float scale;   // −h/dt
uniform uint limiting;
uniform uint residual;  // 1 in the RESIDUAL variant (for the byte model)
uniform uint clear_region;
uniform uint out_at;

#ifdef RESIDUAL
layout(std430) readonly buffer X { float x[]; };
layout(std430) coherent buffer PartialMax { uint partial_max[]; };
layout(std430) buffer Scalars { double scalars[]; };

uniform uint finish;  // 1: the last work group finishes op 0

float warm_start(uint m) { return x[m]; }

#define STENCIL_VALUE warm_start
#include "pressure.glsl"
#include "group_top.glsl"
#include "last_group.glsl"
#include "partial_top.glsl"
#include "cg_figures.glsl"
#endif

#include "limit.glsl"

// Holds VAL; where it was over the limit and the cell owns the face (OWNED), writes it
// back to ARR[IDX] and counts it.
#define HOLD(VAL, ARR, IDX, OWNED) \
    if (over_limit(VAL)) { \
        VAL = held(VAL); \
        if (OWNED) { \
            ARR[IDX] = VAL; \
            count_held += 1u; \
        } \
    }

// Cell n's right-hand side (the speed limit held first, with `limiting`), written to Rhs;
// with RESIDUAL the residual written in its place and both |values|' bits set.
void divergence(uint n, out uint b_bits, out uint r_bits) {
    b_bits = 0u;
    r_bits = 0u;
    uvec3 p = coords(dims, n);
    uint a = at(face_dims(0u), p);
    uint b = at(face_dims(1u), p);
    uint c = at(face_dims(2u), p);
    uint a1 = a + 1u;
    uint b1 = b + dims.x;
    uint c1 = c + dims.x * dims.y;
    float u0 = u[a];
    float u1 = u[a1];
    float v0 = v[b];
    float v1 = v[b1];
    float w0 = w[c];
    float w1 = w[c1];
    if (limiting != 0u) {
        uint count_held = 0u;
        bvec3 last = equal(p + 1u, dims);
        HOLD(u0, u, a, true)
        HOLD(u1, u, a1, last.x)
        HOLD(v0, v, b, true)
        HOLD(v1, v, b1, last.y)
        HOLD(w0, w, c, true)
        HOLD(w1, w, c1, last.z)
        if (count_held > 0u) {
            atomicAdd(held_count[0], count_held);
        }
    }
    float d = u1 - u0 + v1 - v0 + w1 - w0;
#ifdef RESIDUAL
    // (b's product kept apart: it must round as the stored b did)
    precise float bn = scale * d;
    float r = bn - apply(n);
    rhs[n] = r;
    b_bits = floatBitsToUint(bn) & 0x7fffffffu;
    r_bits = floatBitsToUint(r) & 0x7fffffffu;
#else
    rhs[n] = scale * d;
#endif
}

void main() {
    uint n = gid();
    if (n == 0u) {
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
    if (n < count) {
        divergence(n, b_bits, r_bits);
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
    if (n >= count) {
        return;
    }
    if (n == 0u) {
        largest[0] = 0u;
    }
    uint b_bits;
    uint r_bits;
    divergence(n, b_bits, r_bits);
#endif
}
