// int8 convolutions (TFLite's quantized scheme) as u8 × s8 products, bit-exact with the
// reference kernels: integer sums do not depend on their order, and the requantization below
// is the reference's arithmetic lane by lane.

#include "sentio_kernels.h"
#include <string.h>
#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#define SENTIO_X86 1
#include <immintrin.h>
#endif

int sentio_have_avx512vnni(void) {
#ifdef SENTIO_X86
    // Pool workers ask at once: read and write the answer atomically.
    static int cached = -1;
    int known = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("bmi2");
        __atomic_store_n(&cached, known, __ATOMIC_RELAXED);
    }
    return known;
#else
    return 0;
#endif
}

static inline int32_t load32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

static inline int round_up4(int k) { return (k + 3) & ~3; }
static inline int panels(int n) { return (n + SENTIO_QNR - 1) / SENTIO_QNR; }

size_t sentio_qpacked_size(int n, int k) { return (size_t)panels(n) * round_up4(k) * SENTIO_QNR; }

void sentio_qpack(const int8_t *w, int n, int k, int8_t *packed) {
    const int kp = round_up4(k);
    memset(packed, 0, sentio_qpacked_size(n, k));
    for (int o = 0; o < n; o++) {
        int8_t *panel = packed + (size_t)(o / SENTIO_QNR) * kp * SENTIO_QNR;
        for (int j = 0; j < k; j++) panel[(j / 4) * SENTIO_QNR * 4 + (o % SENTIO_QNR) * 4 + j % 4] = w[(size_t)o * k + j];
    }
}

// MARK: requantization, one value (the reference's arithmetic)

static inline int32_t requant_twice(int32_t x, int32_t m, int shift) {
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    int32_t a = (int32_t)((uint32_t)x << left);
    int64_t ab = (int64_t)a * m;
    int64_t nudged = ab + (ab >= 0 ? (1LL << 30) : (1 - (1LL << 30)));
    int32_t high = (int32_t)(nudged / (1LL << 31));
    if (right == 0) return high;
    int32_t mask = (int32_t)((1LL << right) - 1);
    int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
    return (high >> right) + ((high & mask) > threshold ? 1 : 0);
}

static inline int32_t requant_once(int32_t x, int32_t m, int shift) {
    int total = 31 - shift;
    return (int32_t)(((int64_t)x * m + (1LL << (total - 1))) >> total);
}

static inline int8_t requant_store(int32_t acc, const sentio_requant *r, int c) {
    if (r->scale) {
        float f = (float)acc * r->scale[c];
        float lo = (float)(r->out_min - r->out_zero), hi = (float)(r->out_max - r->out_zero);
        f = f > lo ? f : lo;  // also maps a NaN to lo (scales are checked finite at load)
        f = f < hi ? f : hi;
        return (int8_t)((int32_t)nearbyintf(f) + r->out_zero);
    }
    int32_t v = (r->rounds_once ? requant_once(acc, r->multiplier[c], r->shift[c]) : requant_twice(acc, r->multiplier[c], r->shift[c])) + r->out_zero;
    v = v < r->out_min ? r->out_min : v > r->out_max ? r->out_max : v;
    return (int8_t)v;
}

// MARK: the matrix product

size_t sentio_qconv_scratch_size(const sentio_qconv *c) {
    // A block of 64 pixels' patches (u8, k rounded up to 4).
    return (size_t)64 * round_up4(c->k_h * c->k_w * c->in_c);
}

// Gathers the patches of output pixels [p0, p0 + count) as u8 rows of kp bytes (x + 128;
// taps outside the image read the input's zero point, which stands for a real 0).
static void gather(const sentio_qconv *c, int p0, int count, uint8_t *a, int kp) {
    const uint8_t pad = (uint8_t)(c->input_zero + 128);
    for (int i = 0; i < count; i++) {
        int p = p0 + i;
        int b = p / (c->out_h * c->out_w), rest = p % (c->out_h * c->out_w);
        int oy = rest / c->out_w, ox = rest % c->out_w;
        uint8_t *row = a + (size_t)i * kp;
        int j = 0;
        for (int ky = 0; ky < c->k_h; ky++) {
            int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
            for (int kx = 0; kx < c->k_w; kx++) {
                int ix = ox * c->stride_w - c->pad_l + kx * c->dil_w;
                if (iy < 0 || iy >= c->in_h || ix < 0 || ix >= c->in_w) {
                    memset(row + j, pad, c->in_c);
                } else {
                    const int8_t *src = c->input + (((size_t)b * c->in_h + iy) * c->in_w + ix) * c->in_c;
                    for (int ch = 0; ch < c->in_c; ch++) row[j + ch] = (uint8_t)(src[ch] ^ 0x80);
                }
                j += c->in_c;
            }
        }
        for (; j < kp; j++) row[j] = 0;
    }
}

