// Depthwise convolution, channels innermost (NHWC keeps them contiguous): each output pixel
// accumulates its taps 16 channels at a time, border taps skipped rather than padded.
#include "sentio_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SENTIO_X86 1
#endif

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

static void pixel_generic(const sentio_depthwise *d, int b, int oy, int ox) {
    const int C = d->channels;
    float *out = d->output + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
    for (int c = 0; c < C; c++) out[c] = 0.0f;
    for (int ky = 0; ky < d->k_h; ky++) {
        int iy = oy * d->stride_h - d->pad_t + ky * d->dil_h;
        if (iy < 0 || iy >= d->in_h) continue;
        for (int kx = 0; kx < d->k_w; kx++) {
            int ix = ox * d->stride_w - d->pad_l + kx * d->dil_w;
            if (ix < 0 || ix >= d->in_w) continue;
            const float *x = d->input + (((size_t)b * d->in_h + iy) * d->in_w + ix) * C;
            const float *w = d->filter + (size_t)(ky * d->k_w + kx) * C;
            for (int c = 0; c < C; c++) out[c] += x[c] * w[c];
        }
    }
    for (int c = 0; c < C; c++) out[c] = clampf(out[c] + d->bias[c], d->act_min, d->act_max);
}

#ifdef SENTIO_X86
// Lanes [0, n) of a mask for masked loads and stores.
__attribute__((target("avx2,fma"), always_inline))
static inline __m256i lanes(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Four output pixels [ox, ox + n) of a row, every channel, for a filter size and stride known
// at compile time (3×3 and 5×5, stride 1 or 2, no dilation: every depthwise layer of the
// MediaPipe models). Pixel-major: each input pixel's channels are read together and the
// window's rows stay in L1 while the row is swept. Within a window row, each input column is
// loaded once and feeds every (pixel, tap) pair that reads it (stride 1, 3×3: 6 loads for 12
// FMAs), and the row's weights stay in registers; the taps still accumulate in (ky, kx)
// order, as the reference does. Window rows are clipped to [ky0, ky1) (iy0, the input row of
// window row 0, may be negative); with CHECK, columns outside the image are skipped (the
// borders; also n < 4 at the row's end). Channels past the last multiple of 8 use masked
// loads and stores.
__attribute__((target("avx2,fma"), always_inline))
static inline void block_fixed(const sentio_depthwise *d, const float *image, int iy0, int ky0, int ky1, float *out_row,
                               int ox, int n, const int KW, const int S, const int CHECK) {
    const int C = d->channels;
    const size_t in_row = (size_t)d->in_w * C;
    const __m256 lo = _mm256_set1_ps(d->act_min), hi = _mm256_set1_ps(d->act_max);
    const __m256i tail = lanes(C % 8);
    const int ix0 = ox * S - d->pad_l;
    float *o = out_row + (size_t)ox * C;
    for (int c = 0; c < C; c += 8) {
        const int whole = c + 8 <= C;
        __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        for (int ky = ky0; ky < ky1; ky++) {
            const float *r = image + (size_t)(iy0 + ky) * in_row + c;
            const float *wr = d->filter + (size_t)ky * KW * C + c;
            __m256 w[5];
            for (int kx = 0; kx < KW; kx++)
                w[kx] = whole ? _mm256_loadu_ps(wr + (size_t)kx * C) : _mm256_maskload_ps(wr + (size_t)kx * C, tail);
            for (int j = 0; j < 3 * S + KW; j++) {
                if (CHECK && (unsigned)(ix0 + j) >= (unsigned)d->in_w) continue;
                const float *xp = r + (ptrdiff_t)(ix0 + j) * C;
                __m256 x = whole ? _mm256_loadu_ps(xp) : _mm256_maskload_ps(xp, tail);
                for (int p = 0; p < 4; p++) {
                    const int kx = j - p * S;
                    if (kx >= 0 && kx < KW) acc[p] = _mm256_fmadd_ps(x, w[kx], acc[p]);
                }
            }
        }
        const __m256 bias = whole ? _mm256_loadu_ps(d->bias + c) : _mm256_maskload_ps(d->bias + c, tail);
        for (int p = 0; p < 4; p++) {
            if (CHECK && p >= n) break;
            __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(acc[p], bias), lo), hi);
            if (whole) _mm256_storeu_ps(o + (size_t)p * C + c, v);
            else _mm256_maskstore_ps(o + (size_t)p * C + c, tail, v);
        }
    }
}

