// The active region of the advected scalars on the card, as the CPU's `sim::active`: the
// cells a scalar advection pass must work out, row by row; the others hold nothing but
// outside air within their traces' reach and are written as that without tracing.
//
// op 0 (an item a run of CHUNK cells along a row): the support. Where a cell of some field departs from the field's
// background (its bits differ, or with a cut-off: |φ − background| above it, NaN and
// infinities always), its row's span in support array S takes it in (atomics: only such
// cells make any). Each field's largest |φ − background| (bits) is merged into the
// maxima at `out_at`, for the next sub-step's cut-offs, and each axis' largest |face
// velocity| into the reach's slots.
// op 1 (an item a row): each row's support spans within the reach along y joined, widened
// by the reach along x, into T; the other support array cleared for the next sub-step.
// op 2 (an item a row): T's rows within the reach along z joined into D, the region, and
// its cells counted.
// op 3 (one item, first): this sub-step's maxima, the reach's slots, the count and the flag
// cleared.
//
// Active: [0, 8) two sets of four maxima (the last sub-step's at `cut_at`, this one's at
// `out_at`), [8, 11) the largest |face velocity| along each axis, [11] the region's cells,
// [12] 1 where the velocity is not finite (no cell may be skipped), [13] the pressure's
// largest |value| (the projection's gradient pass merges it, for the finite check). Rows: four arrays of
// one span (first, end) a row: support A, support B, T, D.
//
// With `faces_known` the largest |face velocity| along each axis is already in [8, 11)
// (merged by the projection's gradient pass, the last to write the faces): op 0 reads no
// faces, and the host issues no op 3 (the projection's first pass cleared the other
// figures: `divergence.comp`'s `clear_region`).
//
// In the byte model op 0 reads its CHUNK cells of each field it works on and of the faces
// (none with `faces_known`); the other ops read only the spans and figures.
// bytes when op=0 fields=1 faces_known=1: S0 r ×8
// bytes when op=0 fields=2 faces_known=1: S0 r ×8, S1 r ×8
// bytes when op=0 fields=3 faces_known=1: S0 r ×8, S1 r ×8, S2 r ×8
// bytes when op=0 fields=4 faces_known=1: S0 r ×8, S1 r ×8, S2 r ×8, S3 r ×8
// bytes when op=0 fields=1: S0 r ×8, U r ×8, V r ×8, W r ×8
// bytes when op=0 fields=2: S0 r ×8, S1 r ×8, U r ×8, V r ×8, W r ×8
// bytes when op=0 fields=3: S0 r ×8, S1 r ×8, S2 r ×8, U r ×8, V r ×8, W r ×8
// bytes when op=0 fields=4: S0 r ×8, S1 r ×8, S2 r ×8, S3 r ×8, U r ×8, V r ×8, W r ×8
// bytes: none
layout(std430) readonly buffer S0 { float s0[]; };
layout(std430) readonly buffer S1 { float s1[]; };
layout(std430) readonly buffer S2 { float s2[]; };
layout(std430) readonly buffer S3 { float s3[]; };
layout(std430) readonly buffer U { float u[]; };
layout(std430) readonly buffer V { float v[]; };
layout(std430) readonly buffer W { float w[]; };
layout(std430) buffer Rows { uint rows_[]; };
layout(std430) buffer Active { uint act[]; };

uniform uint op;
uniform uint fields;      // 1 to 4
uniform vec4 background;  // each field's outside value
uniform uvec4 exact;      // per field: 1 where the bits are compared (no cut-off)
uniform float cutoff;     // the CPU's `CUTOFF`
uniform uint cut_at;      // where the last sub-step's maxima are in Active
uniform uint out_at;      // where this one's go
uniform uint s_at;        // the support array this sub-step writes (in rows)
uniform uint other_at;    // the one to clear for the next
uniform uint t_at;
uniform uint d_at;
uniform float kt;         // cells per unit velocity of the traces
uniform uint faces_known; // 1: the faces' maxima are in [8, 11) already

const uint EMPTY_LO = 0xffffffffu;
const uint SLOTS = 7u;

shared uint group_top[SLOTS][WG];

float field(uint f, uint n) {
    switch (f) {
        case 0u: return s0[n];
        case 1u: return s1[n];
        case 2u: return s2[n];
        default: return s3[n];
    }
}

// The reach along each axis (the CPU's `active::reach`), from the largest face
// velocities; false where one is not finite.
bool reach(out uvec3 r) {
    for (uint a = 0u; a < 3u; a++) {
        uint bits = act[8u + a];
        if (bits >= 0x7f800000u) {
            r = uvec3(0u);
            return false;
        }
        double cells = double(abs(kt)) * double(uintBitsToFloat(bits)) * (1.0lf + 1e-4lf);
        cells = min(ceil(cells), 1.0e9lf);
        r[a] = min(uint(cells) + 2u, dims[a]);
    }
    return true;
}

// The cells along x an item of op 0 works on: the group's reduction then comes once for
// that many cells.
const uint CHUNK = 8u;