static void block_portable(const sentio_qconv *c, const uint8_t *a, int count, int kp, int p0) {
    for (int o = 0; o < c->out_c; o++) {
        const int8_t *panel = c->packed + (size_t)(o / SENTIO_QNR) * kp * SENTIO_QNR;
        int lane = o % SENTIO_QNR;
        for (int i = 0; i < count; i++) {
            // Wrapping sums, as the reference kernels' &+=.
            uint32_t acc = (uint32_t)c->bias[o];
            const uint8_t *row = a + (size_t)i * kp;
            for (int g = 0; g < kp / 4; g++)
                for (int t = 0; t < 4; t++) acc += (uint32_t)((int32_t)row[4 * g + t] * panel[(size_t)g * SENTIO_QNR * 4 + lane * 4 + t]);
            c->output[(size_t)(p0 + i) * c->out_c + o] = requant_store((int32_t)acc, &c->requant, o);
        }
    }
}

#ifdef SENTIO_X86
#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512dq,bmi2")))

// Sixteen lanes of the classic double rounding (see requant_twice), in 64-bit halves. The
// rounding doubling high multiply, trunc((a·m ± 2³⁰ nudge) / 2³¹), equals (a·m + 2³⁰) >> 31 for
// both signs (for a negative product, truncating (p + 1 − 2³⁰) / 2³¹ toward zero is flooring
// p + 1 − 2³⁰ + 2³¹ − 1); the rounding shift by e, ties away from zero, is
// (h + 2^(e−1) − [h < 0]) >> e for e > 0.
VNNI static inline __m512i round_half64(__m512i product, __m512i right, __m512i half, __mmask8 shifted) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i high = _mm512_srai_epi64(_mm512_add_epi64(product, _mm512_set1_epi64(1LL << 30)), 31);
    __m512i v = _mm512_add_epi64(high, half);
    v = _mm512_mask_sub_epi64(v, _mm512_cmplt_epi64_mask(high, zero) & shifted, v, _mm512_set1_epi64(1));
    return _mm512_srav_epi64(v, right);
}

VNNI static inline __m512i requant_twice16(__m512i x, __m512i m, __m512i left, __m512i right) {
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
    __m512i a = _mm512_sllv_epi32(x, left);
    // 2^(e−1) per lane (0 where e = 0), split into the even and odd 64-bit halves.
    __m512i half = _mm512_srli_epi32(_mm512_sllv_epi32(one, right), 1);
    __mmask16 shifted = _mm512_cmpgt_epi32_mask(right, zero);
    const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFF);
    __m512i even = round_half64(_mm512_mul_epi32(a, m), _mm512_and_si512(right, low32), _mm512_and_si512(half, low32),
                                (__mmask8)_pext_u32(shifted, 0x5555));
    __m512i odd = round_half64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(m, 32)), _mm512_srli_epi64(right, 32),
                               _mm512_srli_epi64(half, 32), (__mmask8)_pext_u32(shifted, 0xAAAA));
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

// Sixteen lanes of the single rounding (see requant_once); total = 31 − shift.
VNNI static inline __m512i requant_once16(__m512i x, __m512i m, __m512i total) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i total_even = _mm512_and_si512(total, _mm512_set1_epi64(0xFFFFFFFF));
    __m512i total_odd = _mm512_srli_epi64(total, 32);
    __m512i even = _mm512_mul_epi32(x, m);
    __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(m, 32));
    even = _mm512_srav_epi64(_mm512_add_epi64(even, _mm512_sllv_epi64(one, _mm512_sub_epi64(total_even, one))), total_even);
    odd = _mm512_srav_epi64(_mm512_add_epi64(odd, _mm512_sllv_epi64(one, _mm512_sub_epi64(total_odd, one))), total_odd);
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

