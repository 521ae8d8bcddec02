// Implicit diffusion, (1 + a·n)·x − a·Σ neighbours = rhs, by red-black Gauss-Seidel, as the
// CPU's `diffuse` solvers: the density (`axis` 3, cells) or one velocity component (`axis`
// 0–2, its faces). `masked` 0: no obstacles, the CPU's `Stencil` (fixed ends of a component
// are Dirichlet sides of the region between them, their values moved into the right-hand
// side); 1: around solid cells, which are neither solved nor read (zero flux, the density);
// 2: solid faces and fixed ends hold their values and are read (the velocity).
// `phase` 0: rhs = x (+ a·speed next to an inflow, masked 0); 1: one colour's sweep;
// 2: |residual| into Out (0 where not solved); 3: |rhs| into Out where solved.
layout(std430) buffer X { float x[]; };
layout(std430) buffer Rhs { float rhs[]; };
layout(std430) writeonly buffer Out { float result[]; };

uniform uvec3 adims;       // the array's samples along x, y, z
uniform uint axis;
uniform uint masked;
uniform uvec2 fixed_ends;  // the ends along `axis` that hold their value (walls, inflows)
uniform vec2 end_speed;    // and that value
uniform float a;
uniform float omega;       // 1: Gauss-Seidel (as the CPU writes it, old + ω·(gs − old))
uniform vec4 inv_lo;       // 1/(1 + a·n) for n = 0..3, worked out on the CPU
uniform vec3 inv_hi;       // and n = 4..6
uniform uint phase;
uniform uint color;

#include "solid.glsl"

float inv_diag(uint n) {
    return n < 4u ? inv_lo[n] : inv_hi[n - 4u];
}

// The region solved without obstacles: along `axis`, between the fixed ends.
uint region_lo() { return axis < 3u ? fixed_ends.x : 0u; }
uint region_hi() { return axis < 3u ? adims[axis] - fixed_ends.y : adims[axis < 3u ? axis : 0u]; }

// Whether a face of `axis` touches a solid cell (the CPU's `Solids::faces`).
bool solid_face(uvec3 p) {
    uint s = p[axis];
    bool below = false;
    bool above = false;
    if (s > 0u) {
        uvec3 q = p;
        q[axis] = s - 1u;
        below = solid_at(at(dims, q));
    }
    if (s < dims[axis]) {
        above = solid_at(at(dims, p));
    }
    return below || above;
}

// Whether the sample at p is solved for.
bool solved(uvec3 p) {
    if (masked == 0u) {
        if (axis == 3u) {
            return true;
        }
        return p[axis] >= region_lo() && p[axis] < region_hi();
    }
    if (masked == 1u) {
        return !solid_at(at(adims, p));
    }
    bool end = (p[axis] == 0u && fixed_ends.x != 0u)
        || (p[axis] == adims[axis] - 1u && fixed_ends.y != 0u);
    return !end && !solid_face(p);
}

