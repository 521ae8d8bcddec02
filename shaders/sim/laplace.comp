// out = A·x for the pressure operator, or with `residual` set out = b − A·x and its
// largest |value| (as a float's bits, NaN above infinity) merged into `largest[0]`.
// Without `residual` it is an iteration of the solve: each work group also writes its
// Σ x·(A·x) (p·q, for α) to PartialSum at its number, and it does nothing once the solve
// has converged (Scalars[4]: the card decides; a batch's later iterations change nothing).
// In the byte model an iteration's A·p reads x and writes the result (b is not read); the
// residual reads all three.
// bytes when residual=0: X r, Out w
layout(std430) readonly buffer X { float x[]; };
layout(std430) readonly buffer B { float b[]; };
layout(std430) writeonly buffer Out { float result[]; };
layout(std430) readonly buffer Scalars { double scalars[]; };

uniform uint residual;

#include "pressure.glsl"
#include "group_max.glsl"
#include "group_sum.glsl"

float apply(uint n) {
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
    return solid_at(n) ? 0.0 : diagonal(p) * x[n] - s;
}

void main() {
    uint n = gid();
    if (residual == 0u) {
        // (the same for every invocation: none is left waiting at a barrier)
        if (scalars[4] != 0.0) {
            return;
        }
        double pq = 0.0;
        if (n < count) {
            float v = apply(n);
            result[n] = v;
            pq = double(x[n]) * double(v);
        }
        write_group_sum(pq, gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
        return;
    }
    uint bits = 0u;
    if (n < count) {
        // (b is r, read by each cell before it writes it)
        float v = b[n] - apply(n);
        result[n] = v;
        bits = floatBitsToUint(v) & 0x7fffffffu;
    }
    merge_largest(bits);
}
