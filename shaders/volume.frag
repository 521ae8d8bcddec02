#version 330 core
// Raymarches the density volume front to back and outputs premultiplied colour and
// opacity, composited over what is already drawn with (One, OneMinusSrcAlpha).

uniform sampler3D density;      // R32F, linear filtering, clamp to edge
uniform mat4 inv_view_proj;     // clip → world
uniform vec3 eye;               // camera position, world
uniform vec3 box_min;           // domain corners, world
uniform vec3 box_max;
uniform vec2 viewport_origin;
uniform vec2 viewport_size;
uniform float step_len;         // march step, world units (≤ one voxel)
uniform float density_scale;    // extinction per unit density per world unit
uniform vec3 light_dir;         // unit vector towards the light
uniform vec3 light_color;
uniform float ambient;
uniform vec3 smoke_color;
uniform bool shadows;
uniform int shadow_steps;
uniform bool jitter;
uniform int max_steps;
uniform sampler2D obstacles;    // MAX × 2 RGBA32F: (centre, kind 1 sphere / 2 box), (extent, 0)
uniform int obstacle_count;
uniform vec3 obstacle_color;

out vec4 color;

// Interleaved gradient noise: a per-pixel offset in [0, 1) that hides banding.
float ign(vec2 p) {
    return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715))));
}

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

// Transmittance from p towards the light, through the volume.
float light_transmittance(vec3 p) {
    if (!shadows) {
        return 1.0;
    }
    float t0, t1;
    if (!hit_box(p, light_dir, t0, t1)) {
        return 1.0;
    }
    float ds = t1 / float(shadow_steps);
    float tau = 0.0;
    for (int i = 0; i < shadow_steps; ++i) {
        tau += sample_density(p + light_dir * ((float(i) + 0.5) * ds));
    }
    return exp(-tau * density_scale * ds);
}

// Nearest obstacle hit along the ray beyond t_min: distance (1e30 when none) and normal.
float hit_obstacles(vec3 ro, vec3 rd, float t_min, out vec3 normal) {
    float best = 1e30;
    normal = vec3(0.0, 1.0, 0.0);
    for (int i = 0; i < obstacle_count; ++i) {
        vec4 a = texelFetch(obstacles, ivec2(i, 0), 0);
        vec3 e = texelFetch(obstacles, ivec2(i, 1), 0).xyz;
        vec3 c = a.xyz;
        if (a.w < 1.5) {
            // Sphere of radius e.x.
            vec3 oc = ro - c;
            float b = dot(oc, rd);
            float h = b * b - (dot(oc, oc) - e.x * e.x);
            if (h < 0.0) {
                continue;
            }
            float t = -b - sqrt(h);
            if (t > t_min && t < best) {
                best = t;
                normal = normalize(ro + rd * t - c);
            }
        } else {
            // Axis-aligned box of half size e.
            vec3 inv = 1.0 / rd;
            vec3 ta = (c - e - ro) * inv;
            vec3 tb = (c + e - ro) * inv;
            vec3 lo = min(ta, tb);
            vec3 hi = max(ta, tb);
            float tn = max(max(lo.x, lo.y), lo.z);
            float tf = min(min(hi.x, hi.y), hi.z);
            if (tf < tn || tn <= t_min || tn >= best) {
                continue;
            }
            best = tn;
            vec3 s = -sign(rd);
            normal = tn == lo.x ? vec3(s.x, 0.0, 0.0)
                   : (tn == lo.y ? vec3(0.0, s.y, 0.0) : vec3(0.0, 0.0, s.z));
        }
    }
    return best;
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
    float t_solid = hit_obstacles(eye, rd, t0, n_solid);
    bool solid = t_solid < t1;
    if (solid) {
        t1 = t_solid;
    }
    float offset = jitter ? ign(gl_FragCoord.xy) : 0.5;
    int n = min(int(ceil((t1 - t0) / step_len)), max_steps);
    vec3 acc = vec3(0.0);
    float trans = 1.0;
    for (int i = 0; i < n; ++i) {
        float t = t0 + (float(i) + offset) * step_len;
        if (t > t1) {
            break;
        }
        float d = sample_density(eye + rd * t);
        if (d <= 0.0) {
            continue;
        }
        // Beer–Lambert over one step.
        float a = 1.0 - exp(-d * density_scale * step_len);
        vec3 lit = smoke_color * (light_color * light_transmittance(eye + rd * t) + vec3(ambient));
        acc += trans * a * lit;
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
    color = vec4(acc, 1.0 - trans);
}
