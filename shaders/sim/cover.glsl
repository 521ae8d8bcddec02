// What a coverage c does to a value v: `cover.comp`'s modes 0 (c·amount added) and 1
// (blended towards `amount` by c), shared with `emit.comp`, which applies an emitter's
// every field in one dispatch: the same arithmetic in both.
#ifndef COVER_GLSL
#define COVER_GLSL

float cover_add(float v, float c, float amount) { return v + c * amount; }

float cover_blend(float v, float c, float amount) { return v + c * (amount - v); }

#endif
