// Scales every value and adds a constant: takes the mean out of a closed box's right-hand
// side, applies the mass correction, and (with `mul` 0) fills a field with a value.
layout(std430) buffer Field { float field[]; };

uniform float add;
uniform float mul;
uniform uint fluid_only;   // leave solid cells as they are

#include "solid.glsl"

void main() {
    uint n = gid();
    if (n >= count || (fluid_only != 0u && solid_at(n))) {
        return;
    }
    // A fill does not read what was there (a new buffer may hold any bits, NaN too).
    field[n] = mul == 0.0 ? add : field[n] * mul + add;
}
