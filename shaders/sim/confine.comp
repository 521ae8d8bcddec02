// Vorticity confinement added to the faces (confinement.glsl, as the CPU's `force_row`):
// each inner face gets ½·dt·(f_before + f_after) of its component in the two cells beside
// it. An item a cell: its low x-, y- and z-faces, those that are inner faces. The forces
// are worked out where they are added (four cells' an item at most), so none is stored
// between passes. The two-pass way (`PLUME_GPU_TILED_VORTICITY=0`), after `curl.comp`.
layout(std430) readonly buffer OmegaX { float omega_x[]; };
layout(std430) readonly buffer OmegaY { float omega_y[]; };
layout(std430) readonly buffer OmegaZ { float omega_z[]; };
layout(std430) readonly buffer Magnitude { float magnitude[]; };
layout(std430) buffer U { float u_face[]; };
layout(std430) buffer V { float v_face[]; };
layout(std430) buffer W { float w_face[]; };

uniform float scale;   // ε·h
uniform float dt;

#define MAGNITUDE(q) magnitude[at(dims, q)]
#define OMEGA(q) vec3(omega_x[at(dims, q)], omega_y[at(dims, q)], omega_z[at(dims, q)])
#include "confinement.glsl"

// The force at the cell below p along axis a.
float below(uvec3 p, uint a) {
    uvec3 lo = p;
    lo[a] -= 1u;
    return confinement_force(lo)[a];
}

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    // Every inner face is a cell's low face along its axis.
    uvec3 p = coords(dims, n);
    vec3 here = confinement_force(p);
    if (p.x > 0u) {
        uint f = at(face_dims(0u), p);
        u_face[f] = confined_face(u_face[f], below(p, 0u), here.x);
    }
    if (p.y > 0u) {
        uint f = at(face_dims(1u), p);
        v_face[f] = confined_face(v_face[f], below(p, 1u), here.y);
    }
    if (p.z > 0u) {
        uint f = at(face_dims(2u), p);
        w_face[f] = confined_face(w_face[f], below(p, 2u), here.z);
    }
}
