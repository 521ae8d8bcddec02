#version 330 core
// Streamlines in the 3D view: world-space line strips coloured by speed.
uniform mat4 view_proj;
in vec3 position;
in vec3 line_rgb;
out vec3 world;
out vec3 rgb;
void main() {
    world = position;
    rgb = line_rgb;
    gl_Position = view_proj * vec4(position, 1.0);
}
