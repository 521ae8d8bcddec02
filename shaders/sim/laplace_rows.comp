// An iteration's q = A·p of the pressure solve (`laplace.comp` without RESIDUAL; with
// DIRECTION the new search direction p' = z + β·p worked out as the stencil reads it and
// written too) in rows of four cells an invocation (`rows.glsl`: each array loaded and
// stored as vec4s), with each work group's Σ p·q over its DOT_WG cells in the tree a group
// of DOT_WG cells makes (`group_sum.glsl`'s SUM_PER 4, in groups of DOT_WG / 4 rows), and
// with `finish` α worked out by the last group. Each cell's value is worked out by the
// functions `laplace.comp` uses (pressure.glsl's `applied`, the direction's `precise`
// update) from the same values in the same order: the same bits. Only for a grid whose cells
// along x are a multiple of four (the host checks; `laplace.comp` elsewhere).
// In the byte model an item is a row, a vec4 of each array (the same bytes a cell as
// `laplace.comp`'s iteration).
// bytes when direction=1: X r, Z r, PNew w, Out w
// bytes: X r, Out w
layout(std430) readonly buffer X { vec4 x[]; };
layout(std430) writeonly buffer Out { vec4 result[]; };
layout(std430) buffer Scalars { double scalars[]; };
layout(std430) buffer Largest { uint largest[]; };
#ifdef DIRECTION
layout(std430) readonly buffer Z { vec4 z[]; };
layout(std430) writeonly buffer PNew { vec4 p_new[]; };
#endif

uniform uint direction;  // 1 in the DIRECTION variant (for the byte model)
uniform uint finish;     // 1: the last work group finishes op 1 (α)

#ifdef DIRECTION
// β, read once (set in main).
float beta;

// The new direction at the four cells of the vec4 at i, as `laplace.comp`'s `value`.
vec4 value4(uint i) {
    vec4 zz = z[i];
    vec4 xx = x[i];
    vec4 v;
    for (int k = 0; k < 4; k++) {
        precise float t = beta == 0.0 ? zz[k] : zz[k] + beta * xx[k];
        v[k] = t;
    }
    return v;
}
#else
vec4 value4(uint i) {
    return x[i];
}
#endif

#include "pressure.glsl"
#include "rows.glsl"
ROW_OF(row_of_values, value4)
#include "group_sum.glsl"
#include "last_group.glsl"
#include "cg_sum.glsl"
#include "cg_figures.glsl"

#include "pressure_rows.glsl"

// A·p' at the row r's cells, and p' there (`here`).
vec4 apply_row(uint r, out vec4 here) {
    uvec3 p = coords(dims, 4u * r);
    Row w = row_of_values(0u, r, around(dims, r, p));
    here = w.o;
    return applied_row(w, r, p);
}

void main() {
    uint r = gid();
    uint groups = gl_NumWorkGroups.x * gl_NumWorkGroups.y;
    // (the same for every invocation: none is left waiting at a barrier)
    if (scalars[4] == 0.0) {
#ifdef DIRECTION
        beta = float(scalars[3]);
#endif
        double pq[4] = double[4](0.0lf, 0.0lf, 0.0lf, 0.0lf);
        if (r < count) {
            vec4 pn;
            vec4 v = apply_row(r, pn);
            result[r] = v;
#ifdef DIRECTION
            p_new[r] = pn;
#endif
            for (int k = 0; k < 4; k++) {
                pq[k] = double(pn[k]) * double(v[k]);
            }
        }
        write_group_sums(pq, gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
    }
    finish_dot(1u, groups, finish != 0u);
}