typedef struct { __m512i m, left, right, total, zero, lo, hi; __m512 scale, flo, fhi; int fp32; } requant16_params;

VNNI static inline requant16_params requant16_load(const sentio_requant *r, int c0, __mmask16 valid) {
    requant16_params p;
    __m512i shift = _mm512_maskz_loadu_epi32(valid, r->shift + c0);
    p.m = _mm512_maskz_loadu_epi32(valid, r->multiplier + c0);
    p.left = _mm512_max_epi32(shift, _mm512_setzero_si512());
    p.right = _mm512_max_epi32(_mm512_sub_epi32(_mm512_setzero_si512(), shift), _mm512_setzero_si512());
    p.total = _mm512_sub_epi32(_mm512_set1_epi32(31), shift);
    p.zero = _mm512_set1_epi32(r->out_zero);
    p.lo = _mm512_set1_epi32(r->out_min);
    p.hi = _mm512_set1_epi32(r->out_max);
    p.fp32 = r->scale != 0;
    p.scale = p.fp32 ? _mm512_maskz_loadu_ps(valid, r->scale + c0) : _mm512_setzero_ps();
    p.flo = _mm512_set1_ps((float)(r->out_min - r->out_zero));
    p.fhi = _mm512_set1_ps((float)(r->out_max - r->out_zero));
    return p;
}

VNNI static inline void requant16_store(__m512i acc, const requant16_params *p, int rounds_once, int8_t *out, __mmask16 valid) {
    if (p->fp32) {
        // XNNPACK's fp32 requantization; the conversion rounds to nearest even (MXCSR's default).
        __m512 f = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc), p->scale), p->flo), p->fhi);
        __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(f), p->zero);
        _mm_mask_storeu_epi8(out, valid, _mm512_cvtepi32_epi8(v));
        return;
    }
    __m512i v = rounds_once ? requant_once16(acc, p->m, p->total) : requant_twice16(acc, p->m, p->left, p->right);
    v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, p->zero), p->lo), p->hi);
    _mm_mask_storeu_epi8(out, valid, _mm512_cvtepi32_epi8(v));
}

// Rows of a (count ≤ 64) times one panel: 8 rows at a time, 16 channels per lane group.
VNNI static void block_vnni(const sentio_qconv *c, const uint8_t *a, int count, int kp, int p0, int flip) {
    const int groups = kp / 4;
    const __m512i sign = _mm512_set1_epi32(flip ? (int32_t)0x80808080u : 0);
    for (int panel = 0; panel < panels(c->out_c); panel++) {
        const int c0 = panel * SENTIO_QNR;
        const int live = c->out_c - c0 < SENTIO_QNR ? c->out_c - c0 : SENTIO_QNR;
        const __mmask16 valid = (__mmask16)((1u << live) - 1);
        const int8_t *w = c->packed + (size_t)panel * kp * SENTIO_QNR;
        const __m512i bias = _mm512_loadu_si512(c->bias + c0);
        requant16_params rp = requant16_load(&c->requant, c0, valid);
        int i = 0;
        for (; i + 8 <= count; i += 8) {
            __m512i s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias, s7 = bias;
            const uint8_t *r = a + (size_t)i * kp;
            for (int g = 0; g < groups; g++) {
                __m512i wv = _mm512_loadu_si512(w + (size_t)g * 64);
                const uint8_t *col = r + 4 * g;
                s0 = _mm512_dpbusd_epi32(s0, _mm512_xor_si512(_mm512_set1_epi32(load32(col)), sign), wv);
                s1 = _mm512_dpbusd_epi32(s1, _mm512_xor_si512(_mm512_set1_epi32(load32(col + kp)), sign), wv);
                s2 = _mm512_dpbusd_epi32(s2, _mm512_xor_si512(_mm512_set1_epi32(load32(col + 2 * kp)), sign), wv);
                s3 = _mm512_dpbusd_epi32(s3, _mm512_xor_si512(_mm512_set1_epi32(load32(col + 3 * kp)), sign), wv);
                s4 = _mm512_dpbusd_epi32(s4, _mm512_xor_si512(_mm512_set1_epi32(load32(col + 4 * kp)), sign), wv);
                s5 = _mm512_dpbusd_epi32(s5, _mm512_xor_si512(_mm512_set1_epi32(load32(col + 5 * kp)), sign), wv);
                s6 = _mm512_dpbusd_epi32(s6, _mm512_xor_si512(_mm512_set1_epi32(load32(col + 6 * kp)), sign), wv);
                s7 = _mm512_dpbusd_epi32(s7, _mm512_xor_si512(_mm512_set1_epi32(load32(col + 7 * kp)), sign), wv);
            }
            int8_t *out = c->output + (size_t)(p0 + i) * c->out_c + c0;
            const size_t step = (size_t)c->out_c;
            requant16_store(s0, &rp, c->requant.rounds_once, out, valid);
            requant16_store(s1, &rp, c->requant.rounds_once, out + step, valid);
            requant16_store(s2, &rp, c->requant.rounds_once, out + 2 * step, valid);
            requant16_store(s3, &rp, c->requant.rounds_once, out + 3 * step, valid);
            requant16_store(s4, &rp, c->requant.rounds_once, out + 4 * step, valid);
            requant16_store(s5, &rp, c->requant.rounds_once, out + 5 * step, valid);
            requant16_store(s6, &rp, c->requant.rounds_once, out + 6 * step, valid);
            requant16_store(s7, &rp, c->requant.rounds_once, out + 7 * step, valid);
        }
        for (; i < count; i++) {
            __m512i s = bias;
            const uint8_t *r = a + (size_t)i * kp;
            for (int g = 0; g < groups; g++)
                s = _mm512_dpbusd_epi32(s, _mm512_xor_si512(_mm512_set1_epi32(load32(r + 4 * g)), sign), _mm512_loadu_si512(w + (size_t)g * 64));
            requant16_store(s, &rp, c->requant.rounds_once, c->output + (size_t)(p0 + i) * c->out_c + c0, valid);
        }
    }
}
#endif

