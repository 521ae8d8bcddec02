// The card's bandwidth as its kernels see it: a copy of `count` floats, one an invocation
// (`GpuSolver::copy_bandwidth_gb_s`; a buffer-to-buffer copy may go through a copy engine
// slower than the shader cores, as NVIDIA's does).
layout(std430) readonly buffer Src { float src[]; };
layout(std430) writeonly buffer Dst { float dst[]; };

void main() {
    uint i = gid();
    if (i < count) {
        dst[i] = src[i];
    }
}
