#version 330 core
// The hit buffer: the nearest obstacle surface per pixel as (normal facing the eye, distance
// from the eye). volume.frag stops its rays there and shades it; stream.frag hides lines
// behind it.
uniform vec3 eye;
in vec3 world;
in vec3 n_world;
out vec4 hit;

void main() {
    vec3 n = normalize(n_world);
    if (dot(n, eye - world) < 0.0) {
        n = -n;  // meshes with faces turned inwards still face the eye
    }
    hit = vec4(n, distance(world, eye));
}