void sentio_qconv_run(const sentio_qconv *c, int begin, int end, void *scratch) {
    const int kp = round_up4(c->k_h * c->k_w * c->in_c);
    uint8_t *a = (uint8_t *)scratch;
#ifdef SENTIO_X86
    // A 1×1, stride-1 convolution's patches are the input's own rows: read them in place,
    // flipping the sign bit as they are broadcast.
    const int pointwise = c->k_h == 1 && c->k_w == 1 && c->stride_h == 1 && c->stride_w == 1 && c->pad_t == 0 && c->pad_l == 0 &&
                          c->in_h == c->out_h && c->in_w == c->out_w && c->in_c % 4 == 0;
#endif
    for (int p0 = begin; p0 < end; p0 += 64) {
        int count = end - p0 < 64 ? end - p0 : 64;
#ifdef SENTIO_X86
        if (!c->portable && sentio_have_avx512vnni()) {
            if (pointwise) {
                block_vnni(c, (const uint8_t *)(c->input + (size_t)p0 * c->in_c), count, kp, p0, 1);
            } else {
                gather(c, p0, count, a, kp);
                block_vnni(c, a, count, kp, p0, 0);
            }
            continue;
        }
#endif
        gather(c, p0, count, a, kp);
        block_portable(c, a, count, kp, p0);
    }
}

// MARK: depthwise

static void depthwise_row_portable(const sentio_qdepthwise *c, int b, int oy) {
    for (int ox = 0; ox < c->out_w; ox++) {
        for (int o = 0; o < c->out_c; o++) {
            int ic = o / c->multiplier;
            uint32_t acc = (uint32_t)c->bias[o];
            for (int ky = 0; ky < c->k_h; ky++) {
                int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
                if (iy < 0 || iy >= c->in_h) continue;
                for (int kx = 0; kx < c->k_w; kx++) {
                    int ix = ox * c->stride_w - c->pad_l + kx * c->dil_w;
                    if (ix < 0 || ix >= c->in_w) continue;
                    acc += (uint32_t)(((int32_t)c->input[(((size_t)b * c->in_h + iy) * c->in_w + ix) * c->in_c + ic] - c->input_zero)
                                      * c->filter[((size_t)ky * c->k_w + kx) * c->out_c + o]);
                }
            }
            c->output[(((size_t)b * c->out_h + oy) * c->out_w + ox) * c->out_c + o] = requant_store((int32_t)acc, &c->requant, o);
        }
    }
}

