// Advection of the face velocity along `axis` (as the CPU's face passes): from each face an
// RK2 backtrace through the cell-centred velocity, the component sampled there, the outside
// air's velocity blended in beyond inflow faces (`phase` 0: semi-Lagrangian; 1: MacCormack's
// φ̂, the same, into the axis' Out). `phase` 2 finishes MacCormack from φ̂ (Hat): a forward trace
// samples φ̂ to φ̃, and φ = φ̂ + ½(φⁿ − φ̃) clamped to the range of the eight φⁿ the
// backtrace interpolated (and the outside air where it blended), or φ̂ where the forward
// trace leaves the samples or touches a solid cell. Faces on the ends of `axis` that are
// walls or inflows get their normal velocity (`speed_lo`, `speed_hi`: what the boundary
// pass would set, so none runs after this stage), or in φ̂ keep their value.
// With `buoyant` (in a step, where no obstacle's faces are set between the two stages) the
// inner y-faces get the forces' stage's smoke weight and buoyancy as they are written
// (`buoyancy.glsl`, added as `buoyancy.comp` adds it: the same bits), and that stage runs
// no pass.
// In the byte model an item is a face of the axes the dispatch advects, and the faces around
// it and the cell velocity its trace reads are read whole by every dispatch (counted a
// cell, however many axes it takes); an item writes its face, and MacCormack's last phase
// reads its φ̂.
// With `buoyant` the density (and the temperature, with `with_temperature`) are read too.
// bytes when phase=2 buoyant=1 with_temperature=1: U r a cell, V r a cell, W r a cell, CellVel r a cell, Hat r, Out0 w, Density r a cell, Temperature r a cell
// bytes when phase=2 buoyant=1: U r a cell, V r a cell, W r a cell, CellVel r a cell, Hat r, Out0 w, Density r a cell
// bytes when phase=2: U r a cell, V r a cell, W r a cell, CellVel r a cell, Hat r, Out0 w
// bytes when buoyant=1 with_temperature=1: U r a cell, V r a cell, W r a cell, CellVel r a cell, Out0 w, Density r a cell, Temperature r a cell
// bytes when buoyant=1: U r a cell, V r a cell, W r a cell, CellVel r a cell, Out0 w, Density r a cell
// bytes: U r a cell, V r a cell, W r a cell, CellVel r a cell, Out0 w
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
#ifdef CELL_VEL_FLOATS
layout(std430) readonly buffer CellVel { float cell_vel[]; };
#else
layout(std430) readonly buffer CellVel { vec4 cell_vel[]; };
#endif
layout(std430) readonly buffer Hat { float hat[]; };
// Where the faces of each axis go (an item writes the one of its axis).
layout(std430) writeonly buffer Out0 { float out0[]; };
layout(std430) writeonly buffer Out1 { float out1[]; };
layout(std430) writeonly buffer Out2 { float out2[]; };

uniform uint first_axis;   // the axes this dispatch advects: `first_axis` to `last_axis`,
uniform uint last_axis;    // the items running through each one's faces in turn
uniform float kt;       // cells per unit velocity, negative: backwards
uniform vec3 air_lo;    // velocity of the air beyond side 0 of each axis (along that axis)
uniform vec3 air_hi;
// Phase 2 is compiled on its own (FINISH: MacCormack's last step, with its forward trace
// and second gather), so that the semi-Lagrangian passes, the default, do not carry its
// registers (a program takes those of its widest path).
#ifdef FINISH
const uint phase = 2u;
#else
uniform uint phase;     // 0 or 1 (2: the FINISH variant)
#endif
uniform uvec3 fixed_lo;  // 1 where the minimum / maximum end of an axis is a wall or an
uniform uvec3 fixed_hi;  // inflow
uniform vec3 speed_lo;   // their normal velocity
uniform vec3 speed_hi;
uniform uint buoyant;    // 1: the inner y-faces get the buoyancy (not in φ̂)

#include "buoyancy.glsl"

// The axis of the faces this invocation works on (set first thing in main).
uint axis;

void put(uint n, float value) {
    if (buoyant != 0u && axis == 1u && phase != 1u) {
        uvec3 p = coords(face_dims(1u), n);
        if (p.y > 0u && p.y < dims.y) {
            uint hi = at(dims, p);
            precise float lifted = value + lift(hi - dims.x, hi);
            value = lifted;
        }
    }
    if (axis == 0u) {
        out0[n] = value;
    } else if (axis == 1u) {
        out1[n] = value;
    } else {
        out2[n] = value;
    }
}

#include "trace.glsl"

GATHER(gather_u, u)
GATHER(gather_v, v)
GATHER(gather_w, w)
GATHER(gather_hat, hat)

float face(uint a, uvec3 p) {
    if (a == 0u) {
        return u[at(face_dims(0u), p)];
    } else if (a == 1u) {
        return v[at(face_dims(1u), p)];
    }
    return w[at(face_dims(2u), p)];
}

