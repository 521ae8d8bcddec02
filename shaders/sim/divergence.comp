// The pressure equation's right-hand side: rhs = −(h/dt)·D with D the sum of each cell's
// outgoing face velocities (as the CPU's `divergence_rhs`).
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer Rhs { float rhs[]; };

uniform float scale;   // −h/dt

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    uvec3 p = coords(dims, n);
    uint a = at(face_dims(0u), p);
    uint b = at(face_dims(1u), p);
    uint c = at(face_dims(2u), p);
    float d = u[a + 1u] - u[a] + v[b + dims.x] - v[b] + w[c + dims.x * dims.y] - w[c];
    rhs[n] = scale * d;
}
