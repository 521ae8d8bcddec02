// The cell-centred velocity (see cell_velocity.glsl), three floats a cell; PER cells an
// invocation, all worked out before the first is stored (cells.glsl).
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer CellVel { float cell_vel[]; };

#include "cell_velocity.glsl"
#include "cells.glsl"

void main() {
    float m[3 * PER];
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        for (int c = 0; c < 3; c++) {
            m[3 * k + c] = n < count ? cell_velocity(coords(dims, n), uint(c)) : 0.0;
        }
    }
    for (int k = 0; k < PER; k++) {
        uint n = cell_of(k);
        if (n < count) {
            for (uint c = 0u; c < 3u; c++) {
                cell_vel[3u * n + c] = m[3 * k + int(c)];
            }
        }
    }
}
