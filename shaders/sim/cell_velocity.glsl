// The cell-centred velocity: each component the mean of the cell's two faces along it (as
// the CPU's `cell_velocity`; `precise`: rounded the same wherever it is worked out, stored
// by `cell_velocity.comp` or used at once by `curl.comp`). Needs the face blocks
// `U { float u[]; }`, `V { float v[]; }` and `W { float w[]; }` declared before it.

// Component c of the cell-centred velocity at cell p.
float cell_velocity(uvec3 p, uint c) {
    precise float m;
    if (c == 0u) {
        uint a = at(face_dims(0u), p);
        m = 0.5 * (u[a] + u[a + 1u]);
    } else if (c == 1u) {
        uint b = at(face_dims(1u), p);
        m = 0.5 * (v[b] + v[b + dims.x]);
    } else {
        uint k = at(face_dims(2u), p);
        m = 0.5 * (w[k] + w[k + dims.x * dims.y]);
    }
    return m;
}
