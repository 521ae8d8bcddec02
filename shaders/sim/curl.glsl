// The vorticity ω = ∇ × u of the cell-centred velocity at a cell, and |ω| (as the CPU's
// `vorticity`): central differences, one-sided at the grid's ends, 0 along an axis one cell
// long. `precise` throughout: the same bits in `curl.comp`, which stores them, and in
// `vorticity.comp`, which keeps them in shared memory. Needs cell_velocity.glsl and the
// uniform `inv_h`.
#ifndef CURL_GLSL
#define CURL_GLSL

// s·(f(hi) − f(lo)) of component c along axis a at cell p (see `diff_cells`).
float curl_diff(uvec3 p, uint c, uint a) {
    uvec3 lo;
    uvec3 hi;
    float s = diff_cells(p, a, lo, hi);
    if (s == 0.0) {
        return 0.0;
    }
    precise float d = s * (cell_velocity(hi, c) - cell_velocity(lo, c));
    return d;
}

// (ω, |ω|) at cell p.
vec4 vorticity_at(uvec3 p) {
    precise float a = (curl_diff(p, 2u, 1u) - curl_diff(p, 1u, 2u)) * inv_h;
    precise float b = (curl_diff(p, 0u, 2u) - curl_diff(p, 2u, 0u)) * inv_h;
    precise float c = (curl_diff(p, 1u, 0u) - curl_diff(p, 0u, 1u)) * inv_h;
    precise float m = sqrt(a * a + b * b + c * c);
    return vec4(a, b, c, m);
}

#endif
