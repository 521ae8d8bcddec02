// Σ of the partial sums `from`, `from + stride`, … before `to` in PartialSum (declared
// before it, readable), added in that order: eight read at once, then added in turn. The
// same bits as one at a time, and one wait for each eight (on a card the partial sums are
// `coherent`: each read goes to the second-level cache) instead of each one. For the
// conjugate gradients' dot products (`cg_sum.glsl`, a lane each stride) and a step's books
// (`ledger.glsl`, stride 1).
#ifndef PARTIAL_SUM_GLSL
#define PARTIAL_SUM_GLSL
double sum_in_order(uint from, uint to, uint stride) {
    double s = 0.0;
    uint g = from;
    while (g < to && to - g > 7u * stride) {
        double v[8];
        for (int k = 0; k < 8; k++) {
            v[k] = partial_sum[g + uint(k) * stride];
        }
        for (int k = 0; k < 8; k++) {
            s += v[k];
        }
        g += 8u * stride;
    }
    for (; g < to; g += stride) {
        s += partial_sum[g];
    }
    return s;
}
#endif
