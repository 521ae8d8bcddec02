// Finishes a dot product of conjugate gradients from the reduction's partial sums (one
// thread, a fixed order: the same result every run) and works out α or β.
// op 0: ρ = r·z, β = 0. op 1: α = ρ / p·q. op 2: ρ' = r·z, β = ρ'/ρ, ρ = ρ'.
// Scalars: [0] ρ, [1] p·q, [2] α, [3] β.
layout(std430) readonly buffer PartialSum { double partial_sum[]; };
layout(std430) buffer Scalars { double scalars[]; };

uniform uint op;
uniform uint groups;

void main() {
    double s = 0.0;
    for (uint g = 0u; g < groups; g++) {
        s += partial_sum[g];
    }
    if (op == 0u) {
        scalars[0] = s;
        scalars[3] = 0.0;
    } else if (op == 1u) {
        scalars[1] = s;
        scalars[2] = s != 0.0 ? scalars[0] / s : 0.0;
    } else {
        scalars[3] = scalars[0] != 0.0 ? s / scalars[0] : 0.0;
        scalars[0] = s;
    }
}
