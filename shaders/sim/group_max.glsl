// The largest of a value over the work group, merged into `largest[0]` by one atomic a
// group (a maximum comes out the same in any order: deterministic). Every invocation of
// the group must call it, those past the end with 0 (it waits at barriers).
layout(std430) buffer Largest { uint largest[]; };

shared uint group_largest[WG];

void merge_largest(uint bits) {
    uint t = gl_LocalInvocationID.x;
    group_largest[t] = bits;
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            group_largest[t] = max(group_largest[t], group_largest[t + h]);
        }
        barrier();
    }
    if (t == 0u) {
        atomicMax(largest[0], group_largest[0]);
    }
}
