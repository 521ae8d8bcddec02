// A reduction's skeleton: each work group sums `item_sum(i)` (in double precision) and
// takes the largest `item_bits(i)` over a grid-stride loop, then a tree in shared memory;
// one partial a group, at `base` + the group's number (several reductions can be read back
// together). The includer defines both item functions. Deterministic: the same items land
// in the same places every run.
// An includer that spreads several reductions over rows of work groups defines
// REDUCE_GROUP (this group's number in its reduction), REDUCE_GROUPS_NOW (the groups its
// reduction is spread over), REDUCE_COUNT (its items), REDUCE_BASE (where its partials go)
// and REDUCE_SKIP (a group the reduction does not use); by default they are the dispatch's.
// An includer that defines REDUCE_SECOND and `item_sum2(i)` makes a second sum over the
// same items in the same order, its partials at `base2` + the group's number (two
// reductions in one dispatch, each the bits it would have alone).
// A reduction over the whole dispatch (REDUCE_GROUP not defined) with `book` set keeps a
// step's books from its partial sums in its last work group (`last_group.glsl`): the
// ledger's op `book` − 1 (`ledger.glsl`), as a dispatch of `ledger.comp` after it would,
// with its partial results from 0 (`base` 0).
layout(std430) coherent buffer PartialSum { double partial_sum[]; };
layout(std430) writeonly buffer PartialMax { uint partial_max[]; };

#ifndef REDUCE_GROUP
uniform uint base;
#define REDUCE_GROUP gl_WorkGroupID.x
#define REDUCE_GROUPS_NOW gl_NumWorkGroups.x
#define REDUCE_COUNT count
#define REDUCE_BASE base
#define REDUCE_SKIP false
#define REDUCE_BOOKS
#include "last_group.glsl"
#include "ledger.glsl"
uniform uint book;          // 0: none; else 1 + the ledger's op
uniform uint book_slot;     // its slot, second reduction's groups (op 5), k, fade, swept
uniform uint book_groups2;  // (see `ledger.comp`)
uniform float book_k;
uniform float book_fade;
uniform double book_swept;
uniform dvec2 book_bounds;
#endif

shared double sums[WG];
shared uint maxes[WG];
#ifdef REDUCE_SECOND
uniform uint base2;
shared double sums2[WG];
#endif

void main() {
    // (the same for the whole work group: none is left waiting at a barrier)
    if (REDUCE_SKIP) {
        return;
    }
    uint t = gl_LocalInvocationID.x;
    uint stride = REDUCE_GROUPS_NOW * uint(WG);
    double s = 0.0;
    uint m = 0u;
#ifdef REDUCE_SECOND
    double s2 = 0.0;
#endif
    uint items = REDUCE_COUNT;
    uint i = REDUCE_GROUP * uint(WG) + t;
    // AHEAD items a round (fewer in the last), every one read before the first is added,
    // and added in the order of the items (the same bits as one at a time). A few hundred
    // groups' invocations reading an item at a time each wait on every read: a 256³ sum
    // moved 245 GB/s on an H200, a sixth of what a copy does. Four a round (until
    // 2026-12-02) kept at most 1 MB in flight (65 536 invocations, a float an item), where the
    // card's bandwidth times its memory latency is some 3 MB; and an invocation's last
    // items, fewer than four, it read one at a time.
    const uint AHEAD = 8u;
    for (; i < items; i += AHEAD * stride) {
        double v[AHEAD];
        uint bits[AHEAD];
#ifdef REDUCE_SECOND
        double v2[AHEAD];
#endif
        for (uint k = 0u; k < AHEAD; k++) {
            uint j = i + k * stride;
            bool here = j < items;
            v[k] = here ? item_sum(j) : 0.0lf;
            bits[k] = here ? item_bits(j) : 0u;
#ifdef REDUCE_SECOND
            v2[k] = here ? item_sum2(j) : 0.0lf;
#endif
        }
        for (uint k = 0u; k < AHEAD; k++) {
            if (i + k * stride < items) {
                s += v[k];
                m = max(m, bits[k]);
#ifdef REDUCE_SECOND
                s2 += v2[k];
#endif
            }
        }
    }
    sums[t] = s;
    maxes[t] = m;
#ifdef REDUCE_SECOND
    sums2[t] = s2;
#endif
    barrier();
    for (uint half_ = uint(WG) / 2u; half_ > 0u; half_ /= 2u) {
        if (t < half_) {
            sums[t] += sums[t + half_];
            maxes[t] = max(maxes[t], maxes[t + half_]);
#ifdef REDUCE_SECOND
            sums2[t] += sums2[t + half_];
#endif
        }
        barrier();
    }
    if (t == 0u) {
        partial_sum[REDUCE_BASE + REDUCE_GROUP] = sums[0];
        partial_max[REDUCE_BASE + REDUCE_GROUP] = maxes[0];
#ifdef REDUCE_SECOND
        partial_sum[base2 + REDUCE_GROUP] = sums2[0];
#endif
    }
#ifdef REDUCE_BOOKS
    if (LAST_GROUP_ON && book != 0u && last_group(REDUCE_GROUPS_NOW)) {
        if (t == 0u) {
            keep_books(book - 1u, book_slot, REDUCE_GROUPS_NOW, book_groups2, book_k,
                book_fade, book_swept, book_bounds);
        }
    }
#endif
}
