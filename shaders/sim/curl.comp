// Vorticity ω = ∇ × u of the cell-centred velocity, and |ω|, into four fields: central
// differences, one-sided at the grid's ends, 0 along an axis one cell long (as the CPU's
// `vorticity`). The cell-centred velocity comes from the faces here, as `cell_velocity.comp`
// works it out (`precise`: rounded as a stored one), so no pass writes it first.
layout(std430) readonly buffer U { float u_face[]; };
layout(std430) readonly buffer V { float v_face[]; };
layout(std430) readonly buffer W { float w_face[]; };
layout(std430) writeonly buffer OmegaX { float omega_x[]; };
layout(std430) writeonly buffer OmegaY { float omega_y[]; };
layout(std430) writeonly buffer OmegaZ { float omega_z[]; };
layout(std430) writeonly buffer Magnitude { float magnitude[]; };

uniform float inv_h;

// Component c of the cell-centred velocity at cell p: the mean of the cell's two faces.
float cell_vel(uvec3 p, uint c) {
    precise float m;
    if (c == 0u) {
        uint a = at(face_dims(0u), p);
        m = 0.5 * (u_face[a] + u_face[a + 1u]);
    } else if (c == 1u) {
        uint b = at(face_dims(1u), p);
        m = 0.5 * (v_face[b] + v_face[b + dims.x]);
    } else {
        uint k = at(face_dims(2u), p);
        m = 0.5 * (w_face[k] + w_face[k + dims.x * dims.y]);
    }
    return m;
}

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
    precise float d = s * (cell_vel(hi, c) - cell_vel(lo, c));
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
