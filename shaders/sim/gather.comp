// Copies the listed samples of a field into a dense array (to sum them).
layout(std430) readonly buffer Index { uint index[]; };
layout(std430) readonly buffer Field { float field[]; };
layout(std430) writeonly buffer Out { float result[]; };

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    result[n] = field[index[n]];
}
