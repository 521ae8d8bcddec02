#version 330 core
// Raymarches the density volume front to back in linear light: smoke lit by the light (with
// a Henyey–Greenstein phase function and self-shadowing), the ambient and, where something
// burns, the flame; the flame's blackbody emission; obstacles behind. The result is exposed,
// tone-mapped (ACES fit) and sRGB-encoded. It is composited over the background already drawn
// with (One, OneMinusSrcAlpha): the colour written is display(light + transmittance ×
// background) − transmittance × background, so where the ray sees nothing the background is
// unchanged, and where it does the tone map applies to the whole pixel, background included.

#include "light_march.glsl"
uniform mat4 inv_view_proj;     // clip → world
uniform vec3 eye;               // camera position, world
uniform vec2 viewport_origin;
uniform vec2 viewport_size;
uniform float step_len;         // march step, world units (≤ one voxel)
uniform vec3 light_color;       // linear
uniform float ambient;
uniform vec3 smoke_color;       // linear albedo
uniform float phase_g;          // Henyey–Greenstein anisotropy
uniform float exposure;         // linear factor, 2^stops
uniform bool tone_map;
uniform vec3 bg_bottom;         // background gradient as drawn (display values)
uniform vec3 bg_top;
uniform bool fire;              // heat holds temperature and flame
uniform sampler3D heat;         // RG32F: temperature (scene units), flame
uniform sampler2D blackbody;    // N × 1 RGB32F: emission of a unit flame, linear
uniform vec2 bb_range;          // kelvin of the table's first and last entries
uniform float kelvin_per_unit;
uniform float flame_intensity;
uniform vec3 flame_light_pos;   // the flame as one soft light: centre,
uniform vec3 flame_light_rgb;   // power (linear),
uniform float flame_light_r2;   // and spread²
uniform bool shadows;
uniform bool light_cached;      // the smoke's optical depth towards the light from `light`
uniform sampler3D light;        // (light.comp: the march at its texels' centres), not marched
uniform float near;             // but for the first this far, in `near_steps` samples
uniform int near_steps;
uniform bool jitter;
uniform int max_steps;
uniform sampler2D solid_hits;   // RGBA32F per pixel of the viewport (solid.frag): the nearest
                                // obstacle's normal and distance from the eye (1e30: none)
uniform vec3 obstacle_color;    // linear
uniform bool skip_empty;        // step over empty bricks (occupancy.comp):
uniform sampler3D occupancy;    // R32F a texel a brick of `brick`³ voxels, 0 where no
uniform int brick;              // sample inside it sees anything

out vec4 color;

// Interleaved gradient noise: a per-pixel offset in [0, 1) that hides banding.
float ign(vec2 p) {
    return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715))));
}