void support() {
    uint item = gid();
    uint t = gl_LocalInvocationID.x;
    uint top[SLOTS];
    for (uint q = 0u; q < SLOTS; q++) {
        top[q] = 0u;
    }
    if (item < count) {
        uint chunks = (dims.x + CHUNK - 1u) / CHUNK;
        uint row = item / chunks;
        uint x0 = (item - row * chunks) * CHUNK;
        uint x1 = min(x0 + CHUNK, dims.x);
        uvec3 p = uvec3(x0, row % dims.y, row / dims.y);
        uint first = EMPTY_LO;
        uint end = 0u;
        uint cuts[4];
        for (uint f = 0u; f < fields; f++) {
            // (no cut-off where the last maximum is not finite: the CPU's `cuts_from`)
            uint m = act[cut_at + f];
            precise float cut = cutoff * uintBitsToFloat(m);
            cuts[f] = exact[f] != 0u || m >= 0x7f800000u ? EMPTY_LO : floatBitsToUint(cut);
        }
        // Each field's CHUNK values read at once (a cell past the row's end reads the
        // row's last, unused), then looked at: one wait on reads a field, not one a cell.
        bool on[CHUNK];
        for (uint k = 0u; k < CHUNK; k++) {
            on[k] = false;
        }
        for (uint f = 0u; f < fields; f++) {
            float vals[CHUNK];
            for (uint k = 0u; k < CHUNK; k++) {
                vals[k] = field(f, min(x0 + k, x1 - 1u) + dims.x * row);
            }
            float bg = background[f];
            for (uint k = 0u; k < CHUNK; k++) {
                if (x0 + k < x1) {
                    float val = vals[k];
                    uint dep = floatBitsToUint(val - bg) & 0x7fffffffu;
                    top[f] = max(top[f], dep);
                    on[k] = on[k] || (cuts[f] == EMPTY_LO
                        ? floatBitsToUint(val) != floatBitsToUint(bg) : dep > cuts[f]);
                }
            }
        }
        for (uint k = 0u; k < CHUNK; k++) {
            if (on[k]) {
                first = min(first, x0 + k);
                end = x0 + k + 1u;
            }
        }
        if (first < end) {
            atomicMin(rows_[2u * (s_at + row)], first);
            atomicMax(rows_[2u * (s_at + row) + 1u], end);
        }
        // The faces (unless the projection has their maxima): each cell's low one along
        // each axis, and the high ones at the ends.
        if (faces_known == 0u) {
            uint a = at(face_dims(0u), p);
            for (uint x = x0; x <= x1 && x <= dims.x; x++) {
                if (x < x1 || x1 == dims.x) {
                    top[4] = max(top[4], floatBitsToUint(u[a + x - x0]) & 0x7fffffffu);
                }
            }
            uint b = at(face_dims(1u), p);
            uint c = at(face_dims(2u), p);
            for (uint x = 0u; x < x1 - x0; x++) {
                top[5] = max(top[5], floatBitsToUint(v[b + x]) & 0x7fffffffu);
                top[6] = max(top[6], floatBitsToUint(w[c + x]) & 0x7fffffffu);
                if (p.y + 1u == dims.y) {
                    top[5] = max(top[5], floatBitsToUint(v[b + x + dims.x]) & 0x7fffffffu);
                }
                if (p.z + 1u == dims.z) {
                    top[6] = max(top[6], floatBitsToUint(w[c + x + dims.x * dims.y]) & 0x7fffffffu);
                }
            }
        }
    }
    for (uint q = 0u; q < SLOTS; q++) {
        group_top[q][t] = top[q];
    }
    barrier();
    for (uint h = uint(WG) / 2u; h > 0u; h /= 2u) {
        if (t < h) {
            for (uint q = 0u; q < SLOTS; q++) {
                group_top[q][t] = max(group_top[q][t], group_top[q][t + h]);
            }
        }
        barrier();
    }
    if (t == 0u) {
        for (uint f = 0u; f < fields; f++) {
            atomicMax(act[out_at + f], group_top[f][0]);
        }
        for (uint a = 0u; a < 3u && faces_known == 0u; a++) {
            atomicMax(act[8u + a], group_top[4u + a][0]);
        }
    }
}

void main() {
    if (op == 0u) {
        support();
        return;
    }
    if (op == 3u) {
        // (one item) this sub-step's figures start at 0
        if (gid() == 0u) {
            for (uint q = 0u; q < 4u; q++) {
                act[out_at + q] = 0u;
            }
            for (uint q = 8u; q < 13u; q++) {
                act[q] = 0u;
            }
        }
        return;
    }
    uint row = gid();
    if (row >= count) {
        return;
    }
    uvec3 r;
    if (!reach(r)) {
        act[12] = 1u;
        return;
    }
    uint j = row % dims.y;
    uint k = row / dims.y;
    uint lo = EMPTY_LO;
    uint hi = 0u;
    if (op == 1u) {
        for (uint jj = j - min(j, r.y); jj < min(j + r.y + 1u, dims.y); jj++) {
            uint q = 2u * (s_at + jj + dims.y * k);
            lo = min(lo, rows_[q]);
            hi = max(hi, rows_[q + 1u]);
        }
        if (lo < hi) {
            lo -= min(lo, r.x);
            hi = min(hi + r.x, dims.x);
        } else {
            lo = EMPTY_LO;
            hi = 0u;
        }
        rows_[2u * (t_at + row)] = lo;
        rows_[2u * (t_at + row) + 1u] = hi;
        rows_[2u * (other_at + row)] = EMPTY_LO;
        rows_[2u * (other_at + row) + 1u] = 0u;
        return;
    }
    for (uint kk = k - min(k, r.z); kk < min(k + r.z + 1u, dims.z); kk++) {
        uint q = 2u * (t_at + j + dims.y * kk);
        lo = min(lo, rows_[q]);
        hi = max(hi, rows_[q + 1u]);
    }
    rows_[2u * (d_at + row)] = lo;
    rows_[2u * (d_at + row) + 1u] = hi;
    if (lo < hi) {
        atomicAdd(act[11], hi - lo);
    }
}
