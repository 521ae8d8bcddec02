// out = A·x, or with `residual` set out = b − A·x, for the pressure operator.
layout(std430) readonly buffer X { float x[]; };
layout(std430) readonly buffer B { float b[]; };
layout(std430) writeonly buffer Out { float result[]; };

uniform uint residual;

#include "pressure.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    float s = 0.0;
    uint sy = dims.x;
    uint sz = dims.x * dims.y;
    // Solid neighbours have no pressure of their own: they are left out.
    if (p.x > 0u && !solid_at(n - 1u)) s += x[n - 1u];
    if (p.x + 1u < dims.x && !solid_at(n + 1u)) s += x[n + 1u];
    if (p.y > 0u && !solid_at(n - sy)) s += x[n - sy];
    if (p.y + 1u < dims.y && !solid_at(n + sy)) s += x[n + sy];
    if (p.z > 0u && !solid_at(n - sz)) s += x[n - sz];
    if (p.z + 1u < dims.z && !solid_at(n + sz)) s += x[n + sz];
    float ax = solid_at(n) ? 0.0 : diagonal(p) * x[n] - s;
    result[n] = residual != 0u ? b[n] - ax : ax;
}
