// Σ a (mode 0), Σ a·b (mode 1) or Σ a²/diagonal (mode 2: r·z of the Jacobi-preconditioned
// conjugate gradients), and the largest |a| as bits (NaN above infinity above every finite
// value: the finite check and the largest speed in one).
// In the byte model mode 1 reads both arrays, modes 0 and 2 only A.
// bytes when mode=1: A r, B r
// bytes: A r
layout(std430) readonly buffer A { float a[]; };
layout(std430) readonly buffer B { float b[]; };

uniform uint mode;

#include "pressure.glsl"
// (mode 0 over the advected density: the cells outside the region hold +0, unread)
#include "region.glsl"

double item_sum(uint i) {
    if (mode == 0u) {
        return in_region(i) ? double(a[i]) : 0.0lf;
    } else if (mode == 1u) {
        return double(a[i]) * double(b[i]);
    }
    float d = diagonal(coords(dims, i));
    return d > 0.0 ? double(a[i]) * double(a[i] / d) : 0.0;
}

uint item_bits(uint i) { return in_region(i) ? floatBitsToUint(a[i]) & 0x7fffffffu : 0u; }

#include "reduce.glsl"
