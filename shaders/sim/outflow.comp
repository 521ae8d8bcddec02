// The smoke before advection and the smoke leaving through the open faces in a sub-step,
// two reductions in one dispatch: Σ density (its partials at `base`, with its largest
// |value| as bits, as `reduce.comp`'s mode 0 gives them), and the outflow (at `base2`; as
// the CPU's `outflow_estimate`): at every open boundary face whose velocity points out,
// the inside cell's density times the cells the flow carries past the face (at most one).
// In the byte model the density is read; only the cells on the open sides read their faces
// (a few per cent of the grid at 48³, fewer above), not counted.
// bytes: Density r
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

double item_sum(uint i) { return double(density[i]); }

uint item_bits(uint i) { return floatBitsToUint(density[i]) & 0x7fffffffu; }

double item_sum2(uint i) {
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

#define REDUCE_SECOND
#include "reduce.glsl"
