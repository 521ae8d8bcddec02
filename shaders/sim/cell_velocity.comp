// The cell-centred velocity: each component the mean of the cell's two faces along it.
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer CellVel { float cell_vel[]; };

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    uint a = at(face_dims(0u), p);
    uint b = at(face_dims(1u), p);
    uint c = at(face_dims(2u), p);
    cell_vel[3u * n] = 0.5 * (u[a] + u[a + 1u]);
    cell_vel[3u * n + 1u] = 0.5 * (v[b] + v[b + dims.x]);
    cell_vel[3u * n + 2u] = 0.5 * (w[c] + w[c + dims.x * dims.y]);
}
