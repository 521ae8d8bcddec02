// Smoke weight and buoyancy on the inner y-faces: v += ½·dt·(a_below + a_above), each
// cell's upward acceleration a = β·(T − T_ambient) − α·ρ (no temperature term while the
// temperature is uniform), as the CPU's `forces::buoyancy`.
layout(std430) readonly buffer Density { float density[]; };
layout(std430) readonly buffer Temperature { float temperature[]; };
layout(std430) buffer V { float v[]; };

uniform float alpha;
uniform float beta;
uniform float ambient;
uniform float dt;
uniform uint with_temperature;

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    // One thread a cell above the floor row: its y-face below, between cells j−1 and j.
    uvec3 p = coords(uvec3(dims.x, dims.y - 1u, dims.z), n) + uvec3(0u, 1u, 0u);
    uint hi = at(dims, p);
    uint lo = hi - dims.x;
    float alo;
    float ahi;
    if (with_temperature != 0u) {
        alo = beta * (temperature[lo] - ambient) - alpha * density[lo];
        ahi = beta * (temperature[hi] - ambient) - alpha * density[hi];
    } else {
        alo = 0.0 - alpha * density[lo];
        ahi = 0.0 - alpha * density[hi];
    }
    v[at(face_dims(1u), p)] += 0.5 * dt * (alo + ahi);
}
