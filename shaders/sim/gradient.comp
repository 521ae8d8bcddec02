// Subtracts the pressure gradient from the faces: u −= (dt/h)·(p_hi − p_lo) inside, against
// pressure 0 beyond open ends; fixed ends (walls, inflows) untouched (as the CPU's
// `subtract_gradient`). An item a cell: its low face along each axis, and the high one where
// the cell is the last along that axis.
layout(std430) readonly buffer Pressure { float pressure[]; };
layout(std430) buffer U { float u_face[]; };
layout(std430) buffer V { float v_face[]; };
layout(std430) buffer W { float w_face[]; };

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

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    float here = pressure[n];
    uint f = at(face_dims(0u), p);
    u_face[f] = subtracted(u_face[f], p, 0u, p.x, here);
    if (p.x + 1u == dims.x) {
        u_face[f + 1u] = subtracted(u_face[f + 1u], p, 0u, dims.x, here);
    }
    f = at(face_dims(1u), p);
    v_face[f] = subtracted(v_face[f], p, 1u, p.y, here);
    if (p.y + 1u == dims.y) {
        v_face[f + dims.x] = subtracted(v_face[f + dims.x], p, 1u, dims.y, here);
    }
    f = at(face_dims(2u), p);
    w_face[f] = subtracted(w_face[f], p, 2u, p.z, here);
    if (p.z + 1u == dims.z) {
        w_face[f + dims.x * dims.y] = subtracted(w_face[f + dims.x * dims.y], p, 2u, dims.z, here);
    }
}
