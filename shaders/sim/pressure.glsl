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
