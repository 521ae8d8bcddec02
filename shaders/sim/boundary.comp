// Sets the normal velocity on the fixed faces at both ends of component `axis`: 0 on
// walls, the inflow speed along the inward normal on inflows. One thread a face of the two
// end planes.
layout(std430) buffer Face { float face[]; };

uniform uint axis;
uniform uvec2 fixed_ends;   // 1 where that end is a wall or an inflow
uniform vec2 speed;         // its normal velocity

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 fd = face_dims(axis);
    // The plane's two other axes, x-fastest.
    uint b = axis == 0u ? 1u : 0u;
    uint c = axis == 2u ? 1u : 2u;
    uint plane = fd[b] * fd[c];
    uint side = n / plane;
    uint m = n % plane;
    if ((side == 0u ? fixed_ends.x : fixed_ends.y) == 0u) {
        return;
    }
    uvec3 p;
    p[axis] = side == 0u ? 0u : dims[axis];
    p[b] = m % fd[b];
    p[c] = m / fd[b];
    face[at(fd, p)] = side == 0u ? speed.x : speed.y;
}
