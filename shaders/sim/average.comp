// One layer of an extrapolation into solids (as the CPU's `Solids::extrapolate` and
// `extrapolate_faces`): each entry [target, count, neighbours…] sets its target to the mean
// of its neighbours, summed in the CPU's order (0 without any). No entry reads a target of
// the same layer, so they run at once.
layout(std430) readonly buffer Entries { uint entries[]; };
layout(std430) buffer Field { float field[]; };

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uint b = 8u * n;
    uint m = entries[b + 1u];
    float s = 0.0;
    for (uint q = 0u; q < m; q++) {
        s += field[entries[b + 2u + q]];
    }
    field[entries[b]] = m > 0u ? s / float(m) : 0.0;
}
