// The largest of up to four values (floats' bits, or any unsigned) over the work group, in
// one tree in shared memory: the result is invocation 0's. Every invocation of the group
// must call it, those past the end with 0 (it waits at barriers); it may be called again
// after.
#ifndef GROUP_TOP_GLSL
#define GROUP_TOP_GLSL
shared uvec4 group_top_bits[WG];

uvec4 group_largest_of4(uvec4 bits) {
    uint t = gl_LocalInvocationID.x;
    group_top_bits[t] = bits;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            group_top_bits[t] = max(group_top_bits[t], group_top_bits[t + h]);
        }
        barrier();
    }
    uvec4 top = group_top_bits[0];
    // (before a next call overwrites it)
    barrier();
    return top;
}

// The same for one value.
uint group_largest_of(uint bits) {
    return group_largest_of4(uvec4(bits, 0u, 0u, 0u)).x;
}
#endif
