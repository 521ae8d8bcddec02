// The scalars' active region as `active.comp` left it (D at `d_at` in Rows): whether a
// cell is in it. A kernel that includes this takes `region` 0 (every cell in) unless it is
// working on the advected scalars of the sub-step that worked the region out.
#ifndef REGION_GLSL
#define REGION_GLSL
layout(std430) readonly buffer Rows { uint rows_[]; };
layout(std430) readonly buffer Active { uint act[]; };

uniform uint region;      // 1: the region holds the cells worked out
uniform uint d_at;
uniform uint dense_from;  // a region of this many cells or more is worked out whole

// Whether cell n is in: always without a region, where the velocity was not finite, or
// where the region holds nine tenths of the grid or more (the CPU's rule).
bool in_region(uint n) {
    if (region == 0u || act[12] != 0u || act[11] >= dense_from) {
        return true;
    }
    uint row = n / dims.x;
    uint x = n - row * dims.x;
    return x >= rows_[2u * (d_at + row)] && x < rows_[2u * (d_at + row) + 1u];
}
#endif
