// Applies what an emitter or the brush covers (a list of sample indices and coverages c)
// to one field: mode 0 adds c·amount, mode 1 blends towards `amount` by c, mode 2 adds
// c·amount and keeps the result ≥ 0 (painting smoke away), mode 3 sets `amount` (filling
// solid cells), mode 4 sets c (each entry's own value: the faces of moving solids).
layout(std430) readonly buffer Index { uint index[]; };
layout(std430) readonly buffer Weight { float weight[]; };
layout(std430) buffer Field { float field[]; };

uniform uint mode;
uniform float amount;

#include "cover.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uint i = index[n];
    float c = weight[n];
    float v = field[i];
    if (mode == 0u) {
        field[i] = cover_add(v, c, amount);
    } else if (mode == 1u) {
        field[i] = cover_blend(v, c, amount);
    } else if (mode == 2u) {
        field[i] = max(cover_add(v, c, amount), 0.0);
    } else if (mode == 3u) {
        field[i] = amount;
    } else {
        field[i] = c;
    }
}
