// Gas expansion (as the CPU's `add_expansion`): the projection's right-hand side raised so
// that ∇·u = expansion × (fuel burned per second) in every burning cell.
layout(std430) readonly buffer Fuel { float fuel[]; };
layout(std430) readonly buffer Temperature { float temperature[]; };
layout(std430) buffer Rhs { float rhs[]; };

uniform float k;          // h²/dt · expansion
uniform float ignition;
uniform float burn_rate;

void main() {
    uint c = gid();
    if (c >= count) {
        return;
    }
    float f = fuel[c];
    float rate = (temperature[c] > ignition && f > 0.0) ? burn_rate * f : 0.0;
    rhs[c] += k * rate;
}
