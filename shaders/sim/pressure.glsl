// The pressure operator (as the CPU's `pressure::operator`): each cell's diagonal counts
// its neighbours and its open sides (pressure 0 beyond them); walls add nothing.
uniform uvec3 open_lo;
uniform uvec3 open_hi;

float diagonal(uvec3 p) {
    float n = 0.0;
    for (int a = 0; a < 3; a++) {
        n += p[a] > 0u ? 1.0 : (open_lo[a] != 0u ? 1.0 : 0.0);
        n += p[a] + 1u < dims[a] ? 1.0 : (open_hi[a] != 0u ? 1.0 : 0.0);
    }
    return n;
}
