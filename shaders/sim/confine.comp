// Vorticity confinement added to the faces: the force ε·h·(N × ω) at each cell, N = ∇|ω| /
// |∇|ω|| (none where |∇|ω|| is tiny beside |ω|), as the CPU's `force_row`, and each inner
// face gets ½·dt·(f_before + f_after) of its component in the two cells beside it. An item a
// cell: its low x-, y- and z-faces, those that are inner faces. The forces are worked out
// where they are added (four cells' an item at most), so none is stored between passes.
// `precise` keeps the CPU's order of operations: without it Mesa's compiler rearranged the
// force's arithmetic once it was no longer stored, and rounded differently.
layout(std430) readonly buffer OmegaX { float omega_x[]; };
layout(std430) readonly buffer OmegaY { float omega_y[]; };
layout(std430) readonly buffer OmegaZ { float omega_z[]; };
layout(std430) readonly buffer Magnitude { float magnitude[]; };
layout(std430) buffer U { float u_face[]; };
layout(std430) buffer V { float v_face[]; };
layout(std430) buffer W { float w_face[]; };

uniform float scale;   // ε·h
uniform float dt;

float diff_mag(uvec3 p, uint a) {
    uint q = p[a];
    uint n = dims[a];
    bool below = q > 0u;
    bool above = q + 1u < n;
    if (!below && !above) {
        return 0.0;
    }
    uvec3 lo = p;
    uvec3 hi = p;
    float s = 1.0;
    if (below && above) {
        lo[a] = q - 1u;
        hi[a] = q + 1u;
        s = 0.5;
    } else if (above) {
        hi[a] = q + 1u;
    } else {
        lo[a] = q - 1u;
    }
    precise float d = s * (magnitude[at(dims, hi)] - magnitude[at(dims, lo)]);
    return d;
}

// The confinement force at cell p.
vec3 force(uvec3 p) {
    uint n = at(dims, p);
    vec3 g = vec3(diff_mag(p, 0u), diff_mag(p, 1u), diff_mag(p, 2u));
    precise float len = sqrt(g.x * g.x + g.y * g.y + g.z * g.z);
    float m = magnitude[n];
    float inv = (len <= 1e-6 * m || len == 0.0) ? 0.0 : scale / len;
    precise vec3 nv = g * inv;
    vec3 o = vec3(omega_x[n], omega_y[n], omega_z[n]);
    precise vec3 f = vec3(nv.y * o.z - nv.z * o.y, nv.z * o.x - nv.x * o.z, nv.x * o.y - nv.y * o.x);
    return f;
}

// ½·dt·(f_a(p − e_a) + f_a(p)): what the inner face p of axis a gets (`here` is f(p)).
float added(uvec3 p, uint a, vec3 here) {
    uvec3 lo = p;
    lo[a] -= 1u;
    precise float v = 0.5 * dt * (force(lo)[a] + here[a]);
    return v;
}

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    // Every inner face is a cell's low face along its axis.
    uvec3 p = coords(dims, n);
    vec3 here = force(p);
    if (p.x > 0u) {
        uint f = at(face_dims(0u), p);
        precise float v = u_face[f] + added(p, 0u, here);
        u_face[f] = v;
    }
    if (p.y > 0u) {
        uint f = at(face_dims(1u), p);
        precise float v = v_face[f] + added(p, 1u, here);
        v_face[f] = v;
    }
    if (p.z > 0u) {
        uint f = at(face_dims(2u), p);
        precise float v = w_face[f] + added(p, 2u, here);
        w_face[f] = v;
    }
}
