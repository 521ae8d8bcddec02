// The confinement force ε·h·(N × ω) at each cell, N = ∇|ω| / |∇|ω|| (none where |∇|ω|| is
// tiny beside |ω|), into three floats a cell (as the CPU's `force_row`).
layout(std430) readonly buffer OmegaX { float omega_x[]; };
layout(std430) readonly buffer OmegaY { float omega_y[]; };
layout(std430) readonly buffer OmegaZ { float omega_z[]; };
layout(std430) readonly buffer Magnitude { float magnitude[]; };
layout(std430) writeonly buffer Force { float force[]; };

uniform float scale;   // ε·h

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
    return s * (magnitude[at(dims, hi)] - magnitude[at(dims, lo)]);
}

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    vec3 g = vec3(diff_mag(p, 0u), diff_mag(p, 1u), diff_mag(p, 2u));
    float len = sqrt(g.x * g.x + g.y * g.y + g.z * g.z);
    float m = magnitude[n];
    float inv = (len <= 1e-6 * m || len == 0.0) ? 0.0 : scale / len;
    vec3 nv = g * inv;
    vec3 o = vec3(omega_x[n], omega_y[n], omega_z[n]);
    force[3u * n] = nv.y * o.z - nv.z * o.y;
    force[3u * n + 1u] = nv.z * o.x - nv.x * o.z;
    force[3u * n + 2u] = nv.x * o.y - nv.y * o.x;
}
