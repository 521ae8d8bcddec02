// The box, density samples and the march towards the light: one copy for the raymarch
// (volume.frag) and the light cache (light.comp), spliced into both where they say
// `#include "light_march.glsl"` (`src/render/light.rs`).

uniform sampler3D density;      // R32F, linear filtering, clamp to edge
uniform vec3 box_min;           // domain corners, world
uniform vec3 box_max;
uniform float density_scale;    // extinction per unit density per world unit
uniform vec3 light_dir;         // unit vector towards the light
uniform int shadow_steps;

// Entry and exit distances of the ray through the box; tnear is clamped to 0 when the eye is
// inside. Returns false when the box is missed.
bool hit_box(vec3 ro, vec3 rd, out float t0, out float t1) {
    vec3 inv = 1.0 / rd;
    vec3 ta = (box_min - ro) * inv;
    vec3 tb = (box_max - ro) * inv;
    vec3 lo = min(ta, tb);
    vec3 hi = max(ta, tb);
    t0 = max(max(lo.x, lo.y), max(lo.z, 0.0));
    t1 = min(min(hi.x, hi.y), hi.z);
    return t1 > t0;
}

float sample_density(vec3 p) {
    return texture(density, (p - box_min) / (box_max - box_min)).r;
}

// Optical depth from p towards the light, through the volume: `shadow_steps` samples from p
// to where the light's ray leaves the box. (The transmittance is its exp(−x); the light
// cache keeps the depth, which varies between texels far more nearly linearly than the
// transmittance does at a dense smoke's lit face.)
float depth_to_light(vec3 p) {
    float t0, t1;
    if (!hit_box(p, light_dir, t0, t1)) {
        return 0.0;
    }
    float ds = t1 / float(shadow_steps);
    float tau = 0.0;
    for (int i = 0; i < shadow_steps; ++i) {
        tau += sample_density(p + light_dir * ((float(i) + 0.5) * ds));
    }
    return tau * density_scale * ds;
}
