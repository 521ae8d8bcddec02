#version 330 core
uniform mat4 view_proj;
in vec3 position;
void main() {
    gl_Position = view_proj * vec4(position, 1.0);
}
