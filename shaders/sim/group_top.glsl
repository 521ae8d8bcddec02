// The largest of a value (a float's bits, or any unsigned) over the work group, in a tree
// in shared memory: the result is invocation 0's. Every invocation of the group must call
// it, those past the end with 0 (it waits at barriers); it may be called again after.
#ifndef GROUP_TOP_GLSL
#define GROUP_TOP_GLSL
shared uint group_top_bits[WG];

uint group_largest_of(uint bits) {
    uint t = gl_LocalInvocationID.x;
    group_top_bits[t] = bits;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            group_top_bits[t] = max(group_top_bits[t], group_top_bits[t + h]);
        }
        barrier();
    }
    uint top = group_top_bits[0];
    // (before a next call overwrites it)
    barrier();
    return top;
}

shared uvec4 group_top_bits4[WG];

// The same for four values at once (one tree).
uvec4 group_largest_of4(uvec4 bits) {
    uint t = gl_LocalInvocationID.x;
    group_top_bits4[t] = bits;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            group_top_bits4[t] = max(group_top_bits4[t], group_top_bits4[t + h]);
        }
        barrier();
    }
    uvec4 top = group_top_bits4[0];
    barrier();
    return top;
}
#endif
