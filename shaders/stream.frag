#version 330 core
// A streamline fragment seen through the smoke: its colour is weighted by the transmittance
// of the smoke between the eye and the fragment (marched through the same density texture
// the volume pass draws), and it is discarded when an obstacle lies in front of it. Drawn
// after the volume with premultiplied alpha, so smoke in front dims it and an obstacle in
// front hides it.
uniform sampler3D density;
uniform vec3 eye;
uniform vec3 box_min;
uniform vec3 box_max;
uniform float step_len;
uniform float density_scale;
uniform sampler2D obstacles;
uniform int obstacle_count;
uniform int max_steps;
in vec3 world;
in vec3 rgb;
out vec4 color;

// The same obstacle intersection as volume.frag: nearest hit beyond t_min, 1e30 when none.
float hit_obstacles(vec3 ro, vec3 rd, float t_min) {
    float best = 1e30;
    for (int i = 0; i < obstacle_count; ++i) {
        vec4 a = texelFetch(obstacles, ivec2(i, 0), 0);
        vec3 e = texelFetch(obstacles, ivec2(i, 1), 0).xyz;
        vec3 c = a.xyz;
        if (a.w < 1.5) {
            vec3 oc = ro - c;
            float b = dot(oc, rd);
            float h = b * b - (dot(oc, oc) - e.x * e.x);
            if (h >= 0.0) {
                float t = -b - sqrt(h);
                if (t > t_min && t < best) best = t;
            }
        } else {
            vec3 inv = 1.0 / rd;
            vec3 ta = (c - e - ro) * inv;
            vec3 tb = (c + e - ro) * inv;
            vec3 lo = min(ta, tb);
            vec3 hi = max(ta, tb);
            float tn = max(max(lo.x, lo.y), lo.z);
            float tf = min(min(hi.x, hi.y), hi.z);
            if (tf >= tn && tn > t_min && tn < best) best = tn;
        }
    }
    return best;
}

void main() {
    vec3 to = world - eye;
    float dist = length(to);
    vec3 rd = to / max(dist, 1e-9);
    if (hit_obstacles(eye, rd, 0.0) < dist - 1e-4) {
        discard;
    }
    // Entry into the box along the ray (0 when the eye is inside).
    vec3 inv = 1.0 / rd;
    vec3 ta = (box_min - eye) * inv;
    vec3 tb = (box_max - eye) * inv;
    vec3 lo = min(ta, tb);
    float t0 = max(max(lo.x, lo.y), max(lo.z, 0.0));
    float tau = 0.0;
    float span = max(dist - t0, 0.0);
    int n = min(int(ceil(span / step_len)), max_steps);
    if (n > 0) {
        float ds = span / float(n);
        for (int i = 0; i < n; ++i) {
            vec3 p = eye + rd * (t0 + (float(i) + 0.5) * ds);
            tau += texture(density, (p - box_min) / (box_max - box_min)).r;
        }
        tau *= ds;
    }
    float t = exp(-tau * density_scale);
    color = vec4(rgb * t, t);
}
