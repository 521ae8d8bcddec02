// Rows of four cells along x, an invocation's (`mg_rows.comp`, `laplace_rows.comp`): row r
// is cells 4r to 4r + 3 of a grid of `d` cells whose cells along x are a multiple of four,
// each array read and written as vec4s. On the H200 a copy moved 1530 GB/s a float an
// invocation and 4127 as vec4s.
#ifndef ROWS_GLSL
#define ROWS_GLSL

// Which vec4 (from the array's start) holds the row r (at p, its first cell) beside it: the
// cell before it and after it along x (`xl`, `xh`: the vec4s they are in), and the rows
// beside it along y and z; its own where past the grid's end (unused).
struct Around {
    uint xl, xh, yl, yh, zl, zh;
};

Around around(uvec3 d, uint r, uvec3 p) {
    uint sy = d.x / 4u;
    uint sz = sy * d.y;
    Around a;
    a.xl = p.x > 0u ? r - 1u : r;
    a.xh = p.x + 4u < d.x ? r + 1u : r;
    a.yl = p.y > 0u ? r - sy : r;
    a.yh = p.y + 1u < d.y ? r + sy : r;
    a.zl = p.z > 0u ? r - sz : r;
    a.zh = p.z + 1u < d.z ? r + sz : r;
    return a;
}

// The values a stencil reads around a row's cells: the row's own `o`, the cell before it
// (`lo`) and after it (`hi`) along x, and the rows beside it.
struct Row {
    vec4 o;
    float lo, hi;
    vec4 yl, yh, zl, zh;
};

// ROW_OF(name, AT): `Row name(uint off, uint r, Around a)`, a row's values from AT(i), the
// vec4 at i (an array's or worked out), the vec4s at `off` on.
#define ROW_OF(NAME, AT) \
Row NAME(uint off, uint r, Around a) { \
    Row w; \
    w.o = AT(off + r); \
    w.lo = AT(off + a.xl).w; \
    w.hi = AT(off + a.xh).x; \
    w.yl = AT(off + a.yl); \
    w.yh = AT(off + a.yh); \
    w.zl = AT(off + a.zl); \
    w.zh = AT(off + a.zh); \
    return w; \
}

// Cell k's six neighbours' values (−x, +x, −y, +y, −z, +z) from a row's.
float[6] neighbours(Row w, int k) {
    return float[6](k > 0 ? w.o[k - 1] : w.lo, k < 3 ? w.o[k + 1] : w.hi, w.yl[k], w.yh[k],
                    w.zl[k], w.zh[k]);
}
#endif
