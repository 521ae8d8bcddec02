// Cells an invocation of a kernel that may take several (the tuner's pick, `tune.rs`):
// its own and PER − 1 more, each a whole dispatch's invocations past the last, so that every
// load is as coalesced as with one cell an invocation. Such a kernel loads all of its cells'
// values before it stores the first (more loads in flight, where one cell's few leave a
// card's memory idle); the arithmetic is the same. The host dispatches a PER-th of the
// invocations (`kernels::run`).
#ifndef CELLS_GLSL
#define CELLS_GLSL
#ifndef PER
#define PER 1
#endif

// The k-th cell (0 ≤ k < PER) of this invocation.
uint cell_of(int k) {
    return gid() + uint(k) * gl_NumWorkGroups.x * gl_NumWorkGroups.y * uint(WG);
}
#endif
