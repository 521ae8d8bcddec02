// A reduction's skeleton: each work group sums `item_sum(i)` (in double precision) and
// takes the largest `item_bits(i)` over a grid-stride loop, then a tree in shared memory;
// one partial a group, at `base` + the group's number (several reductions can be read back
// together). The includer defines both item functions. Deterministic: the same items land
// in the same places every run.
layout(std430) writeonly buffer PartialSum { double partial_sum[]; };
layout(std430) writeonly buffer PartialMax { uint partial_max[]; };

uniform uint base;

shared double sums[WG];
shared uint maxes[WG];

void main() {
    uint t = gl_LocalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * uint(WG);
    double s = 0.0;
    uint m = 0u;
    for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) {
        s += item_sum(i);
        m = max(m, item_bits(i));
    }
    sums[t] = s;
    maxes[t] = m;
    barrier();
    for (uint half_ = uint(WG) / 2u; half_ > 0u; half_ /= 2u) {
        if (t < half_) {
            sums[t] += sums[t + half_];
            maxes[t] = max(maxes[t], maxes[t + half_]);
        }
        barrier();
    }
    if (t == 0u) {
        partial_sum[base + gl_WorkGroupID.x] = sums[0];
        partial_max[base + gl_WorkGroupID.x] = maxes[0];
    }
}
