// The speed limit (limit.glsl) on one face array, counting the faces held back.
layout(std430) buffer Face { float face[]; };
layout(std430) buffer Counter { uint held_count[]; };

#include "limit.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    float x = face[n];
    if (over_limit(x)) {
        face[n] = held(x);
        atomicAdd(held_count[0], 1u);
    }
}