// The velocity at a face of `axis`: its own component and the means of the faces of the
// others around it (two cells beside an x-face clamped at the row's ends), as the CPU's
// `cross_x`, `pair_x` and `quad`.
vec3 face_velocity(uvec3 p) {
    uint i = p.x;
    uint j = p.y;
    uint k = p.z;
    uint nx = dims.x;
    vec3 r;
    if (axis == 0u) {
        r.x = face(0u, p);
        for (int c = 1; c < 3; c++) {
            uvec3 q1 = p;
            q1[c] += 1u;
            if (i == 0u) {
                r[c] = 0.5 * (face(uint(c), uvec3(0u, p.y, p.z)) + face(uint(c), uvec3(0u, q1.y, q1.z)));
            } else if (i == nx) {
                r[c] = 0.5 * (face(uint(c), uvec3(nx - 1u, p.y, p.z))
                    + face(uint(c), uvec3(nx - 1u, q1.y, q1.z)));
            } else {
                float a0 = face(uint(c), uvec3(i - 1u, p.y, p.z));
                float b0 = face(uint(c), uvec3(i - 1u, q1.y, q1.z));
                float a1 = face(uint(c), uvec3(i, p.y, p.z));
                float b1 = face(uint(c), uvec3(i, q1.y, q1.z));
                r[c] = 0.25 * (a0 + b0 + a1 + b1);
            }
        }
        return r;
    }
    // y- or z-faces: the cells on either side along `axis`, clamped to the grid (written
    // out per axis: no dynamically indexed vector is assigned to).
    uint s = axis == 1u ? j : k;
    uint n = axis == 1u ? dims.y : dims.z;
    uint a0 = s > 0u ? s - 1u : 0u;
    uint a1 = s < n - 1u ? s : n - 1u;
    uvec3 lo = axis == 1u ? uvec3(i, a0, k) : uvec3(i, j, a0);
    uvec3 hi = axis == 1u ? uvec3(i, a1, k) : uvec3(i, j, a1);
    uvec3 x1 = uvec3(1u, 0u, 0u);
    float ux = 0.25 * (face(0u, lo) + face(0u, hi) + face(0u, lo + x1) + face(0u, hi + x1));
    if (axis == 1u) {
        uvec3 z1 = uvec3(0u, 0u, 1u);
        float wz = 0.25 * (face(2u, lo) + face(2u, hi) + face(2u, lo + z1) + face(2u, hi + z1));
        return vec3(ux, face(1u, p), wz);
    }
    uvec3 y1 = uvec3(0u, 1u, 0u);
    float vy = 0.25 * (face(1u, lo) + face(1u, hi) + face(1u, lo + y1) + face(1u, hi + y1));
    return vec3(ux, vy, face(2u, p));
}

// The advected value of item n (a face of the axes `first_axis` to `last_axis`, in turn):
// sets `axis` to its face's axis and `m` to its index among that axis' faces.
float advected(uint n, out uint m) {
    axis = first_axis;
    for (; axis < last_axis; axis++) {
        uvec3 d = face_dims(axis);
        uint faces = d.x * d.y * d.z;
        if (n < faces) {
            break;
        }
        n -= faces;
    }
    m = n;
    uvec3 fd = face_dims(axis);
    uvec3 p = coords(fd, n);
    // Walls and inflows at the ends of the axis keep their value (the boundary pass sets
    // them); open faces are traced like the others.
    bool at_lo = p[axis] == 0u && fixed_lo[axis] != 0u;
    if (at_lo || (p[axis] == dims[axis] && fixed_hi[axis] != 0u)) {
        return phase == 1u ? face(axis, p) : (at_lo ? speed_lo[axis] : speed_hi[axis]);
    }
    vec3 shift = vec3(axis == 0u ? -0.5 : 0.0, axis == 1u ? -0.5 : 0.0, axis == 2u ? -0.5 : 0.0);
    vec3 start = vec3(p) + shift;
    vec3 u0 = face_velocity(p);
    // Traces stop at the first solid cell on their way.
    vec3 end = stop_at_solid(start, rk2(start, u0, kt));
    vec3 q = end - shift;
    float s[8];
    Loc l = locate(fd, q);
    if (axis == 0u) {
        gather_u(l, s);
    } else if (axis == 1u) {
        gather_v(l, s);
    } else {
        gather_w(l, s);
    }
    vec3 last = vec3(fd) - 1.0;
    int air_axis;
    int air_side;
    float wgt = blend_weight(q, last, air_axis, air_side);
    float o = 0.0;
    if (air_axis >= 0) {
        o = uint(air_axis) == axis ? (air_side == 0 ? air_lo[axis] : air_hi[axis]) : 0.0;
    }
#ifndef FINISH
    float val = lerp8(s, l.t);
    precise float blended = val + wgt * (o - val);
    return air_axis >= 0 ? blended : val;
#else
    // MacCormack's last step (`kt` is the backward trace's, so forwards is −kt).
    vec3 fwd = rk2(start, u0, -kt);
    vec3 qf = fwd - shift;
    bool off = !(qf.x >= 0.0 && qf.x <= last.x && qf.y >= 0.0 && qf.y <= last.y && qf.z >= 0.0
        && qf.z <= last.z);
    if (off || touches_solid(fwd)) {
        return hat[n];
    }
    Loc lf = locate(fd, qf);
    float hs[8];
    gather_hat(lf, hs);
    float tilde = lerp8(hs, lf.t);
    if (isnan(tilde) || isinf(tilde)) {
        return hat[n];
    }
    vec2 r = min_max8(s);
    if (air_axis >= 0) {
        r = vec2(min(r.x, o), max(r.y, o));
    }
    precise float v = hat[n] + 0.5 * (face(axis, p) - tilde);
    v = v > r.x ? v : r.x;
    return v < r.y ? v : r.y;
#endif
}

#include "cells.glsl"

// PER items an invocation (cells.glsl; one but in the variant the tuner may take): every
// item's value worked out before the first is stored, so that no store stands between one
// trace's reads and the next one's (the blocks may alias, as far as a compiler knows).
void main() {
    float vals[PER];
    uint ms[PER];
    uint axes[PER];
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        ms[k] = 0u;
        axes[k] = 0u;
        vals[k] = 0.0;
        if (n < count) {
            vals[k] = advected(n, ms[k]);
            axes[k] = axis;
        }
    }
    for (int k = 0; k < PER; k++) {
        if (cell_of(k) < count) {
            axis = axes[k];
            put(ms[k], vals[k]);
        }
    }
}
