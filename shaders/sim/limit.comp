// The speed limit: every face velocity held within ±limit (NaN left as it is), counting
// the faces held back.
layout(std430) buffer Face { float face[]; };
layout(std430) buffer Counter { uint held[]; };

uniform float limit;

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    float x = face[n];
    if (abs(x) > limit) {
        float y = x < -limit ? -limit : x;
        face[n] = y > limit ? limit : y;
        atomicAdd(held[0], 1u);
    }
}
