// The pressure operator (as the CPU's `pressure::operator` and `diagonal_at`): a fluid
// cell's diagonal counts its fluid neighbours and its open sides (pressure 0 beyond them);
// walls and solid cells add nothing; a solid cell has no equation (diagonal 0).
#include "solid.glsl"
uniform uvec3 open_lo;
uniform uvec3 open_hi;

float diagonal(uvec3 p) {
    uint c = at(dims, p);
    if (solid_at(c)) {
        return 0.0;
    }
    float n = 0.0;
    uint st[3] = uint[3](1u, dims.x, dims.x * dims.y);
    for (int a = 0; a < 3; a++) {
        n += p[a] > 0u ? (solid_at(c - st[a]) ? 0.0 : 1.0) : (open_lo[a] != 0u ? 1.0 : 0.0);
        n += p[a] + 1u < dims[a] ? (solid_at(c + st[a]) ? 0.0 : 1.0)
                                 : (open_hi[a] != 0u ? 1.0 : 0.0);
    }
    return n;
}

#ifdef STENCIL_VALUE
// (A·x)[n] with x's values from STENCIL_VALUE(m), which the including kernel defines first:
// the stored x, or a value worked out as it is read (laplace.comp's DIRECTION).
float apply(uint n) {
    uvec3 p = coords(dims, n);
    float s = 0.0;
    uint sy = dims.x;
    uint sz = dims.x * dims.y;
    // Solid neighbours have no pressure of their own: they are left out.
    if (p.x > 0u && !solid_at(n - 1u)) s += STENCIL_VALUE(n - 1u);
    if (p.x + 1u < dims.x && !solid_at(n + 1u)) s += STENCIL_VALUE(n + 1u);
    if (p.y > 0u && !solid_at(n - sy)) s += STENCIL_VALUE(n - sy);
    if (p.y + 1u < dims.y && !solid_at(n + sy)) s += STENCIL_VALUE(n + sy);
    if (p.z > 0u && !solid_at(n - sz)) s += STENCIL_VALUE(n - sz);
    if (p.z + 1u < dims.z && !solid_at(n + sz)) s += STENCIL_VALUE(n + sz);
    return solid_at(n) ? 0.0 : diagonal(p) * STENCIL_VALUE(n) - s;
}
#endif
