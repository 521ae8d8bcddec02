// The solid cells of obstacles, one bit a cell (bit c&31 of word c>>5); `solids` is 0 when
// there are none (the block then holds one word and is not read).
#ifndef SOLID_GLSL
#define SOLID_GLSL
layout(std430) readonly buffer Solid { uint solid_bits[]; };
uniform uint solids;

bool solid_at(uint c) {
    return solids != 0u && (solid_bits[c >> 5] & (1u << (c & 31u))) != 0u;
}

// Whether the cell holding cell-array position p (cell i's centre at i) is solid; points
// outside the grid count as fluid (as the CPU's `stop_at_solid`).
bool solid_point(vec3 p) {
    vec3 r = floor(p + 0.5);
    if (!(r.x >= 0.0 && r.x < float(dims.x) && r.y >= 0.0 && r.y < float(dims.y)
            && r.z >= 0.0 && r.z < float(dims.z))) {
        return false;
    }
    return solid_at(uint(r.x) + dims.x * (uint(r.y) + dims.y * uint(r.z)));
}

// The end of the trace from `start` to `end` cut at the first solid cell on the line,
// looked at every half cell (as the CPU's `stop_at_solid`).
vec3 stop_at_solid(vec3 start, vec3 end) {
    if (solids == 0u) {
        return end;
    }
    vec3 dp = end - start;
    float dist = max(max(abs(dp.x), abs(dp.y)), abs(dp.z));
    if (dist <= 0.5 && !solid_point(end)) {
        return end;
    }
    float widest = float(max(max(dims.x, dims.y), dims.z)) + 2.0;
    float reach = 1.0;
    if (dist > widest) {
        for (int a = 0; a < 3; a++) {
            float bound = dp[a] > 0.0 ? float(dims[a]) : -1.0;
            if (dp[a] != 0.0) {
                reach = min(reach, max((bound - start[a]) / dp[a], 0.0));
            }
        }
    }
    uint steps = uint(clamp(ceil(2.0 * dist * reach), 1.0, 4096.0));
    vec3 last = start;
    for (uint s = 1u; s <= steps; s++) {
        float t = reach * float(s) / float(steps);
        vec3 p = start + t * dp;
        if (solid_point(p)) {
            return last;
        }
        last = p;
    }
    return end;
}

// Whether any of the eight cells a trilinear sample at p (inside the grid) reads is solid.
bool touches_solid(vec3 p) {
    if (solids == 0u) {
        return false;
    }
    uvec3 lo = uvec3(min(max(floor(p), vec3(0.0)), vec3(dims) - 1.0));
    uvec3 hi = min(lo + 1u, dims - 1u);
    for (int q = 0; q < 8; q++) {
        uvec3 c = uvec3((q & 1) != 0 ? hi.x : lo.x, (q & 2) != 0 ? hi.y : lo.y,
            (q & 4) != 0 ? hi.z : lo.z);
        if (solid_at(c.x + dims.x * (c.y + dims.y * c.z))) {
            return true;
        }
    }
    return false;
}
#endif
