// (A·x) at the four cells of a row (`rows.glsl`) from its values `w` (row r, at p, its first
// cell), as `pressure.glsl`'s `apply` works out each cell (a neighbour past the grid's end
// or solid left out): one function for `laplace_rows.comp` and `divergence_rows.comp`.
// Needs pressure.glsl and rows.glsl included first.
#ifndef PRESSURE_ROWS_GLSL
#define PRESSURE_ROWS_GLSL
vec4 applied_row(Row w, uint r, uvec3 p) {
    uint sy = dims.x;
    uint sz = dims.x * dims.y;
    vec4 out_v;
    for (int k = 0; k < 4; k++) {
        uvec3 q = p + uvec3(uint(k), 0u, 0u);
        uint n = 4u * r + uint(k);
        bool on[6];
        on[0] = q.x > 0u && !solid_at(q.x > 0u ? n - 1u : n);
        on[1] = q.x + 1u < dims.x && !solid_at(q.x + 1u < dims.x ? n + 1u : n);
        on[2] = q.y > 0u && !solid_at(q.y > 0u ? n - sy : n);
        on[3] = q.y + 1u < dims.y && !solid_at(q.y + 1u < dims.y ? n + sy : n);
        on[4] = q.z > 0u && !solid_at(q.z > 0u ? n - sz : n);
        on[5] = q.z + 1u < dims.z && !solid_at(q.z + 1u < dims.z ? n + sz : n);
        out_v[k] = applied(n, q, w.o[k], neighbours(w, k), on);
    }
    return out_v;
}
#endif
