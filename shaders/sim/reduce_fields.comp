// Σ and the largest |value| (as bits: NaN above infinity above every finite value) of up to
// eight fields in one dispatch (the finite check, the largest speed): row y of work groups
// reduces field y exactly as `reduce.comp`'s mode 0 would alone (the same groups, the same
// items in the same places), its partials from its base on. F1 to F7 are read instead of F0,
// one a row: the byte model counts one field an item.
layout(std430) readonly buffer F0 { float f0[]; };
layout(std430) readonly buffer F1 { float f1[]; };
layout(std430) readonly buffer F2 { float f2[]; };
layout(std430) readonly buffer F3 { float f3[]; };
layout(std430) readonly buffer F4 { float f4[]; };
layout(std430) readonly buffer F5 { float f5[]; };
layout(std430) readonly buffer F6 { float f6[]; };
layout(std430) readonly buffer F7 { float f7[]; };

uniform uvec4 counts_lo;  // each field's items (fields 0–3, 4–7)
uniform uvec4 counts_hi;
uniform uvec4 bases_lo;   // where each field's partials go
uniform uvec4 bases_hi;
uniform uint max_groups;  // the groups a reduction may take (`REDUCE_GROUPS`)

uint field_word(uvec4 lo, uvec4 hi) {
    uint f = gl_WorkGroupID.y;
    return f < 4u ? lo[f] : hi[f - 4u];
}

float value(uint i) {
    switch (gl_WorkGroupID.y) {
        case 0u: return f0[i];
        case 1u: return f1[i];
        case 2u: return f2[i];
        case 3u: return f3[i];
        case 4u: return f4[i];
        case 5u: return f5[i];
        case 6u: return f6[i];
        default: return f7[i];
    }
}

double item_sum(uint i) { return double(value(i)); }

uint item_bits(uint i) { return floatBitsToUint(value(i)) & 0x7fffffffu; }

// The groups a reduction of n items takes, as the host's `run_reduce` gives it.
uint groups_of(uint n) { return clamp((n + uint(WG) - 1u) / uint(WG), 1u, max_groups); }

#define REDUCE_COUNT field_word(counts_lo, counts_hi)
#define REDUCE_GROUPS_NOW groups_of(REDUCE_COUNT)
#define REDUCE_GROUP gl_WorkGroupID.x
#define REDUCE_BASE field_word(bases_lo, bases_hi)
#define REDUCE_SKIP (gl_WorkGroupID.x >= REDUCE_GROUPS_NOW)
#include "reduce.glsl"
