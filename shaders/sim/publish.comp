// The viewer's volume, written on the card: density into an R32F 3D texture and, where
// something glows, temperature and flame (never below 0) into an RG32F one, for the
// renderer's context (which shares objects with the solver's) to raymarch. One cell each.
layout(std430) readonly buffer Density { float density[]; };
layout(std430) readonly buffer Temperature { float temperature[]; };
layout(std430) readonly buffer Flame { float flame[]; };

layout(r32f) uniform writeonly image3D density_image;
layout(rg32f) uniform writeonly image3D heat_image;

uniform uint heat;  // 1: write the heat image too

void main() {
    uint n = gid();
    if (n >= count) {
        return;
    }
    ivec3 p = ivec3(coords(dims, n));
    imageStore(density_image, p, vec4(density[n], 0.0, 0.0, 0.0));
    if (heat == 1u) {
        imageStore(heat_image, p, vec4(temperature[n], max(flame[n], 0.0), 0.0, 0.0));
    }
}
