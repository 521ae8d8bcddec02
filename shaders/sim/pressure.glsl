// The pressure operator (as the CPU's `pressure::operator` and `diagonal_at`): a fluid
// cell's diagonal counts its fluid neighbours and its open sides (pressure 0 beyond them);
// walls and solid cells add nothing; a solid cell has no equation (diagonal 0).
#include "solid.glsl"
uniform uvec3 open_lo;
uniform uvec3 open_hi;

float diagonal(uvec3 p) {
    uint c = at(dims, p);
    if (solid_at(c)) {
        return 0.0;
    }
    float n = 0.0;
    uint st[3] = uint[3](1u, dims.x, dims.x * dims.y);
    for (int a = 0; a < 3; a++) {
        n += p[a] > 0u ? (solid_at(c - st[a]) ? 0.0 : 1.0) : (open_lo[a] != 0u ? 1.0 : 0.0);
        n += p[a] + 1u < dims[a] ? (solid_at(c + st[a]) ? 0.0 : 1.0)
                                 : (open_hi[a] != 0u ? 1.0 : 0.0);
    }
    return n;
}

// (A·x) at cell n (at p), its value `here`, its neighbours' `v` (−x, +x, −y, +y, −z, +z) and
// whether each is in the grid and not solid (`on`): the neighbours added or not by a
// select, in the order the CPU adds them (adding +0 for a neighbour left out changes no
// bits: a sum from +0 is never −0), and `precise`, so that every kernel working it out
// (`laplace.comp` a cell an invocation, `laplace_rows.comp` four) gives the same bits.
float applied(uint n, uvec3 p, float here, float v[6], bool on[6]) {
    float s = 0.0;
    for (int k = 0; k < 6; k++) {
        s += on[k] ? v[k] : 0.0;
    }
    precise float r = diagonal(p) * here - s;
    return solid_at(n) ? 0.0 : r;
}

#ifdef STENCIL_VALUE
// (A·x)[n] with x's values from STENCIL_VALUE(m), which the including kernel defines first:
// the stored x, or a value worked out as it is read (laplace.comp's DIRECTION).
// Every value is read before the first is added (a neighbour past the grid's end reads the
// cell itself, unused): the reads are in flight together, not each waited on behind a
// branch.
float apply(uint n) {
    uvec3 p = coords(dims, n);
    uint st[3] = uint[3](1u, dims.x, dims.x * dims.y);
    float v[6];
    bool on[6];
    for (int a = 0; a < 3; a++) {
        bool lo = p[a] > 0u;
        bool hi = p[a] + 1u < dims[a];
        uint ml = lo ? n - st[a] : n;
        uint mh = hi ? n + st[a] : n;
        v[2 * a] = STENCIL_VALUE(ml);
        v[2 * a + 1] = STENCIL_VALUE(mh);
        // Solid neighbours have no pressure of their own: they are left out.
        on[2 * a] = lo && !solid_at(ml);
        on[2 * a + 1] = hi && !solid_at(mh);
    }
    return applied(n, p, STENCIL_VALUE(n), v, on);
}
#endif
