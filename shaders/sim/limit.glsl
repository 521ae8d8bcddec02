// The speed limit (the CPU's `enforce_speed_limit`): a face velocity over ±limit is held
// there; NaN is left as it is (a comparison with NaN is false; the finite check reports it).
uniform float limit;

bool over_limit(float x) { return abs(x) > limit; }

float held(float x) {
    float y = x < -limit ? -limit : x;
    return y > limit ? limit : y;
}
