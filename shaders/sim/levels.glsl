// The multigrid levels' fluid cells: the finest level's from the solid bits, a coarser
// one's from its mask in Levels (one bit a cell, from word `m` on; a cell is fluid where
// any of its children is); without obstacles every cell is fluid and no mask is read.
#ifndef LEVELS_GLSL
#define LEVELS_GLSL
#include "solid.glsl"
layout(std430) readonly buffer Levels { uint level_bits[]; };

bool fluid_in(uvec3 d, uint m, uvec3 p) {
    uint c = p.x + d.x * (p.y + d.y * p.z);
    if (m == 0xffffffffu) {
        return !solid_at(c);
    }
    if (solids == 0u) {
        return true;
    }
    return (level_bits[m + (c >> 5)] & (1u << (c & 31u))) != 0u;
}
#endif
