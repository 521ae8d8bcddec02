#version 330 core
// An obstacle's triangles, placed by its model matrix (its pose at the frame's time).
uniform mat4 view_proj;
uniform mat4 model;
uniform mat3 normal_matrix;  // inverse transpose of the model's 3×3 part
in vec3 position;
in vec3 normal;
out vec3 world;
out vec3 n_world;

void main() {
    vec4 w = model * vec4(position, 1.0);
    world = w.xyz;
    n_world = normal_matrix * normal;
    gl_Position = view_proj * w;
}