#ifdef SENTIO_X86
// Multiplier 1, at most 25 taps: sixteen channels at a time, the taps' weights held in
// registers. Where every tap of a pixel is inside the image, Σ (x − z)·w is taken as
// Σ x·w − z·Σ w with z·Σ w folded into the bias; at the borders the taps outside are skipped.
VNNI static void depthwise_row_vnni(const sentio_qdepthwise *c, int b, int oy) {
    const int taps = c->k_h * c->k_w;
    const __m512i zp = _mm512_set1_epi32(c->input_zero);
    int rows_inside = 1;
    for (int ky = 0; ky < c->k_h; ky++) {
        int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
        if (iy < 0 || iy >= c->in_h) rows_inside = 0;
    }
    const size_t row_step = (size_t)c->in_w * c->in_c;
    const int8_t *image = c->input + (size_t)b * c->in_h * row_step;
    for (int c0 = 0; c0 < c->out_c; c0 += 16) {
        const int live = c->out_c - c0 < 16 ? c->out_c - c0 : 16;
        const __mmask16 valid = (__mmask16)((1u << live) - 1);
        requant16_params rp = requant16_load(&c->requant, c0, valid);
        const __m512i bias = _mm512_maskz_loadu_epi32(valid, c->bias + c0);
        __m512i w[25];
        __m512i sum_w = _mm512_setzero_si512();
        for (int t = 0; t < taps; t++) {
            w[t] = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, c->filter + (size_t)t * c->out_c + c0));
            sum_w = _mm512_add_epi32(sum_w, w[t]);
        }
        const __m512i inner_bias = _mm512_sub_epi32(bias, _mm512_mullo_epi32(zp, sum_w));
        int8_t *out = c->output + ((size_t)b * c->out_h + oy) * c->out_w * c->out_c + c0;
        for (int ox = 0; ox < c->out_w; ox++) {
            const int ix0 = ox * c->stride_w - c->pad_l;
            __m512i acc;
            if (rows_inside && ix0 >= 0 && ix0 + (c->k_w - 1) * c->dil_w < c->in_w) {
                acc = inner_bias;
                for (int ky = 0; ky < c->k_h; ky++) {
                    const int8_t *p = image + (size_t)(oy * c->stride_h - c->pad_t + ky * c->dil_h) * row_step + (size_t)ix0 * c->in_c + c0;
                    for (int kx = 0; kx < c->k_w; kx++) {
                        __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, p + (size_t)kx * c->dil_w * c->in_c));
                        acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(x, w[ky * c->k_w + kx]));
                    }
                }
            } else {
                acc = bias;
                for (int ky = 0; ky < c->k_h; ky++) {
                    int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
                    if (iy < 0 || iy >= c->in_h) continue;
                    for (int kx = 0; kx < c->k_w; kx++) {
                        int ix = ix0 + kx * c->dil_w;
                        if (ix < 0 || ix >= c->in_w) continue;
                        __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, image + (size_t)iy * row_step + (size_t)ix * c->in_c + c0));
                        acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(_mm512_sub_epi32(x, zp), w[ky * c->k_w + kx]));
                    }
                }
            }
            requant16_store(acc, &rp, c->requant.rounds_once, out + (size_t)ox * c->out_c, valid);
        }
    }
}
#endif

void sentio_qdepthwise_run(const sentio_qdepthwise *c, int begin, int end) {
    for (int r = begin; r < end; r++) {
        int b = r / c->out_h, oy = r % c->out_h;
#ifdef SENTIO_X86
        if (!c->portable && c->multiplier == 1 && c->k_h * c->k_w <= 25 && sentio_have_avx512vnni()) { depthwise_row_vnni(c, b, oy); continue; }
#endif
        depthwise_row_portable(c, b, oy);
    }
}

// MARK: ADD

