// Subtracts the pressure gradient from the faces of component `axis`: u −= (dt/h)·(p_hi −
// p_lo) inside, against pressure 0 beyond open ends; fixed ends (walls, inflows) untouched
// (as the CPU's `subtract_gradient`).
layout(std430) readonly buffer Pressure { float pressure[]; };
layout(std430) buffer Face { float face[]; };

uniform uint axis;
uniform float k;   // dt/h
uniform uvec2 open_ends;

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 fd = face_dims(axis);
    uvec3 p = coords(fd, n);
    uint s = p[axis];
    if (s > 0u && s < dims[axis]) {
        uvec3 lo = p;
        lo[axis] -= 1u;
        face[n] -= k * (pressure[at(dims, p)] - pressure[at(dims, lo)]);
    } else if (s == 0u && open_ends.x != 0u) {
        face[n] -= k * pressure[at(dims, p)];
    } else if (s == dims[axis] && open_ends.y != 0u) {
        uvec3 lo = p;
        lo[axis] -= 1u;
        face[n] += k * pressure[at(dims, lo)];
    }
}
