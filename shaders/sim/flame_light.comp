// The flame's light, summed on the card: per cell of flame f > 0 at temperature T (kelvin
// = T·kelvin_per_unit) the emission e from the blackbody table (linear between its 512
// entries, 0 at or below its first kelvin) and the weight w = f·luminance(e); the sums
// Σ f·e (3), Σ w, Σ w·position (3) and Σ w·|position|², one set of eight a work group in
// `partial_sum` (the host adds the groups in order). As the renderer's CPU path does.
layout(std430) readonly buffer Temperature { float temperature[]; };
layout(std430) readonly buffer Flame { float flame[]; };
layout(std430) readonly buffer Table { float table[]; };  // rgb per entry
layout(std430) writeonly buffer PartialSum { double partial_sum[]; };

uniform float kelvin_per_unit;
uniform vec2 table_kelvin;  // first and last entry's kelvin
uniform uint table_len;
uniform float h;
uniform vec3 origin;

shared double sums[WG][8];

vec3 emission(float kelvin) {
    if (table_len < 2u || isnan(kelvin) || kelvin <= table_kelvin.x) {
        return vec3(0.0);
    }
    precise float x = min((kelvin - table_kelvin.x) / (table_kelvin.y - table_kelvin.x), 1.0)
        * float(table_len - 1u);
    uint i = min(uint(x), table_len - 2u);
    precise float f = x - float(i);
    vec3 a = vec3(table[3u * i], table[3u * i + 1u], table[3u * i + 2u]);
    vec3 b = vec3(table[3u * i + 3u], table[3u * i + 4u], table[3u * i + 5u]);
    precise vec3 e = a + f * (b - a);
    return e;
}

void main() {
    uint t = gl_LocalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * uint(WG);
    double s[8];
    for (int q = 0; q < 8; q++) {
        s[q] = 0.0;
    }
    for (uint n = gl_GlobalInvocationID.x; n < count; n += stride) {
        float f = flame[n];
        if (!(f > 0.0)) {
            continue;
        }
        vec3 e = emission(temperature[n] * kelvin_per_unit);
        float w = f * (0.2126 * e.r + 0.7152 * e.g + 0.0722 * e.b);
        if (!(w > 0.0)) {
            continue;
        }
        vec3 p = origin + (vec3(coords(dims, n)) + 0.5) * h;
        s[0] += double(f * e.r);
        s[1] += double(f * e.g);
        s[2] += double(f * e.b);
        s[3] += double(w);
        s[4] += double(w) * double(p.x);
        s[5] += double(w) * double(p.y);
        s[6] += double(w) * double(p.z);
        s[7] += double(w) * double(dot(p, p));
    }
    for (int q = 0; q < 8; q++) {
        sums[t][q] = s[q];
    }
    barrier();
    for (uint half_ = uint(WG) / 2u; half_ > 0u; half_ /= 2u) {
        if (t < half_) {
            for (int q = 0; q < 8; q++) {
                sums[t][q] += sums[t + half_][q];
            }
        }
        barrier();
    }
    if (t == 0u) {
        for (int q = 0; q < 8; q++) {
            partial_sum[gl_WorkGroupID.x * 8u + uint(q)] = sums[0][q];
        }
    }
}
