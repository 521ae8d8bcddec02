#version 330 core
uniform vec4 line_color;
out vec4 color;
void main() {
    // Premultiplied alpha, composited with (One, OneMinusSrcAlpha).
    color = vec4(line_color.rgb * line_color.a, line_color.a);
}
