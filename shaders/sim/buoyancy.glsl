// Smoke weight and buoyancy (as the CPU's `forces::buoyancy`): what an inner y-face between
// cells `lo` (below) and `hi` gains in a sub-step, ½·dt·(a_lo + a_hi), each cell's upward
// acceleration a = β·(T − T_ambient) − α·ρ (no temperature term while the temperature is
// uniform). `precise`: the same bits in every kernel that adds it.
#ifndef BUOYANCY_GLSL
#define BUOYANCY_GLSL
layout(std430) readonly buffer Density { float density[]; };
layout(std430) readonly buffer Temperature { float temperature[]; };

uniform float alpha;
uniform float beta;
uniform float ambient;
uniform float dt;
uniform uint with_temperature;

float lift(uint lo, uint hi) {
    precise float alo;
    precise float ahi;
    if (with_temperature != 0u) {
        alo = beta * (temperature[lo] - ambient) - alpha * density[lo];
        ahi = beta * (temperature[hi] - ambient) - alpha * density[hi];
    } else {
        alo = 0.0 - alpha * density[lo];
        ahi = 0.0 - alpha * density[hi];
    }
    precise float gain = 0.5 * dt * (alo + ahi);
    return gain;
}
#endif