// A whole output row in blocks of four pixels: unchecked inside [ox_lo, ox_hi), checked at
// the borders.
__attribute__((target("avx2,fma"), always_inline))
static inline void row_fixed(const sentio_depthwise *d, const float *image, int iy0, int ky0, int ky1, float *out_row,
                             int ox_lo, int ox_hi, const int KW, const int S) {
    for (int ox = 0; ox < d->out_w; ox += 4) {
        const int n = d->out_w - ox < 4 ? d->out_w - ox : 4;
        if (ox >= ox_lo && ox + 4 <= ox_hi) block_fixed(d, image, iy0, ky0, ky1, out_row, ox, 4, KW, S, 0);
        else block_fixed(d, image, iy0, ky0, ky1, out_row, ox, n, KW, S, 1);
    }
}

#define SENTIO_DW_FIXED(KH, KW, S)                                                                       \
    __attribute__((target("avx2,fma"), noinline)) static void row_##KH##x##KW##s##S(                \
        const sentio_depthwise *d, const float *image, int iy0, int ky0, int ky1, float *out_row, int ox_lo, \
        int ox_hi) {                                                                                      \
        row_fixed(d, image, iy0, ky0, ky1, out_row, ox_lo, ox_hi, KW, S);                                \
    }
SENTIO_DW_FIXED(3, 3, 1)
SENTIO_DW_FIXED(3, 3, 2)
SENTIO_DW_FIXED(5, 5, 1)
SENTIO_DW_FIXED(5, 5, 2)
#undef SENTIO_DW_FIXED

// The unrolled kernel for this filter, or NULL.
typedef void (*row_fn)(const sentio_depthwise *, const float *, int, int, int, float *, int, int);
static row_fn fixed_row(const sentio_depthwise *d) {
    if (d->dil_h != 1 || d->dil_w != 1 || d->stride_w > 2 || d->k_h != d->k_w) return 0;
    if (d->k_w == 3) return d->stride_w == 1 ? row_3x3s1 : row_3x3s2;
    if (d->k_w == 5) return d->stride_w == 1 ? row_5x5s1 : row_5x5s2;
    return 0;
}
#endif

