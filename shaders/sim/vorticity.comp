// Vorticity confinement in one pass by tiles: the arithmetic of `curl.comp` then
// `confine.comp` (curl.glsl, confinement.glsl: the same bits), with ω and |ω| kept in shared
// memory instead of four stored fields, and the faces written to the other set of velocity
// arrays (Out*), which the host then swaps in, so that every tile reads the faces as they
// were. A work group takes a tile of T³ cells: ω and |ω| over the tile and two cells around
// it ((T + 3)³: the force at a cell below the tile reads |ω| a cell further), the force over
// the tile and the cells one below it ((T + 1)³), then each cell's faces: its low face along
// each axis (an inner face gets ½·dt·(f below + f here) of its component) and, on the
// grid's high end, its high face. The faces on the grid's ends are copied, or where they
// are walls or inflows get their normal velocity (`speed_lo`, `speed_hi`: what the boundary
// pass would set, so none runs after this one). Shared memory: 23 KB.
//
// In the byte model the faces are read once and written once (their neighbours' and the
// halo's reads come from the cache): 24 bytes a cell.
// bytes: U r a cell, V r a cell, W r a cell, OutU w a cell, OutV w a cell, OutW w a cell
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer OutU { float out_u[]; };
layout(std430) writeonly buffer OutV { float out_v[]; };
layout(std430) writeonly buffer OutW { float out_w[]; };

uniform float inv_h;
uniform float scale;   // ε·h
uniform float dt;
uniform uvec3 tiles;   // tiles along each axis
uniform uvec3 fixed_lo;  // 1 where the minimum / maximum end of an axis is a wall or an
uniform uvec3 fixed_hi;  // inflow
uniform vec3 speed_lo;   // their normal velocity
uniform vec3 speed_hi;

#include "cell_velocity.glsl"
#include "curl.glsl"

const int T = 8;        // a tile's cells along an axis (T³ = the work group)
const int A = T + 3;    // ω's region: cells −2 to T of the tile
const int F = T + 1;    // the force's region: cells −1 to T − 1

shared float mag[A * A * A];
shared float om_x[F * F * F];
shared float om_y[F * F * F];
shared float om_z[F * F * F];
shared float fo_x[F * F * F];
shared float fo_y[F * F * F];
shared float fo_z[F * F * F];

// The tile's first cell.
ivec3 origin;

int ia(ivec3 r) { return r.x + A * (r.y + A * r.z); }
int jf(ivec3 r) { return r.x + F * (r.y + F * r.z); }
bool in_grid(ivec3 p) { return all(greaterThanEqual(p, ivec3(0))) && all(lessThan(p, ivec3(dims))); }

#define MAGNITUDE(q) mag[ia(ivec3(q) - origin + 2)]
#define OMEGA(q) vec3(om_x[jf(ivec3(q) - origin + 1)], om_y[jf(ivec3(q) - origin + 1)], om_z[jf(ivec3(q) - origin + 1)])
#include "confinement.glsl"

vec3 force_at(ivec3 p) {
    int j = jf(p - origin + 1);
    return vec3(fo_x[j], fo_y[j], fo_z[j]);
}

void main() {
    // (the same for the whole work group: none is left waiting at a barrier)
    uint g = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (g >= tiles.x * tiles.y * tiles.z) {
        return;
    }
    origin = ivec3(coords(tiles, g) * uint(T));
    uint t = gl_LocalInvocationID.x;
    for (uint i = t; i < uint(A * A * A); i += uint(WG)) {
        ivec3 r = ivec3(int(i) % A, (int(i) / A) % A, int(i) / (A * A));
        ivec3 p = origin - 2 + r;
        float m = 0.0;
        if (in_grid(p)) {
            vec4 o = vorticity_at(uvec3(p));
            m = o.w;
            ivec3 rf = r - 1;
            if (all(greaterThanEqual(rf, ivec3(0))) && all(lessThan(rf, ivec3(F)))) {
                int j = jf(rf);
                om_x[j] = o.x;
                om_y[j] = o.y;
                om_z[j] = o.z;
            }
        }
        mag[i] = m;
    }
    barrier();
    for (uint i = t; i < uint(F * F * F); i += uint(WG)) {
        ivec3 r = ivec3(int(i) % F, (int(i) / F) % F, int(i) / (F * F));
        ivec3 p = origin - 1 + r;
        if (in_grid(p)) {
            vec3 f = confinement_force(uvec3(p));
            fo_x[i] = f.x;
            fo_y[i] = f.y;
            fo_z[i] = f.z;
        }
    }
    barrier();
    ivec3 p = origin + ivec3(int(t) % T, (int(t) / T) % T, int(t) / (T * T));
    if (!in_grid(p)) {
        return;
    }
    uvec3 c = uvec3(p);
    vec3 here = force_at(p);
    for (uint a = 0u; a < 3u; a++) {
        uint f = at(face_dims(a), c);
        // The face one cell up along a (the high face).
        uint up = a == 0u ? 1u : (a == 1u ? dims.x : dims.x * dims.y);
        bool low = c[a] == 0u;
        bool top = c[a] + 1u == dims[a];
        bool fixed_low = low && fixed_lo[a] != 0u;
        bool fixed_top = fixed_hi[a] != 0u;
        ivec3 lo = p;
        lo[a] -= 1;
        if (a == 0u) {
            out_u[f] = fixed_low ? speed_lo.x : (low ? u[f] : confined_face(u[f], force_at(lo).x, here.x));
            if (top) {
                out_u[f + up] = fixed_top ? speed_hi.x : u[f + up];
            }
        } else if (a == 1u) {
            out_v[f] = fixed_low ? speed_lo.y : (low ? v[f] : confined_face(v[f], force_at(lo).y, here.y));
            if (top) {
                out_v[f + up] = fixed_top ? speed_hi.y : v[f + up];
            }
        } else {
            out_w[f] = fixed_low ? speed_lo.z : (low ? w[f] : confined_face(w[f], force_at(lo).z, here.z));
            if (top) {
                out_w[f + up] = fixed_top ? speed_hi.z : w[f + up];
            }
        }
    }
}
