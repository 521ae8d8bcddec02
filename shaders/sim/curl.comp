// Vorticity ω = ∇ × u of the cell-centred velocity, and |ω|, into four fields: central
// differences, one-sided at the grid's ends, 0 along an axis one cell long (as the CPU's
// `vorticity`). The cell-centred velocity comes from the faces here (cell_velocity.glsl), so
// no pass writes it first.
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer OmegaX { float omega_x[]; };
layout(std430) writeonly buffer OmegaY { float omega_y[]; };
layout(std430) writeonly buffer OmegaZ { float omega_z[]; };
layout(std430) writeonly buffer Magnitude { float magnitude[]; };

uniform float inv_h;

#include "cell_velocity.glsl"

// s·(f(hi) − f(lo)) of component c along axis a at cell p.
float diff(uvec3 p, uint c, uint a) {
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
    precise float d = s * (cell_velocity(hi, c) - cell_velocity(lo, c));
    return d;
}

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    precise float a = (diff(p, 2u, 1u) - diff(p, 1u, 2u)) * inv_h;
    precise float b = (diff(p, 0u, 2u) - diff(p, 2u, 0u)) * inv_h;
    precise float c = (diff(p, 1u, 0u) - diff(p, 0u, 1u)) * inv_h;
    omega_x[n] = a;
    omega_y[n] = b;
    omega_z[n] = c;
    precise float m = sqrt(a * a + b * b + c * c);
    magnitude[n] = m;
}
