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
uniform sampler2D solid_hits;   // the solid pass's hit buffer (see volume.frag)
uniform vec2 viewport_origin;
uniform int max_steps;
in vec3 world;
in vec3 rgb;
out vec4 color;

void main() {
    vec3 to = world - eye;
    float dist = length(to);
    vec3 rd = to / max(dist, 1e-9);
    ivec2 px = min(ivec2(gl_FragCoord.xy - viewport_origin), textureSize(solid_hits, 0) - 1);
    if (texelFetch(solid_hits, px, 0).w < dist - 1e-4) {
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
