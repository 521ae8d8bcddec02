// The pressure gradient's subtraction from a face, one function for `gradient.comp` (a cell
// an invocation, or PER) and `gradient_rows.comp` (rows of four), so that both give the
// same bits.
#ifndef GRADIENT_GLSL
#define GRADIENT_GLSL
uniform float k;   // dt/h
uniform uvec3 open_lo;
uniform uvec3 open_hi;

// The face `s` along `axis` in the row of cell p, less the gradient (`here`: p's pressure,
// `lo`: the pressure of the cell below p along `axis`, read where p has one). `precise`: no
// multiply-add, so the same bits one cell an invocation or four (NVIDIA's compiler fused
// the two differently).
float subtracted(float face, uvec3 p, uint axis, uint s, float here, float lo) {
    precise float res = face;
    if (s == p[axis]) {
        if (s > 0u) {
            res = face - k * (here - lo);
        } else if (open_lo[axis] != 0u) {
            res = face - k * here;
        }
    } else if (open_hi[axis] != 0u) {
        res = face + k * here;
    }
    return res;
}

uint magnitude(float x) { return floatBitsToUint(x) & 0x7fffffffu; }
#endif
