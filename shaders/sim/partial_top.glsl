// The largest of `groups` partial maxima (floats' bits, or any unsigned) in PartialMax
// (declared before it, readable) from `from` on, over the work group (`group_top.glsl`:
// a maximum is the same in any order). Every invocation of the group must call it (it
// waits at barriers); each gets the result.
#ifndef PARTIAL_TOP_GLSL
#define PARTIAL_TOP_GLSL
#include "group_top.glsl"

uint partial_top(uint from, uint groups) {
    uint m = 0u;
    for (uint g = gl_LocalInvocationID.x; g < groups; g += uint(WG)) {
        m = max(m, partial_max[from + g]);
    }
    return group_largest_of4(uvec4(m, 0u, 0u, 0u)).x;
}
#endif
