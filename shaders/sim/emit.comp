// An emitter's sources in one dispatch: what its shape covers (a list of sample indices and
// coverages c for its cells, and one for each axis' faces) applied to every field it feeds,
// as `cover.comp` applies one list to one field a dispatch: the density, fuel and flame get
// c·amount added (cover's mode 0), the temperature and the three velocity components blend
// towards their amount by c (mode 1). The items run through the cells' list, then the u,
// v and w faces' lists (`lens`); a field whose `on` is 0 is left alone (its block may be
// bound to any array).
//
// In the byte model an item reads its index and coverage and reads and writes one field (a
// cell's item may feed up to four).
// bytes: Index0 r, Weight0 r, F0 rw
layout(std430) readonly buffer Index0 { uint index0[]; };
layout(std430) readonly buffer Weight0 { float weight0[]; };
layout(std430) readonly buffer Index1 { uint index1[]; };
layout(std430) readonly buffer Weight1 { float weight1[]; };
layout(std430) readonly buffer Index2 { uint index2[]; };
layout(std430) readonly buffer Weight2 { float weight2[]; };
layout(std430) readonly buffer Index3 { uint index3[]; };
layout(std430) readonly buffer Weight3 { float weight3[]; };
layout(std430) buffer F0 { float f0[]; };   // density
layout(std430) buffer F1 { float f1[]; };   // fuel
layout(std430) buffer F2 { float f2[]; };   // flame
layout(std430) buffer F3 { float f3[]; };   // temperature
layout(std430) buffer U { float u[]; };
layout(std430) buffer V { float v[]; };
layout(std430) buffer W { float w[]; };

uniform uvec4 lens;      // the lists' lengths: cells, u, v and w faces
uniform uvec4 cells_on;  // density, fuel, flame, temperature
uniform vec4 cells_amount;
uniform uvec3 faces_on;
uniform vec3 faces_amount;

#include "cover.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    if (n < lens.x) {
        uint i = index0[n];
        float c = weight0[n];
        if (cells_on.x != 0u) {
            float x = f0[i];
            f0[i] = cover_add(x, c, cells_amount.x);
        }
        if (cells_on.y != 0u) {
            float x = f1[i];
            f1[i] = cover_add(x, c, cells_amount.y);
        }
        if (cells_on.z != 0u) {
            float x = f2[i];
            f2[i] = cover_add(x, c, cells_amount.z);
        }
        if (cells_on.w != 0u) {
            float x = f3[i];
            f3[i] = cover_blend(x, c, cells_amount.w);
        }
        return;
    }
    n -= lens.x;
    if (n < lens.y) {
        if (faces_on.x != 0u) {
            uint i = index1[n];
            float x = u[i];
            u[i] = cover_blend(x, weight1[n], faces_amount.x);
        }
        return;
    }
    n -= lens.y;
    if (n < lens.z) {
        if (faces_on.y != 0u) {
            uint i = index2[n];
            float x = v[i];
            v[i] = cover_blend(x, weight2[n], faces_amount.y);
        }
        return;
    }
    n -= lens.z;
    if (faces_on.z != 0u) {
        uint i = index3[n];
        float x = w[i];
        w[i] = cover_blend(x, weight3[n], faces_amount.z);
    }
}
