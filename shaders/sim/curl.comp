// Vorticity ω = ∇ × u of the cell-centred velocity, and |ω|, into four fields (curl.glsl, as
// the CPU's `vorticity`). The cell-centred velocity comes from the faces here
// (cell_velocity.glsl), so no pass writes it first. The two-pass way
// (`PLUME_GPU_TILED_VORTICITY=0`); `vorticity.comp` does this and the confinement in one.
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) writeonly buffer OmegaX { float omega_x[]; };
layout(std430) writeonly buffer OmegaY { float omega_y[]; };
layout(std430) writeonly buffer OmegaZ { float omega_z[]; };
layout(std430) writeonly buffer Magnitude { float magnitude[]; };

uniform float inv_h;

#include "cell_velocity.glsl"
#include "curl.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    vec4 o = vorticity_at(coords(dims, n));
    omega_x[n] = o.x;
    omega_y[n] = o.y;
    omega_z[n] = o.z;
    magnitude[n] = o.w;
}
