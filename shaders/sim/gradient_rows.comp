// The pressure gradient subtracted from the faces (`gradient.comp`'s pass) in rows of four
// cells an invocation: an item is a row of four cells along x, from cell 4·item. The
// pressure (the row's, the row below along y and along z, and the vec4 before it along x)
// and the y and z faces are read and written as vec4s; the x faces, whose rows are one
// longer than the grid's and so not whole vec4s, a float at a time. Each face is worked out
// by `gradient.glsl`'s `subtracted` from the same values as `gradient.comp` works it out:
// the same bits; the largest magnitudes go to Active as there (the largest of the same
// values). Only for a grid whose cells along x are a multiple of four (the host checks;
// `gradient.comp` elsewhere). On the H200 a copy moved 1530 GB/s a float an invocation and
// 4127 as vec4s; `gradient.comp` reads seven floats and writes three a cell, this pass
// ten vec4s or floats and six for four cells.
// In the byte model an item is a row (the same bytes a cell as `gradient.comp`'s).
// bytes: Pressure r, U rw ×4, V rw, W rw
layout(std430) readonly buffer Pressure { vec4 pressure[]; };
layout(std430) buffer U { float u_face[]; };
layout(std430) buffer V { vec4 v_face[]; };
layout(std430) buffer W { vec4 w_face[]; };
layout(std430) buffer Active { uint act[]; };

#include "gradient.glsl"
#include "group_top.glsl"

void main() {
    uint r = gid();
    uvec4 top = uvec4(0u);
    if (r < count) {
        uvec3 p = coords(dims, 4u * r);
        uint sy = dims.x / 4u;
        uint sz = sy * dims.y;
        // Every read before the first write (no row writes what another reads): the
        // pressure here and below along each axis (the row's own where it has none below,
        // which `subtracted` then does not use), the low faces, and the high ones where the
        // row is the last along an axis.
        vec4 here = pressure[r];
        float before = pressure[p.x > 0u ? r - 1u : r].w;
        vec4 below_y = pressure[p.y > 0u ? r - sy : r];
        vec4 below_z = pressure[p.z > 0u ? r - sz : r];
        uint fu = at(face_dims(0u), p);
        vec4 u_low = vec4(u_face[fu], u_face[fu + 1u], u_face[fu + 2u], u_face[fu + 3u]);
        bool last_x = p.x + 4u == dims.x;
        float u_high = last_x ? u_face[fu + 4u] : 0.0;
        uint fv = at(face_dims(1u), p) / 4u;
        vec4 v_low = v_face[fv];
        bool last_y = p.y + 1u == dims.y;
        vec4 v_high = last_y ? v_face[fv + sy] : vec4(0.0);
        uint fw = at(face_dims(2u), p) / 4u;
        vec4 w_low = w_face[fw];
        bool last_z = p.z + 1u == dims.z;
        vec4 w_high = last_z ? w_face[fw + sz] : vec4(0.0);
        vec4 u_new;
        vec4 v_new;
        vec4 w_new;
        vec4 v_hi_new = vec4(0.0);
        vec4 w_hi_new = vec4(0.0);
        for (uint k = 0u; k < 4u; k++) {
            uvec3 q = p + uvec3(k, 0u, 0u);
            float c = here[k];
            float lo_x = k > 0u ? here[k - 1u] : (p.x > 0u ? before : c);
            top.w = max(top.w, magnitude(c));
            u_new[k] = subtracted(u_low[k], q, 0u, q.x, c, lo_x);
            top.x = max(top.x, magnitude(u_new[k]));
            v_new[k] = subtracted(v_low[k], q, 1u, q.y, c, below_y[k]);
            top.y = max(top.y, magnitude(v_new[k]));
            w_new[k] = subtracted(w_low[k], q, 2u, q.z, c, below_z[k]);
            top.z = max(top.z, magnitude(w_new[k]));
            if (last_y) {
                v_hi_new[k] = subtracted(v_high[k], q, 1u, dims.y, c, below_y[k]);
                top.y = max(top.y, magnitude(v_hi_new[k]));
            }
            if (last_z) {
                w_hi_new[k] = subtracted(w_high[k], q, 2u, dims.z, c, below_z[k]);
                top.z = max(top.z, magnitude(w_hi_new[k]));
            }
        }
        for (uint k = 0u; k < 4u; k++) {
            u_face[fu + k] = u_new[k];
        }
        if (last_x) {
            float x = subtracted(u_high, p + uvec3(3u, 0u, 0u), 0u, dims.x, here.w,
                                 here.z);
            u_face[fu + 4u] = x;
            top.x = max(top.x, magnitude(x));
        }
        v_face[fv] = v_new;
        if (last_y) {
            v_face[fv + sy] = v_hi_new;
        }
        w_face[fw] = w_new;
        if (last_z) {
            w_face[fw + sz] = w_hi_new;
        }
    }
    // (every invocation reaches the work group's maxima: they wait at barriers)
    top = group_largest_of4(top);
    if (gl_LocalInvocationID.x == 0u) {
        for (uint a = 0u; a < 3u; a++) {
            atomicMax(act[8u + a], top[a]);
        }
        atomicMax(act[13], top.w);
    }
}
