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

uniform float k;   // dt/h
uniform uvec3 open_lo;
uniform uvec3 open_hi;

// The face `s` along `axis` in the row of cell p, less the gradient (`here`: p's pressure).
float subtracted(float face, uvec3 p, uint axis, uint s, float here) {
    if (s == p[axis]) {
        if (s > 0u) {
            uvec3 lo = p;
            lo[axis] -= 1u;
            face -= k * (here - pressure[at(dims, lo)]);
        } else if (open_lo[axis] != 0u) {
            face -= k * here;
        }
    } else if (open_hi[axis] != 0u) {
        face += k * here;
    }
    return face;
}

#include "group_top.glsl"

uint magnitude(float x) { return floatBitsToUint(x) & 0x7fffffffu; }

// Cell n's faces, less the gradient; `top` takes their magnitudes' bits (and w the
// pressure's).
void subtract_at(uint n, inout uvec4 top) {
    uvec3 p = coords(dims, n);
    float here = pressure[n];
    top.w = magnitude(here);
    uint f = at(face_dims(0u), p);
    float x = subtracted(u_face[f], p, 0u, p.x, here);
    u_face[f] = x;
    top.x = max(top.x, magnitude(x));
    if (p.x + 1u == dims.x) {
        x = subtracted(u_face[f + 1u], p, 0u, dims.x, here);
        u_face[f + 1u] = x;
        top.x = max(top.x, magnitude(x));
    }
    f = at(face_dims(1u), p);
    x = subtracted(v_face[f], p, 1u, p.y, here);
    v_face[f] = x;
    top.y = max(top.y, magnitude(x));
    if (p.y + 1u == dims.y) {
        x = subtracted(v_face[f + dims.x], p, 1u, dims.y, here);
        v_face[f + dims.x] = x;
        top.y = max(top.y, magnitude(x));
    }
    f = at(face_dims(2u), p);
    x = subtracted(w_face[f], p, 2u, p.z, here);
    w_face[f] = x;
    top.z = max(top.z, magnitude(x));
    if (p.z + 1u == dims.z) {
        x = subtracted(w_face[f + dims.x * dims.y], p, 2u, dims.z, here);
        w_face[f + dims.x * dims.y] = x;
        top.z = max(top.z, magnitude(x));
    }
}

void main() {
    uint n = gid();
    // (every invocation reaches the work group's maxima: they wait at barriers)
    uvec4 top = uvec4(0u);
    if (n < count) {
        subtract_at(n, top);
    }
    top = group_largest_of4(top);
    if (gl_LocalInvocationID.x == 0u) {
        for (uint a = 0u; a < 3u; a++) {
            atomicMax(act[8u + a], top[a]);
        }
        atomicMax(act[13], top.w);
    }
}
