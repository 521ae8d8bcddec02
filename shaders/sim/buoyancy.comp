// Smoke weight and buoyancy on the inner y-faces (`buoyancy.glsl`), as the CPU's
// `forces::buoyancy`. In a step the velocity's advection adds it as it writes the faces
// (`advect_faces.comp` with `buoyant`) where no obstacle's faces are set between them, and
// this pass does not run; run alone, or with obstacles, it does.
// bytes: Density r, Temperature r, V rw
layout(std430) buffer V { float v[]; };

#include "buoyancy.glsl"

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    // One thread a cell above the floor row: its y-face below, between cells j−1 and j.
    uvec3 p = coords(uvec3(dims.x, dims.y - 1u, dims.z), n) + uvec3(0u, 1u, 0u);
    uint hi = at(dims, p);
    uint f = at(face_dims(1u), p);
    precise float lifted = v[f] + lift(hi - dims.x, hi);
    v[f] = lifted;
}