#ifdef SENTIO_X86
// One output row: the unrolled kernel when it applies; otherwise 8 channels at a time with the
// channel group as the outer loop, so the taps' weights stay in L1 while the row is swept.
// Interior pixels, whose windows lie inside the image, skip the bounds tests.
__attribute__((target("avx2,fma")))
static void row_avx2(const sentio_depthwise *d, int b, int oy) {
    const int C = d->channels, KW = d->k_w;
    const __m256 lo = _mm256_set1_ps(d->act_min), hi = _mm256_set1_ps(d->act_max);
    int ky0 = 0, ky1 = d->k_h;
    while (ky0 < ky1 && oy * d->stride_h - d->pad_t + ky0 * d->dil_h < 0) ky0++;
    while (ky1 > ky0 && oy * d->stride_h - d->pad_t + (ky1 - 1) * d->dil_h >= d->in_h) ky1--;
    // Interior columns: ox·s − pad ≥ 0 and ox·s − pad + (kw−1)·dil < in_w.
    int ox_lo = (d->pad_l + d->stride_w - 1) / d->stride_w;
    int ox_hi = (d->in_w - 1 - (KW - 1) * d->dil_w + d->pad_l) / d->stride_w + 1;
    if (ox_hi > d->out_w) ox_hi = d->out_w;
    if (ox_lo > ox_hi) ox_lo = ox_hi;
    const size_t in_row = (size_t)d->in_w * C;
    const float *image = d->input + (size_t)b * d->in_h * in_row;
    float *out_row = d->output + ((size_t)b * d->out_h + oy) * d->out_w * C;
    // 3×3 and 5×5 filters without dilation: the unrolled kernel does the whole row.
    const row_fn kernel = fixed_row(d);
    if (kernel) {
        kernel(d, image, oy * d->stride_h - d->pad_t, ky0, ky1, out_row, ox_lo, ox_hi);
        return;
    }
    for (int c = 0; c + 8 <= C; c += 8) {
        const __m256 bias = _mm256_loadu_ps(d->bias + c);
        // Edge pixels: windows clipped at the left or right border.
        for (int ox = 0; ox < d->out_w; ox++) {
            if (ox == ox_lo && ox_lo < ox_hi) { ox = ox_hi - 1; continue; }
            int kx0 = 0, kx1 = KW;
            while (kx0 < kx1 && ox * d->stride_w - d->pad_l + kx0 * d->dil_w < 0) kx0++;
            while (kx1 > kx0 && ox * d->stride_w - d->pad_l + (kx1 - 1) * d->dil_w >= d->in_w) kx1--;
            __m256 acc = _mm256_setzero_ps();
            for (int ky = ky0; ky < ky1; ky++) {
                const float *xr = image + (size_t)(oy * d->stride_h - d->pad_t + ky * d->dil_h) * in_row + c;
                const float *wr = d->filter + (size_t)ky * KW * C + c;
                for (int kx = kx0; kx < kx1; kx++) {
                    int ix = ox * d->stride_w - d->pad_l + kx * d->dil_w;
                    acc = _mm256_fmadd_ps(_mm256_loadu_ps(xr + (size_t)ix * C), _mm256_loadu_ps(wr + (size_t)kx * C), acc);
                }
            }
            _mm256_storeu_ps(out_row + (size_t)ox * C + c, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(acc, bias), lo), hi));
        }
        // Interior: four pixels at once, so each weight is loaded once for four FMAs and the
        // four accumulation chains overlap.
        const size_t step = (size_t)d->stride_w * C, tap = (size_t)d->dil_w * C;
        int ox = ox_lo;
        for (; ox + 4 <= ox_hi; ox += 4) {
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            for (int ky = ky0; ky < ky1; ky++) {
                const float *x = image + (size_t)(oy * d->stride_h - d->pad_t + ky * d->dil_h) * in_row
                    + (size_t)(ox * d->stride_w - d->pad_l) * C + c;
                const float *w = d->filter + (size_t)ky * KW * C + c;
                for (int kx = 0; kx < KW; kx++, x += tap, w += C) {
                    __m256 wv = _mm256_loadu_ps(w);
                    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x), wv, a0);
                    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + step), wv, a1);
                    a2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 2 * step), wv, a2);
                    a3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 3 * step), wv, a3);
                }
            }
            float *o = out_row + (size_t)ox * C + c;
            _mm256_storeu_ps(o, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(a0, bias), lo), hi));
            _mm256_storeu_ps(o + C, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(a1, bias), lo), hi));
            _mm256_storeu_ps(o + 2 * C, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(a2, bias), lo), hi));
            _mm256_storeu_ps(o + 3 * C, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(a3, bias), lo), hi));
        }
        for (; ox < ox_hi; ox++) {
            __m256 acc = _mm256_setzero_ps();
            for (int ky = ky0; ky < ky1; ky++) {
                const float *x = image + (size_t)(oy * d->stride_h - d->pad_t + ky * d->dil_h) * in_row
                    + (size_t)(ox * d->stride_w - d->pad_l) * C + c;
                const float *w = d->filter + (size_t)ky * KW * C + c;
                for (int kx = 0; kx < KW; kx++, x += tap, w += C) acc = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(w), acc);
            }
            _mm256_storeu_ps(out_row + (size_t)ox * C + c, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(acc, bias), lo), hi));
        }
    }
    // Channels past the last multiple of 8.
    for (int c = C - C % 8; c < C; c++) {
        for (int ox = 0; ox < d->out_w; ox++) {
            float acc = 0.0f;
            for (int ky = ky0; ky < ky1; ky++) {
                int iy = oy * d->stride_h - d->pad_t + ky * d->dil_h;
                for (int kx = 0; kx < KW; kx++) {
                    int ix = ox * d->stride_w - d->pad_l + kx * d->dil_w;
                    if (ix < 0 || ix >= d->in_w) continue;
                    acc += image[(size_t)iy * in_row + (size_t)ix * C + c] * d->filter[(size_t)(ky * KW + kx) * C + c];
                }
            }
            out_row[(size_t)ox * C + c] = clampf(acc + d->bias[c], d->act_min, d->act_max);
        }
    }
}
#endif

void sentio_depthwise_rows(const sentio_depthwise *d, int row_begin, int row_end) {
    for (int r = row_begin; r < row_end; r++) {
        int b = r / d->out_h, oy = r % d->out_h;
#ifdef SENTIO_X86
        if (sentio_have_avx2()) {
            row_avx2(d, b, oy);
            continue;
        }
#endif
        for (int ox = 0; ox < d->out_w; ox++) pixel_generic(d, b, oy, ox);
    }
}
