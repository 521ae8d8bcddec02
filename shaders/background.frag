#version 330 core
// Vertical background gradient (bottom → top), the colour behind the smoke.
uniform vec2 viewport_origin;
uniform vec2 viewport_size;
uniform vec3 bg_bottom;
uniform vec3 bg_top;
out vec4 color;
void main() {
    float t = clamp((gl_FragCoord.y - viewport_origin.y) / viewport_size.y, 0.0, 1.0);
    color = vec4(mix(bg_bottom, bg_top, t), 1.0);
}
