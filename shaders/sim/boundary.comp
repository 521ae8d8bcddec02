// Sets the normal velocity on the fixed faces at both ends of each axis: 0 on walls, the
// inflow speed along the inward normal on inflows. One thread a face of the six end planes:
// the x-faces' two planes first, then the y-faces', then the z-faces'.
// In the byte model an item writes its face (of one axis; counted as U).
// bytes: U w
layout(std430) buffer U { float u_face[]; };
layout(std430) buffer V { float v_face[]; };
layout(std430) buffer W { float w_face[]; };

uniform uvec3 fixed_lo;   // 1 where that end of the axis is a wall or an inflow
uniform uvec3 fixed_hi;
uniform vec3 speed_lo;    // its normal velocity
uniform vec3 speed_hi;

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uint axis = 0u;
    for (; axis < 3u; axis++) {
        uvec3 fd = face_dims(axis);
        uint planes = 2u * (axis == 0u ? fd.y * fd.z : (axis == 1u ? fd.x * fd.z : fd.x * fd.y));
        if (n < planes) {
            break;
        }
        n -= planes;
    }
    if (axis > 2u) {
        return;
    }
    uvec3 fd = face_dims(axis);
    // The plane's two other axes, x-fastest.
    uint b = axis == 0u ? 1u : 0u;
    uint c = axis == 2u ? 1u : 2u;
    uint plane = fd[b] * fd[c];
    uint side = n / plane;
    uint m = n % plane;
    if ((side == 0u ? fixed_lo[axis] : fixed_hi[axis]) == 0u) {
        return;
    }
    uvec3 p;
    p[axis] = side == 0u ? 0u : dims[axis];
    p[b] = m % fd[b];
    p[c] = m / fd[b];
    uint f = at(fd, p);
    float value = side == 0u ? speed_lo[axis] : speed_hi[axis];
    if (axis == 0u) {
        u_face[f] = value;
    } else if (axis == 1u) {
        v_face[f] = value;
    } else {
        w_face[f] = value;
    }
}
