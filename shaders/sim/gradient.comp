// Subtracts the pressure gradient from the faces: u −= (dt/h)·(p_hi − p_lo) inside, against
// pressure 0 beyond open ends; fixed ends (walls, inflows) untouched (as the CPU's
// `subtract_gradient`). An item a cell: its low face along each axis, and the high one where
// the cell is the last along that axis.
// Each axis' largest |face velocity| after it (a float's bits, NaN above infinity) is merged
// into Active[8 + axis] by an atomic a work group, and the pressure's largest |value| (every
// cell's is read) into Active[13] (`divergence.comp`'s pass set them to 0): the scalars'
// active region takes its reach from them (`active.comp`), the next sub-step its length and
// the step's finite check the faces' and the pressure's, where nothing has changed the faces
// since, so none of them reads those arrays again.
// In the byte model the pressure is read and the faces read and written.
// bytes: Pressure r, U rw, V rw, W rw
layout(std430) readonly buffer Pressure { float pressure[]; };
layout(std430) buffer U { float u_face[]; };
layout(std430) buffer V { float v_face[]; };
layout(std430) buffer W { float w_face[]; };
layout(std430) buffer Active { uint act[]; };

#include "gradient.glsl"

#include "group_top.glsl"
// (PER cells an invocation where the host compiled it so: cells.glsl)
#include "cells.glsl"

// What a cell's faces need, read before any is written: its pressure, the pressure below it
// along each axis (where it has a cell there; its own where not, unused), its low face
// along each axis and, where it is the last cell along that axis, its high face.
struct Read {
    float here;
    vec3 lo;
    vec3 low;
    vec3 high;
};

Read read_at(uint n) {
    Read c;
    uvec3 p = coords(dims, n);
    c.here = pressure[n];
    c.high = vec3(0.0);
    uint st[3] = uint[3](1u, dims.x, dims.x * dims.y);
    // (read whatever the cell's place, so that no read waits behind a branch: the cell's
    // own where it has none below, which `subtracted` then does not use)
    for (uint a = 0u; a < 3u; a++) {
        c.lo[a] = pressure[p[a] > 0u ? n - st[a] : n];
    }
    uint f = at(face_dims(0u), p);
    c.low.x = u_face[f];
    if (p.x + 1u == dims.x) {
        c.high.x = u_face[f + 1u];
    }
    f = at(face_dims(1u), p);
    c.low.y = v_face[f];
    if (p.y + 1u == dims.y) {
        c.high.y = v_face[f + dims.x];
    }
    f = at(face_dims(2u), p);
    c.low.z = w_face[f];
    if (p.z + 1u == dims.z) {
        c.high.z = w_face[f + dims.x * dims.y];
    }
    return c;
}

// Cell n's faces, less the gradient, from what `read_at` read; `top` takes their
// magnitudes' bits (and w the pressure's).
void subtract_at(uint n, Read c, inout uvec4 top) {
    uvec3 p = coords(dims, n);
    top.w = max(top.w, magnitude(c.here));
    uint f = at(face_dims(0u), p);
    float x = subtracted(c.low.x, p, 0u, p.x, c.here, c.lo.x);
    u_face[f] = x;
    top.x = max(top.x, magnitude(x));
    if (p.x + 1u == dims.x) {
        x = subtracted(c.high.x, p, 0u, dims.x, c.here, c.lo.x);
        u_face[f + 1u] = x;
        top.x = max(top.x, magnitude(x));
    }
    f = at(face_dims(1u), p);
    x = subtracted(c.low.y, p, 1u, p.y, c.here, c.lo.y);
    v_face[f] = x;
    top.y = max(top.y, magnitude(x));
    if (p.y + 1u == dims.y) {
        x = subtracted(c.high.y, p, 1u, dims.y, c.here, c.lo.y);
        v_face[f + dims.x] = x;
        top.y = max(top.y, magnitude(x));
    }
    f = at(face_dims(2u), p);
    x = subtracted(c.low.z, p, 2u, p.z, c.here, c.lo.z);
    w_face[f] = x;
    top.z = max(top.z, magnitude(x));
    if (p.z + 1u == dims.z) {
        x = subtracted(c.high.z, p, 2u, dims.z, c.here, c.lo.z);
        w_face[f + dims.x * dims.y] = x;
        top.z = max(top.z, magnitude(x));
    }
}

void main() {
    // Every cell's reads before the first write (no cell writes what another reads).
    Read cells[PER];
    for (int j = 0; j < PER; j++) {
        uint n = cell_of(j);
        if (n < count) {
            cells[j] = read_at(n);
        }
    }
    // (every invocation reaches the work group's maxima: they wait at barriers)
    uvec4 top = uvec4(0u);
    for (int j = 0; j < PER; j++) {
        uint n = cell_of(j);
        if (n < count) {
            subtract_at(n, cells[j], top);
        }
    }
    top = group_largest_of4(top);
    if (gl_LocalInvocationID.x == 0u) {
        for (uint a = 0u; a < 3u; a++) {
            atomicMax(act[8u + a], top[a]);
        }
        atomicMax(act[13], top.w);
    }
}
