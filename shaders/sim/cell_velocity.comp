// The cell-centred velocity (see cell_velocity.glsl), a vec4 a cell (x, y, z and a zero), so
// that a trace reads a corner's three components in one load (trace.glsl); PER cells an
// invocation, all worked out before the first is stored (cells.glsl).
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
// Compiled with CELL_VEL_FLOATS, three floats a cell: the layout of a grid whose vec4s would
// not fit one buffer (`fields::cell_vel_in_floats`).
#ifdef CELL_VEL_FLOATS
layout(std430) writeonly buffer CellVel { float cell_vel[]; };
#else
layout(std430) writeonly buffer CellVel { vec4 cell_vel[]; };
#endif

#include "cell_velocity.glsl"
#include "cells.glsl"

void main() {
    vec3 m[PER];
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        m[k] = vec3(0.0);
        if (n < count) {
            uvec3 p = coords(dims, n);
            m[k] = vec3(cell_velocity(p, 0u), cell_velocity(p, 1u), cell_velocity(p, 2u));
        }
    }
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        if (n < count) {
#ifdef CELL_VEL_FLOATS
            cell_vel[3u * n] = m[k].x;
            cell_vel[3u * n + 1u] = m[k].y;
            cell_vel[3u * n + 2u] = m[k].z;
#else
            cell_vel[n] = vec4(m[k], 0.0);
#endif
        }
    }
}
