#version 330 core
// Reads one z-slice of the density texture texel by texel (no filtering), for tests and
// for checking an upload.
uniform sampler3D density;
uniform int slice;
out vec4 value;
void main() {
    value = vec4(texelFetch(density, ivec3(gl_FragCoord.xy, slice), 0).r, 0.0, 0.0, 1.0);
}
