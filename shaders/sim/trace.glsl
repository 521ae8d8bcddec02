// Second-order (RK2) traces through the cell-centred velocity (a vec4 a cell: the mean of
// each cell's two faces along each axis, and a zero), as the CPU's `sample::rk2`. Needs a
// block `CellVel { vec4 cell_vel[]; }` declared before it: a corner's three components are
// one load (three floats a cell took three: a trilinear sample 24 loads, now 8). Compiled
// with CELL_VEL_FLOATS, the block is `float cell_vel[]`, three a cell: the layout of a grid
// whose vec4s would not fit one buffer (the same values). A kernel compiled with
// TRACE_FROM_FACES defined (and the face blocks `cell_velocity.glsl` needs) takes the
// cell-centred velocity from the faces instead: the same values (`precise`), without a pass
// storing them first, for traces from a few cells.

#include "solid.glsl"

#ifdef TRACE_FROM_FACES
#include "cell_velocity.glsl"
#endif

// The cell-centred velocity of cell q (its index), stored.
vec3 stored_cell_vel(uint q) {
#ifdef CELL_VEL_FLOATS
    return vec3(cell_vel[3u * q], cell_vel[3u * q + 1u], cell_vel[3u * q + 2u]);
#else
    return cell_vel[q].xyz;
#endif
}

// The same from the faces (the same values).
#ifdef TRACE_FROM_FACES
vec3 face_cell_vel(uint q) {
    uvec3 c = coords(dims, q);
    return vec3(cell_velocity(c, 0u), cell_velocity(c, 1u), cell_velocity(c, 2u));
}
#endif

// The cell-centred velocity of cell q (its index).
vec3 cell_vel_of(uint q) {
#ifdef TRACE_FROM_FACES
    return face_cell_vel(q);
#else
    return stored_cell_vel(q);
#endif
}

// The cell-centred velocity at p: the eight corners' (one load each where stored), each
// component interpolated.
vec3 cell_velocity_at(vec3 p) {
    Loc l = locate(dims, p);
    uint at8[8] = uint[8](l.b, l.b + l.di, l.b + l.dj, l.b + l.dj + l.di, l.b + l.dk,
        l.b + l.dk + l.di, l.b + l.dk + l.dj, l.b + l.dk + l.dj + l.di);
    float x[8];
    float y[8];
    float z[8];
    for (int c = 0; c < 8; c++) {
        vec3 cv = cell_vel_of(at8[c]);
        x[c] = cv.x;
        y[c] = cv.y;
        z[c] = cv.z;
    }
    return vec3(lerp8(x, l.t), lerp8(y, l.t), lerp8(z, l.t));
}

// From p (cell-array coordinates) over k cells per unit velocity (negative: backwards),
// starting with the velocity u0 at p: half a step, then the whole step with the velocity
// found there.
vec3 rk2(vec3 p, vec3 u0, float k) {
    precise vec3 mid = p + (0.5 * k) * u0;
    vec3 um = cell_velocity_at(mid);
    precise vec3 end = p + k * um;
    return end;
}

// Where a trace ends beyond a face that lets air in: how much outside air the sample takes
// (weights grow linearly over one sample beyond the last, several axes combine as
// 1 − Π(1 − w)) and which side's air it is (the one with the largest weight), as the CPU's
// `Exits::blend`. `air_in[s][a]` is 1 where side s of axis a lets air in.
uniform uvec3 air_in_lo;
uniform uvec3 air_in_hi;

float blend_weight(vec3 p, vec3 last, out int air_axis, out int air_side) {
    air_axis = -1;
    air_side = 0;
    bool inside = p.x >= 0.0 && p.x <= last.x && p.y >= 0.0 && p.y <= last.y && p.z >= 0.0
        && p.z <= last.z;
    if (inside) {
        return 0.0;
    }
    float keep = 1.0;
    float best = 0.0;
    for (int a = 0; a < 3; a++) {
        int side;
        float w;
        if (p[a] < 0.0) {
            side = 0;
            w = -p[a];
        } else if (p[a] > last[a]) {
            side = 1;
            w = p[a] - last[a];
        } else {
            continue;
        }
        uint lets_in = side == 0 ? air_in_lo[a] : air_in_hi[a];
        if (lets_in != 0u) {
            w = w < 1.0 ? w : 1.0;
            keep *= 1.0 - w;
            if (w > best || air_axis < 0) {
                best = w;
                air_axis = a;
                air_side = side;
            }
        }
    }
    return air_axis < 0 ? 0.0 : 1.0 - keep;
}
