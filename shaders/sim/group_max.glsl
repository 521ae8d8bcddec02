// The largest of a value over the work group, merged into `largest[0]` by one atomic a
// group (a maximum comes out the same in any order: deterministic). Every invocation of
// the group must call it, those past the end with 0 (it waits at barriers). (`coherent`:
// the dispatch's last work group may read it, `last_group.glsl`.)
layout(std430) coherent buffer Largest { uint largest[]; };

#include "group_top.glsl"

void merge_largest(uint bits) {
    uint top = group_largest_of(bits);
    if (gl_LocalInvocationID.x == 0u) {
        atomicMax(largest[0], top);
    }
}
