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
    // Four items a round, every one read before the first is added, then added in the
    // order the loop below adds them (the same bits). A few hundred groups' invocations
    // reading an item at a time each wait on every read: a 256³ sum moved 245 GB/s on an
    // H200, a sixth of what a copy does.
    while (i < items && items - i > 3u * stride) {
        uvec4 j = i + uvec4(0u, 1u, 2u, 3u) * stride;
        dvec4 v = dvec4(item_sum(j.x), item_sum(j.y), item_sum(j.z), item_sum(j.w));
        uvec4 bits = uvec4(item_bits(j.x), item_bits(j.y), item_bits(j.z), item_bits(j.w));
#ifdef REDUCE_SECOND
        dvec4 v2 = dvec4(item_sum2(j.x), item_sum2(j.y), item_sum2(j.z), item_sum2(j.w));
#endif
        s += v.x;
        s += v.y;
        s += v.z;
        s += v.w;
        m = max(max(m, max(bits.x, bits.y)), max(bits.z, bits.w));
#ifdef REDUCE_SECOND
        s2 += v2.x;
        s2 += v2.y;
        s2 += v2.z;
        s2 += v2.w;
#endif
        i += 4u * stride;
    }
    for (; i < items; i += stride) {
        s += item_sum(i);
        m = max(m, item_bits(i));
#ifdef REDUCE_SECOND
        s2 += item_sum2(i);
#endif
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
