#version 430 core
// Which bricks of the volume the raymarch (volume.frag) may step over: a texel a brick of
// `brick`³ voxels, 1 where a sample inside the brick can see anything, 0 where none can.
// A trilinear sample at voxel coordinate u (voxel i's centre at i + ½) reads voxels
// ⌊u − ½⌋ and the one after along each axis, so a sample inside brick b (u from b·brick to
// (b + 1)·brick) reads only voxels b·brick − 1 to (b + 1)·brick: the brick's voxels and one
// beyond each face (clamped to the volume, as the sampler clamps). The brick is empty where
// every one of those has density ≤ 0 and, with `fire`, flame ≤ 0: every sample in it then
// has d ≤ 0 (and flame ≤ 0), which the raymarch passes over without adding anything, so
// skipping those samples changes no pixel. A NaN counts as something (it is not ≤ 0).
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

uniform sampler3D density;      // R32F, read texel by texel
uniform sampler3D heat;         // RG32F: temperature, flame (read where `fire`)
uniform bool fire;
uniform int brick;
layout(r32f) writeonly uniform image3D occupancy;

void main() {
    ivec3 b = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(b, imageSize(occupancy)))) {
        return;
    }
    ivec3 last = textureSize(density, 0) - 1;
    ivec3 lo = clamp(b * brick - 1, ivec3(0), last);
    ivec3 hi = clamp(b * brick + brick, ivec3(0), last);
    float seen = 0.0;
    for (int z = lo.z; z <= hi.z && seen == 0.0; z++) {
        for (int y = lo.y; y <= hi.y && seen == 0.0; y++) {
            for (int x = lo.x; x <= hi.x; x++) {
                ivec3 v = ivec3(x, y, z);
                bool dense = !(texelFetch(density, v, 0).r <= 0.0);
                bool burns = fire && !(texelFetch(heat, v, 0).g <= 0.0);
                if (dense || burns) {
                    seen = 1.0;
                    break;
                }
            }
        }
    }
    imageStore(occupancy, b, vec4(seen, 0.0, 0.0, 0.0));
}
