// Σ a (mode 0) or Σ a²/diagonal (mode 2: r·z of the Jacobi-preconditioned conjugate
// gradients), and the largest |a| as bits (NaN above infinity above every finite value: the
// finite check and the largest speed in one). (Mode 1, Σ a·b, was the multigrid's r·z: its
// V-cycle's last sweep now writes those partial sums, `mg.comp`'s RZ_SUMS.)
// In the byte model both modes read A only.
// bytes: A r
layout(std430) readonly buffer A { float a[]; };

uniform uint mode;

#include "pressure.glsl"
// (mode 0 over the advected density: the cells outside the region hold +0, unread)
#include "region.glsl"

double item_sum(uint i) {
    if (mode == 0u) {
        return in_region(i) ? double(a[i]) : 0.0lf;
    }
    float d = diagonal(coords(dims, i));
    return d > 0.0 ? double(a[i]) * double(a[i] / d) : 0.0;
}

uint item_bits(uint i) { return in_region(i) ? floatBitsToUint(a[i]) & 0x7fffffffu : 0u; }

#include "reduce.glsl"
