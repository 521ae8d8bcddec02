// Which work group of a dispatch is the last to finish its part, so that it can finish
// what a one-group dispatch after this one would have (the conjugate gradients' figures:
// `cg_figures.glsl`; a step's books: `ledger.glsl`) without that dispatch, its launch and
// the wait for this one to drain.
// Each group's partial results, written before the call, are made visible; its invocation
// 0 then counts the group in `done[0]`; the group that counts `groups` is the last, reads
// everyone's results (declared `coherent`, or read by atomics) and sets the count back to
// 0 for the next dispatch. No group waits for another. Every invocation of each of the
// `groups` groups must call it, in the same control flow (it waits at barriers); a group
// that does not call it leaves the count short and nothing is finished.
#ifndef LAST_GROUP_GLSL
#define LAST_GROUP_GLSL
layout(std430) coherent buffer Done { uint done[]; };

// Compiled with NO_LAST_GROUP (`PLUME_GPU_LAST_GROUP=0`: the host finishes by dispatches of
// their own), the kernels leave the last group's code out (`LAST_GROUP_ON && …` at each
// call), and with it the registers it takes: a program takes those of its widest path.
#ifdef NO_LAST_GROUP
#define LAST_GROUP_ON false
#else
#define LAST_GROUP_ON true
#endif

shared bool group_is_last;

bool last_group(uint groups) {
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationID.x == 0u) {
        group_is_last = atomicAdd(done[0], 1u) == groups - 1u;
    }
    barrier();
    bool last = group_is_last;
    if (last) {
        memoryBarrierBuffer();
        if (gl_LocalInvocationID.x == 0u) {
            done[0] = 0u;
        }
    }
    return last;
}
#endif
