// Smoke leaving through the open faces in a sub-step (as the CPU's `outflow_estimate`): at
// every open boundary face whose velocity points out, the inside cell's density times the
// cells the flow carries past the face (at most one).
// In the byte model nothing: of the cells it runs over, only those on the open sides read
// their faces and density (a few per cent of the grid at 48³, fewer above).
// bytes: none
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) readonly buffer Density { float density[]; };

uniform uvec3 open_lo;
uniform uvec3 open_hi;
uniform float kt;   // dt/h

float normal_face(uint a, uvec3 f) {
    if (a == 0u) {
        return u[at(face_dims(0u), f)];
    } else if (a == 1u) {
        return v[at(face_dims(1u), f)];
    }
    return w[at(face_dims(2u), f)];
}

double item_sum(uint i) {
    uvec3 p = coords(dims, i);
    double s = 0.0;
    for (uint a = 0u; a < 3u; a++) {
        for (uint side = 0u; side < 2u; side++) {
            bool open = (side == 0u ? open_lo[a] : open_hi[a]) != 0u;
            bool edge = side == 0u ? p[a] == 0u : p[a] + 1u == dims[a];
            if (!open || !edge) {
                continue;
            }
            uvec3 f = p;
            f[a] = side == 0u ? 0u : dims[a];
            float un = (side == 0u ? -1.0 : 1.0) * normal_face(a, f);
            if (un > 0.0) {
                s += double(density[i]) * double(min(un * kt, 1.0));
            }
        }
    }
    return s;
}

uint item_bits(uint i) { return 0u; }

#include "reduce.glsl"
