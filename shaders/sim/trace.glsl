// Second-order (RK2) traces through the cell-centred velocity (each cell's component along
// an axis the mean of its two faces along it), as the CPU's `sample::rk2`. The cell-centred
// velocity is worked out from the faces where a trace samples it (`precise`: rounded as the
// CPU's stored one), so no pass writes it first. Needs the face blocks
// `U { float u[]; }`, `V { float v[]; }` and `W { float w[]; }` declared before it.

#include "solid.glsl"

// The cell-centred velocity at cell q.
vec3 cell_vel(uvec3 q) {
    uint fx = at(face_dims(0u), q);
    uint fy = at(face_dims(1u), q);
    uint fz = at(face_dims(2u), q);
    precise vec3 m = vec3(0.5 * (u[fx] + u[fx + 1u]), 0.5 * (v[fy] + v[fy + dims.x]),
        0.5 * (w[fz] + w[fz + dims.x * dims.y]));
    return m;
}

vec3 cell_velocity_at(vec3 p) {
    Loc l = locate(dims, p);
    // The eight cells around p (the edge cell repeats past the grid's end), in lerp8's order.
    uvec3 o = uvec3(l.di, l.dj != 0u ? 1u : 0u, l.dk != 0u ? 1u : 0u);
    float x[8];
    float y[8];
    float z[8];
    for (uint c = 0u; c < 8u; c++) {
        uvec3 q = l.q + uvec3((c & 1u) != 0u ? o.x : 0u, (c & 2u) != 0u ? o.y : 0u,
            (c & 4u) != 0u ? o.z : 0u);
        vec3 cv = cell_vel(q);
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
