// Shared by every solver kernel (the Rust side puts `#version`, the work-group size `WG`
// and this file before each kernel). Indexing follows the CPU solver: arrays x-fastest,
// cell (i, j, k) at i + nx·(j + ny·k); the x-faces (nx+1)·ny·nz, y-faces nx·(ny+1)·nz,
// z-faces nx·ny·(nz+1). Positions are in array coordinates: sample (i, j, k) at (i, j, k).

uniform uvec3 dims;  // cells along x, y, z
uniform uint count;  // items this dispatch works on

// The item this invocation works on (dispatches are two-dimensional so that grids past
// 65535 work groups fit).
uint gid() {
    return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * uint(WG);
}

uvec3 face_dims(uint a) {
    uvec3 d = dims;
    d[a] += 1u;
    return d;
}

uint at(uvec3 d, uvec3 p) { return p.x + d.x * (p.y + d.y * p.z); }

// The cells a difference along axis a at cell p takes, lo and hi (central, one-sided at the
// grid's ends, as the CPU's), and its factor: ½ central, 1 one-sided, 0 along an axis one
// cell long (no difference).
float diff_cells(uvec3 p, uint a, out uvec3 lo, out uvec3 hi) {
    uint q = p[a];
    bool below = q > 0u;
    bool above = q + 1u < dims[a];
    lo = p;
    hi = p;
    if (below) {
        lo[a] = q - 1u;
    }
    if (above) {
        hi[a] = q + 1u;
    }
    return below && above ? 0.5 : (below || above ? 1.0 : 0.0);
}

uvec3 coords(uvec3 d, uint n) { return uvec3(n % d.x, (n / d.x) % d.y, n / (d.x * d.y)); }

// Clamped to [0, hi]; NaN to 0 (as the CPU sampler: a comparison with NaN is false).
float clamp_to(float x, float hi) {
    x = x > 0.0 ? x : 0.0;
    return x < hi ? x : hi;
}

// Where array coordinates fall: the lowest of the eight samples, the offsets to the others
// (0 past the array's end: the edge sample repeats) and the fractions between them.
struct Loc {
    uint b;
    uint di;
    uint dj;
    uint dk;
    vec3 t;
};

Loc locate(uvec3 d, vec3 p) {
    vec3 hi = vec3(d) - 1.0;
    float cx = clamp_to(p.x, hi.x);
    float cy = clamp_to(p.y, hi.y);
    float cz = clamp_to(p.z, hi.z);
    uint i0 = uint(cx);
    uint j0 = uint(cy);
    uint k0 = uint(cz);
    Loc l;
    l.b = i0 + d.x * (j0 + d.y * k0);
    l.di = i0 + 1u < d.x ? 1u : 0u;
    l.dj = j0 + 1u < d.y ? d.x : 0u;
    l.dk = k0 + 1u < d.z ? d.x * d.y : 0u;
    l.t = vec3(cx - float(i0), cy - float(j0), cz - float(k0));
    return l;
}

// Trilinear interpolation in the CPU's order of operations (`precise`: no fused
// multiply-adds, so the GPU rounds as the CPU does).
float lerp8(float v[8], vec3 t) {
    precise float c00 = v[0] + t.x * (v[1] - v[0]);
    precise float c10 = v[2] + t.x * (v[3] - v[2]);
    precise float c01 = v[4] + t.x * (v[5] - v[4]);
    precise float c11 = v[6] + t.x * (v[7] - v[6]);
    precise float c0 = c00 + t.y * (c10 - c00);
    precise float c1 = c01 + t.y * (c11 - c01);
    precise float c = c0 + t.z * (c1 - c0);
    return c;
}

vec2 min_max8(float v[8]) {
    float lo = v[0];
    float hi = v[0];
    for (int q = 1; q < 8; q++) {
        lo = v[q] < lo ? v[q] : lo;
        hi = v[q] > hi ? v[q] : hi;
    }
    return vec2(lo, hi);
}

// GATHER(name, array): `void name(Loc l, out float g8_[8])`, the eight samples of `array`
// around l in the order 000, 100, 010, 110, 001, 101, 011, 111.
#define GATHER(NAME, ARR) \
    void NAME(Loc l, out float g8_[8]) { \
        g8_[0] = ARR[l.b]; \
        g8_[1] = ARR[l.b + l.di]; \
        g8_[2] = ARR[l.b + l.dj]; \
        g8_[3] = ARR[l.b + l.dj + l.di]; \
        g8_[4] = ARR[l.b + l.dk]; \
        g8_[5] = ARR[l.b + l.dk + l.di]; \
        g8_[6] = ARR[l.b + l.dk + l.dj]; \
        g8_[7] = ARR[l.b + l.dk + l.dj + l.di]; \
    }
