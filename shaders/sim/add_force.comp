// Adds a cell-centred force (three floats a cell) to the inner faces of component `axis`:
// each face gets ½·dt·(f_before + f_after) of the two cells beside it.
layout(std430) readonly buffer Force { float force[]; };
layout(std430) buffer Face { float face[]; };

uniform uint axis;
uniform float dt;

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 fd = face_dims(axis);
    uvec3 p = coords(fd, n);
    if (p[axis] == 0u || p[axis] == dims[axis]) {
        return;
    }
    uvec3 lo = p;
    lo[axis] -= 1u;
    float a = force[3u * at(dims, lo) + axis];
    float b = force[3u * at(dims, p) + axis];
    face[n] += 0.5 * dt * (a + b);
}
