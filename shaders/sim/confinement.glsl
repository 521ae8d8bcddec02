// The vorticity confinement force ε·h·(N × ω) at a cell, N = ∇|ω| / |∇|ω|| (none where
// |∇|ω|| is tiny beside |ω|), as the CPU's `force_row`, and what an inner face gets of it.
// `precise` keeps the CPU's order of operations (without it Mesa's compiler rearranged the
// force's arithmetic once it was no longer stored, and rounded differently), and the same
// bits in `confine.comp`, which reads ω and |ω| from arrays, and `vorticity.comp`, which
// keeps them in shared memory. Needs MAGNITUDE(q) (|ω| at cell q) and OMEGA(q) (ω at cell
// q, a vec3) defined before it, and the uniforms `scale` (ε·h) and `dt`.
#ifndef CONFINEMENT_GLSL
#define CONFINEMENT_GLSL

// s·(|ω|(hi) − |ω|(lo)) along axis a at cell p (see `diff_cells`).
float diff_mag(uvec3 p, uint a) {
    uvec3 lo;
    uvec3 hi;
    float s = diff_cells(p, a, lo, hi);
    if (s == 0.0) {
        return 0.0;
    }
    precise float d = s * (MAGNITUDE(hi) - MAGNITUDE(lo));
    return d;
}

// The confinement force at cell p.
vec3 confinement_force(uvec3 p) {
    vec3 g = vec3(diff_mag(p, 0u), diff_mag(p, 1u), diff_mag(p, 2u));
    precise float len = sqrt(g.x * g.x + g.y * g.y + g.z * g.z);
    // (`precise` down to the comparison: NVIDIA's driver gave the two kernels different
    // bits, cause not found; see `kernels::tiled_vorticity`)
    precise float least = 1e-6 * MAGNITUDE(p);
    precise float inv = (len <= least || len == 0.0) ? 0.0 : scale / len;
    precise vec3 nv = g * inv;
    vec3 o = OMEGA(p);
    precise vec3 f = vec3(nv.y * o.z - nv.z * o.y, nv.z * o.x - nv.x * o.z, nv.x * o.y - nv.y * o.x);
    return f;
}

// An inner face's new value: `face` + ½·dt·(f_below + f_here) of its axis' component.
float confined_face(float face, float below, float here) {
    precise float add = 0.5 * dt * (below + here);
    precise float v = face + add;
    return v;
}

#endif
