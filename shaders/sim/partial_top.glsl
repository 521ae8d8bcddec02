// The largest of `groups` partial maxima (floats' bits, or any unsigned) in PartialMax
// (declared before it, readable) from `from` on, over the work group (`group_top.glsl`:
// a maximum is the same in any order). Every invocation of the group must call it (it
// waits at barriers); each gets the result.
#ifndef PARTIAL_TOP_GLSL
#define PARTIAL_TOP_GLSL
#include "group_top.glsl"

uint partial_top(uint from, uint groups) {
    uint m = 0u;
    uint g = gl_LocalInvocationID.x;
    // (eight read at once: one wait for each eight; a 256³ grid leaves 65 536 of them)
    while (g < groups && groups - g > 7u * uint(WG)) {
        uint v[8];
        for (int k = 0; k < 8; k++) {
            v[k] = partial_max[from + g + uint(k) * uint(WG)];
        }
        for (int k = 0; k < 8; k++) {
            m = max(m, v[k]);
        }
        g += 8u * uint(WG);
    }
    for (; g < groups; g += uint(WG)) {
        m = max(m, partial_max[from + g]);
    }
    return group_largest_of4(uvec4(m, 0u, 0u, 0u)).x;
}
#endif
