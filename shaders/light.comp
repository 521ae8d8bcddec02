#version 430 core
// The light cache: the smoke's optical depth towards the light at each texel's centre (the
// march volume.frag took at every sample of smoke, `light_march.glsl`), which the raymarch
// then reads, with linear filtering, at the end of a short march of its own (`near`, in
// volume.frag). A sample of smoke reads texels less than `reach` voxels from it (the near
// march and a texel's spacing): where no brick within `reach` of a texel's centre holds
// anything to see (`occupancy.comp`), no sample of smoke reads it and it is not marched.
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

#include "light_march.glsl"

layout(r32f) writeonly uniform image3D light;
uniform bool use_bricks;
uniform sampler3D occupancy;    // a texel a brick of `brick`³ voxels: 0 where nothing is
uniform int brick;
uniform float reach;            // voxels

void main() {
    ivec3 v = ivec3(gl_GlobalInvocationID);
    ivec3 size = imageSize(light);
    if (any(greaterThanEqual(v, size))) {
        return;
    }
    vec3 s = (vec3(v) + 0.5) / vec3(size);
    if (use_bricks) {
        vec3 c = s * vec3(textureSize(density, 0));
        ivec3 last = textureSize(occupancy, 0) - 1;
        ivec3 lo = clamp(ivec3(floor((c - reach) / float(brick))), ivec3(0), last);
        ivec3 hi = clamp(ivec3(floor((c + reach) / float(brick))), ivec3(0), last);
        bool near = false;
        for (int z = lo.z; z <= hi.z; z++) {
            for (int y = lo.y; y <= hi.y; y++) {
                for (int x = lo.x; x <= hi.x; x++) {
                    near = near || texelFetch(occupancy, ivec3(x, y, z), 0).r != 0.0;
                }
            }
        }
        if (!near) {
            imageStore(light, v, vec4(0.0));
            return;
        }
    }
    imageStore(light, v, vec4(depth_to_light(box_min + s * (box_max - box_min))));
}
