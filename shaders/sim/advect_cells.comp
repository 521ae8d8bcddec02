// Advection of one or two cell-centred fields (density, and temperature while it is not
// uniform) along RK2 traces from the cell centres, as the CPU's `advect_cells_n` and
// `maccormack_cells_n`. `phase` 0: semi-Lagrangian, dst = scale·φ + offset. 1: MacCormack's
// φ̂ (backwards, outside air blended in, unscaled) into Hat. 2: MacCormack's result from φ̂
// (a forward trace sampling φ̂ gives φ̃; φ = φ̂ + ½(φⁿ − φ̃) clamped to the range of the eight
// φⁿ the backtrace interpolated, or φ̂ where the forward trace leaves the cell centres).
// In the byte model an item (a cell) traces through the cell velocity (or the faces, as
// many bytes), reads each field it advects and writes it (phase 0), its φ̂ (1), or reads
// φ̂ and writes the result (2). The cells outside the active region read nothing and only
// write: the model counts every cell as traced (it cannot know the region).
// bytes when phase=0 fields=1: CellVel r, Src0 r, Dst0 w
// bytes when phase=0 fields=2: CellVel r, Src0 r, Src1 r, Dst0 w, Dst1 w
// bytes when phase=1 fields=1: CellVel r, Src0 r, Hat0 w
// bytes when phase=1 fields=2: CellVel r, Src0 r, Src1 r, Hat0 w, Hat1 w
// bytes when phase=2 fields=1: CellVel r, Src0 r, Hat0 r, Dst0 w
// bytes when phase=2 fields=2: CellVel r, Src0 r, Src1 r, Hat0 r, Hat1 r, Dst0 w, Dst1 w
#ifdef CELL_VEL_FLOATS
layout(std430) readonly buffer CellVel { float cell_vel[]; };
#else
layout(std430) readonly buffer CellVel { vec4 cell_vel[]; };
#endif
// The faces, read instead of CellVel in the variant compiled with TRACE_FROM_FACES (see
// trace.glsl).
#ifdef TRACE_FROM_FACES
layout(std430) readonly buffer FaceU { float u[]; };
layout(std430) readonly buffer FaceV { float v[]; };
layout(std430) readonly buffer FaceW { float w[]; };
#endif
layout(std430) readonly buffer Src0 { float src0[]; };
layout(std430) readonly buffer Src1 { float src1[]; };
layout(std430) buffer Hat0 { float hat0[]; };
layout(std430) buffer Hat1 { float hat1[]; };
layout(std430) writeonly buffer Dst0 { float dst0[]; };
layout(std430) writeonly buffer Dst1 { float dst1[]; };
// The active region (`active.comp`, region.glsl): a cell outside it is written as the
// outside air without tracing (φ̂ = outside; the result scale·outside + offset), as the
// CPU's passes do.
#include "region.glsl"

uniform uint phase;
uniform uint fields;    // 1 or 2
uniform float kt;       // dt/h: cells per unit velocity
uniform vec2 scale;     // per field: factor applied to the advected value (fade, cooling)
uniform vec2 offset;    // and added after it
uniform vec2 outside;   // the field's value in the outside air

#include "trace.glsl"

GATHER(gather0, src0)
GATHER(gather1, src1)
GATHER(gather_hat0, hat0)
GATHER(gather_hat1, hat1)

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    if (!in_region(n)) {
        if (phase == 1u) {
            hat0[n] = outside.x;
            if (fields > 1u) {
                hat1[n] = outside.y;
            }
        } else {
            precise float v0 = scale.x * outside.x + offset.x;
            dst0[n] = v0;
            if (fields > 1u) {
                precise float v1 = scale.y * outside.y + offset.y;
                dst1[n] = v1;
            }
        }
        return;
    }
    vec3 p = vec3(coords(dims, n));
    vec3 u0 = cell_vel_of(n);
    vec3 last = vec3(dims) - 1.0;
    vec3 back = stop_at_solid(p, rk2(p, u0, -kt));
    Loc l = locate(dims, back);
    int air_axis;
    int air_side;
    float wgt = blend_weight(back, last, air_axis, air_side);
    float s0[8];
    float s1[8];
    gather0(l, s0);
    if (fields > 1u) {
        gather1(l, s1);
    }
    if (phase == 0u) {
        float v = lerp8(s0, l.t);
        dst0[n] = scale.x * (v + wgt * (outside.x - v)) + offset.x;
        if (fields > 1u) {
            float v1 = lerp8(s1, l.t);
            dst1[n] = scale.y * (v1 + wgt * (outside.y - v1)) + offset.y;
        }
        return;
    }
    if (phase == 1u) {
        float v = lerp8(s0, l.t);
        hat0[n] = wgt > 0.0 ? v + wgt * (outside.x - v) : v;
        if (fields > 1u) {
            float v1 = lerp8(s1, l.t);
            hat1[n] = wgt > 0.0 ? v1 + wgt * (outside.y - v1) : v1;
        }
        return;
    }
    vec3 fwd = rk2(p, u0, kt);
    // Where the forward trace leaves the cell centres or reaches a solid cell, the error
    // estimate means nothing: the cell keeps φ̂.
    bool kept = fwd.x >= 0.0 && fwd.x <= last.x && fwd.y >= 0.0 && fwd.y <= last.y
        && fwd.z >= 0.0 && fwd.z <= last.z && !touches_solid(fwd);
    if (!kept) {
        dst0[n] = scale.x * hat0[n] + offset.x;
        if (fields > 1u) {
            dst1[n] = scale.y * hat1[n] + offset.y;
        }
        return;
    }
    Loc lf = locate(dims, fwd);
    float h[8];
    gather_hat0(lf, h);
    float tilde = lerp8(h, lf.t);
    vec2 r = min_max8(s0);
    if (wgt > 0.0) {
        r = vec2(min(r.x, outside.x), max(r.y, outside.x));
    }
    float v = hat0[n] + 0.5 * (src0[n] - tilde);
    v = v > r.x ? v : r.x;
    v = v < r.y ? v : r.y;
    dst0[n] = scale.x * v + offset.x;
    if (fields > 1u) {
        gather_hat1(lf, h);
        float tilde1 = lerp8(h, lf.t);
        vec2 r1 = min_max8(s1);
        if (wgt > 0.0) {
            r1 = vec2(min(r1.x, outside.y), max(r1.y, outside.y));
        }
        float v1 = hat1[n] + 0.5 * (src1[n] - tilde1);
        v1 = v1 > r1.x ? v1 : r1.x;
        v1 = v1 < r1.y ? v1 : r1.y;
        dst1[n] = scale.y * v1 + offset.y;
    }
}