// Linear light → display: exposure, ACES fit (Narkowicz 2015) or a clip, sRGB encoding.
float aces(float x) {
    return clamp(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}
float aces_inverse(float y) {
    y = clamp(y, 0.0, 0.999);
    float a = 2.43 * y - 2.51;
    float b = 0.59 * y - 0.03;
    float c = 0.14 * y;
    return (-b - sqrt(max(b * b - 4.0 * a * c, 0.0))) / (2.0 * a);
}
float encode(float x) {
    return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
}
float decode(float c) {
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}
vec3 display(vec3 lin) {
    vec3 x = max(lin * exposure, vec3(0.0));
    vec3 t = tone_map ? vec3(aces(x.r), aces(x.g), aces(x.b)) : clamp(x, 0.0, 1.0);
    return vec3(encode(t.r), encode(t.g), encode(t.b));
}
// The linear light that display() shows as the display colour c.
vec3 display_inverse(vec3 c) {
    vec3 t = vec3(decode(c.r), decode(c.g), decode(c.b));
    vec3 x = tone_map ? vec3(aces_inverse(t.r), aces_inverse(t.g), aces_inverse(t.b)) : t;
    return x / exposure;
}

// Henyey–Greenstein phase function times 4π (1 for g = 0), for light travelling along
// -light_dir and scattered towards the eye (against rd).
float phase(vec3 rd) {
    float g = phase_g;
    float c = dot(light_dir, rd);
    return (1.0 - g * g) / pow(max(1.0 + g * g - 2.0 * g * c, 1e-4), 1.5);
}

// Emission of the flame at p (per unit length) and its temperature/flame sample.
vec3 flame_emission(vec2 tf) {
    if (tf.y <= 0.0) {
        return vec3(0.0);
    }
    float k = tf.x * kelvin_per_unit;
    float u = (k - bb_range.x) / (bb_range.y - bb_range.x);
    if (u <= 0.0) {
        return vec3(0.0);
    }
    return flame_intensity * tf.y * texture(blackbody, vec2(clamp(u, 0.0, 1.0), 0.5)).rgb;
}

// Transmittance from p towards the light, through the volume (marched: an obstacle's point
// may lie where the light cache was not worked out).
float light_transmittance(vec3 p) {
    return shadows ? exp(-depth_to_light(p)) : 1.0;
}

// The same at a sample of smoke: from the light cache where there is one.
float smoke_light(vec3 p) {
    if (!shadows) {
        return 1.0;
    }
    if (!light_cached) {
        return exp(-depth_to_light(p));
    }
    // The first `near` of the way marched (where a dense smoke's lit face makes the depth
    // steepest), the rest from the cache.
    float t0, t1;
    if (!hit_box(p, light_dir, t0, t1)) {
        return 1.0;
    }
    float len = min(near, t1);
    float ds = len / float(near_steps);
    float tau = 0.0;
    for (int i = 0; i < near_steps; ++i) {
        tau += sample_density(p + light_dir * ((float(i) + 0.5) * ds));
    }
    vec3 q = p + light_dir * len;
    float far = texture(light, (q - box_min) / (box_max - box_min)).r;
    return exp(-(tau * density_scale * ds + far));
}

// The nearest obstacle along this pixel's ray, as the solid pass drew it: distance (1e30
// when none) and normal.
float hit_obstacles(out vec3 normal) {
    // (Clamped: with no obstacles the buffer is one texel that sees nothing.)
    ivec2 px = min(ivec2(gl_FragCoord.xy - viewport_origin), textureSize(solid_hits, 0) - 1);
    vec4 h = texelFetch(solid_hits, px, 0);
    normal = h.xyz;
    return h.w;
}

void main() {
    vec2 ndc = (gl_FragCoord.xy - viewport_origin) / viewport_size * 2.0 - 1.0;
    vec4 far_h = inv_view_proj * vec4(ndc, 1.0, 1.0);
    vec3 rd = normalize(far_h.xyz / far_h.w - eye);
    float t0, t1;
    if (!hit_box(eye, rd, t0, t1)) {
        discard;
    }
    vec3 n_solid;
    float t_solid = hit_obstacles(n_solid);
    bool solid = t_solid < t1;
    if (solid) {
        t1 = t_solid;
    }
    float offset = jitter ? ign(gl_FragCoord.xy) : 0.5;
    int n = min(int(ceil((t1 - t0) / step_len)), max_steps);
    vec3 acc = vec3(0.0);
    float trans = 1.0;
    float ph = phase(rd);
    ivec3 voxels = textureSize(density, 0);
    vec3 cell = (box_max - box_min) / vec3(voxels);
    float seen_until = -1.0;
    for (int i = 0; i < n; ++i) {
        float t = t0 + (float(i) + offset) * step_len;
        if (t > t1) {
            break;
        }
        vec3 p = eye + rd * t;
        // In an empty brick every sample adds nothing: go on from the last sample before the
        // ray leaves it (the samples taken are the ones an unskipped march takes, at the same
        // t: the same picture).
        // (a brick with something in it is looked up once: its samples are all taken)
        if (skip_empty && !(t <= seen_until)) {
            vec3 u = (p - box_min) / cell;
            if (all(greaterThanEqual(u, vec3(0.0))) && all(lessThan(u, vec3(voxels)))) {
                ivec3 b = ivec3(u) / brick;
                vec3 lo = box_min + vec3(b * brick) * cell;
                vec3 ta = (lo - eye) / rd;
                vec3 tb = (lo + float(brick) * cell - eye) / rd;
                vec3 far = max(ta, tb);
                float leave = min(min(far.x, far.y), far.z);
                if (texelFetch(occupancy, b, 0).r != 0.0) {
                    seen_until = leave;
                } else {
                    // (the last sample at or before the exit: the ones between are inside
                    // the brick; NaN or none farther: no skip)
                    float last = min(floor((leave - t0) / step_len - offset), float(n));
                    if (last > float(i + 1)) {
                        i = int(last) - 1;
                        continue;
                    }
                }
            }
        }
        float d = sample_density(p);
        vec2 tf = fire ? texture(heat, (p - box_min) / (box_max - box_min)).rg : vec2(0.0);
        if (d <= 0.0 && tf.y <= 0.0) {
            continue;
        }
        // Emission along the step, seen through the smoke in front.
        acc += trans * flame_emission(tf) * step_len;
        if (d <= 0.0) {
            continue;
        }
        // Beer–Lambert over one step.
        float a = 1.0 - exp(-d * density_scale * step_len);
        vec3 incoming = light_color * (ph * smoke_light(p)) + vec3(ambient);
        if (fire) {
            vec3 to = p - flame_light_pos;
            incoming += flame_light_rgb / (12.566371 * (dot(to, to) + flame_light_r2));
        }
        acc += trans * a * smoke_color * incoming;
        trans *= 1.0 - a;
        if (trans <= 0.01) {
            trans = 0.0;
            break;
        }
    }
    if (solid && trans > 0.0) {
        // The obstacle behind the smoke: diffuse + ambient, shadowed by the smoke above it.
        vec3 p = eye + rd * t_solid + n_solid * step_len;
        float lambert = max(dot(n_solid, light_dir), 0.0);
        vec3 lit = obstacle_color * (light_color * lambert * light_transmittance(p) + vec3(ambient));
        acc += trans * lit;
        trans = 0.0;
    }
    // The background this pixel shows (as background.frag draws it), in linear light.
    float gy = clamp((gl_FragCoord.y - viewport_origin.y) / viewport_size.y, 0.0, 1.0);
    vec3 bg = mix(bg_bottom, bg_top, gy);
    vec3 shown = display(acc + trans * display_inverse(bg));
    color = vec4(max(shown - trans * bg, vec3(0.0)), 1.0 - trans);
}
