// Combustion (as the CPU's `fire::burn`): the flame decays by e^(−flame_decay·dt); where the
// air is hotter than ignition, fuel F loses b = F·(1 − e^(−k·dt)), which raises the
// temperature by heat·b, the flame by flame·b and the density by smoke·b. b goes into
// Burned for the step's total.
layout(std430) buffer Density { float density[]; };
layout(std430) buffer Temperature { float temperature[]; };
layout(std430) buffer Fuel { float fuel[]; };
layout(std430) buffer Flame { float flame[]; };
layout(std430) writeonly buffer Burned { float burned_out[]; };

uniform float burned;   // 1 − e^(−k·dt)
uniform float decay;    // e^(−flame_decay·dt)
uniform float ignition;
uniform float heat;
uniform float flame_per_fuel;
uniform float smoke;

void main() {
    uint c = gid();
    if (c >= count) {
        return;
    }
    float fl = flame[c] * decay;
    float f = fuel[c];
    float b = 0.0;
    if (f > 0.0 && temperature[c] > ignition) {
        b = f * burned;
        fuel[c] = max(f - b, 0.0);
        temperature[c] += heat * b;
        density[c] += smoke * b;
        fl += flame_per_fuel * b;
    }
    flame[c] = max(fl, 0.0);
    burned_out[c] = b;
}