static inline int8_t qadd_one(int32_t a, int32_t b, const sentio_qadd_params *p) {
    if (p->xnnpack) {
        int32_t v = (int32_t)((uint32_t)p->xnn_bias + (uint32_t)a * (uint32_t)p->xnn_a + (uint32_t)b * (uint32_t)p->xnn_b) >> p->xnn_shift;
        int32_t lo = p->out_min - p->out_zero, hi = p->out_max - p->out_zero;
        return (int8_t)((v < lo ? lo : v > hi ? hi : v) + p->out_zero);
    }
    int32_t sa = requant_twice((int32_t)((uint32_t)(a - p->a_zero) << p->left_shift), p->a_multiplier, p->a_shift);
    int32_t sb = requant_twice((int32_t)((uint32_t)(b - p->b_zero) << p->left_shift), p->b_multiplier, p->b_shift);
    int32_t v = requant_twice(sa + sb, p->out_multiplier, p->out_shift) + p->out_zero;
    return (int8_t)(v < p->out_min ? p->out_min : v > p->out_max ? p->out_max : v);
}

#ifdef SENTIO_X86
VNNI static void qadd_avx512(const int8_t *a, const int8_t *b, int8_t *out, size_t begin, size_t end, const sentio_qadd_params *p) {
    const __m512i zero = _mm512_setzero_si512();
    #define SHIFTS(s) _mm512_max_epi32(_mm512_set1_epi32(s), zero), _mm512_max_epi32(_mm512_set1_epi32(-(s)), zero)
    const __m512i am = _mm512_set1_epi32(p->a_multiplier), bm = _mm512_set1_epi32(p->b_multiplier), om = _mm512_set1_epi32(p->out_multiplier);
    const __m512i al[2] = {SHIFTS(p->a_shift)}, bl[2] = {SHIFTS(p->b_shift)}, ol[2] = {SHIFTS(p->out_shift)};
    #undef SHIFTS
    const __m512i az = _mm512_set1_epi32(p->a_zero), bz = _mm512_set1_epi32(p->b_zero), oz = _mm512_set1_epi32(p->out_zero);
    const __m512i lo = _mm512_set1_epi32(p->out_min), hi = _mm512_set1_epi32(p->out_max);
    size_t i = begin;
    if (p->xnnpack) {
        const __m512i xa = _mm512_set1_epi32(p->xnn_a), xb = _mm512_set1_epi32(p->xnn_b), xbias = _mm512_set1_epi32(p->xnn_bias);
        const __m512i rlo = _mm512_set1_epi32(p->out_min - p->out_zero), rhi = _mm512_set1_epi32(p->out_max - p->out_zero);
        const __m128i shift = _mm_cvtsi32_si128(p->xnn_shift);
        for (; i < end; i += 16) {
            __mmask16 valid = end - i >= 16 ? 0xFFFF : (__mmask16)((1u << (end - i)) - 1);
            __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, a + i));
            __m512i y = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, b + i));
            __m512i acc = _mm512_add_epi32(xbias, _mm512_add_epi32(_mm512_mullo_epi32(x, xa), _mm512_mullo_epi32(y, xb)));
            __m512i v = _mm512_min_epi32(_mm512_max_epi32(_mm512_sra_epi32(acc, shift), rlo), rhi);
            _mm_mask_storeu_epi8(out + i, valid, _mm512_cvtepi32_epi8(_mm512_add_epi32(v, oz)));
        }
        return;
    }
    for (; i < end; i += 16) {
        __mmask16 valid = end - i >= 16 ? 0xFFFF : (__mmask16)((1u << (end - i)) - 1);
        __m512i x = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, a + i));
        __m512i y = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(valid, b + i));
        x = _mm512_slli_epi32(_mm512_sub_epi32(x, az), p->left_shift);
        y = _mm512_slli_epi32(_mm512_sub_epi32(y, bz), p->left_shift);
        __m512i sum = _mm512_add_epi32(requant_twice16(x, am, al[0], al[1]), requant_twice16(y, bm, bl[0], bl[1]));
        __m512i v = _mm512_add_epi32(requant_twice16(sum, om, ol[0], ol[1]), oz);
        v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
        _mm_mask_storeu_epi8(out + i, valid, _mm512_cvtepi32_epi8(v));
    }
}
#endif

void sentio_qadd(const int8_t *a, const int8_t *b, int8_t *out, size_t begin, size_t end, const sentio_qadd_params *p) {
#ifdef SENTIO_X86
    if (!p->portable && sentio_have_avx512vnni()) { qadd_avx512(a, b, out, begin, end, p); return; }
#endif
    for (size_t i = begin; i < end; i++) out[i] = qadd_one(a[i], b[i], p);
}
