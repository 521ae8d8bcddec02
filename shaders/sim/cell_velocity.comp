// The cell-centred velocity (see cell_velocity.glsl), three floats a cell.
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer CellVel { float cell_vel[]; };

#include "cell_velocity.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    for (uint c = 0u; c < 3u; c++) {
        cell_vel[3u * n + c] = cell_velocity(p, c);
    }
}