// The CPU's `Stencil` update or residual at p (region coordinates q, region size rd).
void stencil(uint c, uvec3 p, bool update) {
    uvec3 q = p;
    uvec3 rd = adims;
    if (axis < 3u) {
        q[axis] -= region_lo();
        rd[axis] = region_hi() - region_lo();
    }
    uint sy = adims.x;
    uint sz = adims.x * adims.y;
    bool ym = q.y > 0u;
    bool yp = q.y + 1u < rd.y;
    bool zm = q.z > 0u;
    bool zp = q.z + 1u < rd.z;
    bool xm = q.x > 0u;
    bool xp = q.x + 1u < rd.x;
    // Dirichlet sides: the fixed ends of a component's axis.
    bvec3 dlo = bvec3(false);
    bvec3 dhi = bvec3(false);
    if (axis < 3u) {
        dlo[axis] = fixed_ends.x != 0u;
        dhi[axis] = fixed_ends.y != 0u;
    }
    precise float s = 0.0;
    uint n = 0u;
    bool interior_row = ym && yp && zm && zp && rd.x >= 3u;
    if (update && interior_row && xm && xp) {
        s = x[c - 1u] + x[c + 1u] + x[c - sy] + x[c + sy] + x[c - sz] + x[c + sz];
        n = 6u;
    } else if (update) {
        if (ym) s += x[c - sy];
        if (yp) s += x[c + sy];
        if (zm) s += x[c - sz];
        if (zp) s += x[c + sz];
        n = uint(ym || dlo.y) + uint(yp || dhi.y) + uint(zm || dlo.z) + uint(zp || dhi.z);
        if (xm) { s += x[c - 1u]; n += 1u; } else if (dlo.x) { n += 1u; }
        if (xp) { s += x[c + 1u]; n += 1u; } else if (dhi.x) { n += 1u; }
    } else {
        if (xm) { s += x[c - 1u]; n += 1u; } else if (dlo.x) { n += 1u; }
        if (xp) { s += x[c + 1u]; n += 1u; } else if (dhi.x) { n += 1u; }
        if (ym) { s += x[c - sy]; n += 1u; } else if (dlo.y) { n += 1u; }
        if (yp) { s += x[c + sy]; n += 1u; } else if (dhi.y) { n += 1u; }
        if (zm) { s += x[c - sz]; n += 1u; } else if (dlo.z) { n += 1u; }
        if (zp) { s += x[c + sz]; n += 1u; } else if (dhi.z) { n += 1u; }
    }
    if (update) {
        precise float old = x[c];
        precise float gs = (rhs[c] + a * s) * inv_diag(n);
        precise float v = old + omega * (gs - old);
        x[c] = v;
    } else {
        precise float r = rhs[c] - ((1.0 + a * float(n)) * x[c] - a * s);
        result[c] = abs(r);
    }
}

// The CPU's `diffuse_masked` update or residual at p.
void masked_at(uint c, uvec3 p, bool update) {
    uint sy = adims.x;
    uint sz = adims.x * adims.y;
    precise float s = 0.0;
    float n = 0.0;
    uint nb[6] = uint[6](c - 1u, c + 1u, c - sy, c + sy, c - sz, c + sz);
    bool has[6] = bool[6](p.x > 0u, p.x + 1u < adims.x, p.y > 0u, p.y + 1u < adims.y,
        p.z > 0u, p.z + 1u < adims.z);
    for (int m = 0; m < 6; m++) {
        if (has[m] && (masked == 2u || !solid_at(nb[m]))) {
            s += x[nb[m]];
            n += 1.0;
        }
    }
    if (update) {
        x[c] = (rhs[c] + a * s) / (1.0 + a * n);
    } else {
        precise float r = rhs[c] - ((1.0 + a * n) * x[c] - a * s);
        result[c] = abs(r);
    }
}

void main() {
    uint c = gid();
    if (c >= count) {
        return;
    }
    uvec3 p = coords(adims, c);
    bool on = solved(p);
    if (phase == 0u) {
        float v = x[c];
        if (masked == 0u && axis < 3u && on) {
            if (p[axis] == region_lo() && fixed_ends.x != 0u && end_speed.x != 0.0) {
                v += a * end_speed.x;
            }
            if (p[axis] + 1u == region_hi() && fixed_ends.y != 0u && end_speed.y != 0.0) {
                v += a * end_speed.y;
            }
        }
        rhs[c] = v;
        return;
    }
    if (phase == 3u) {
        result[c] = on ? abs(rhs[c]) : 0.0;
        return;
    }
    if (!on) {
        if (phase == 2u) {
            result[c] = 0.0;
        }
        return;
    }
    if (phase == 1u) {
        uvec3 q = p;
        if (masked == 0u && axis < 3u) {
            q[axis] -= region_lo();
        }
        if ((q.x + q.y + q.z + color) % 2u != 0u) {
            return;
        }
        if (masked == 0u) {
            stencil(c, p, true);
        } else {
            masked_at(c, p, true);
        }
        return;
    }
    if (masked == 0u) {
        stencil(c, p, false);
    } else {
        masked_at(c, p, false);
    }
}
