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
    for (int c = 0; c < C; c++) out[c] = d->bias[c];
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
    for (int c = 0; c < C; c++) out[c] = clampf(out[c], d->act_min, d->act_max);
}

#ifdef SENTIO_X86
__attribute__((target("avx2,fma")))
static void row_avx2(const sentio_depthwise *d, int b, int oy) {
    const int C = d->channels;
    const __m256 lo = _mm256_set1_ps(d->act_min), hi = _mm256_set1_ps(d->act_max);
    int ky0 = 0, ky1 = d->k_h;
    while (ky0 < ky1 && oy * d->stride_h - d->pad_t + ky0 * d->dil_h < 0) ky0++;
    while (ky1 > ky0 && oy * d->stride_h - d->pad_t + (ky1 - 1) * d->dil_h >= d->in_h) ky1--;
    for (int ox = 0; ox < d->out_w; ox++) {
        int kx0 = 0, kx1 = d->k_w;
        while (kx0 < kx1 && ox * d->stride_w - d->pad_l + kx0 * d->dil_w < 0) kx0++;
        while (kx1 > kx0 && ox * d->stride_w - d->pad_l + (kx1 - 1) * d->dil_w >= d->in_w) kx1--;
        float *out = d->output + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
        int c = 0;
        for (; c + 16 <= C; c += 16) {
            __m256 acc0 = _mm256_loadu_ps(d->bias + c), acc1 = _mm256_loadu_ps(d->bias + c + 8);
            for (int ky = ky0; ky < ky1; ky++) {
                int iy = oy * d->stride_h - d->pad_t + ky * d->dil_h;
                const float *xrow = d->input + ((size_t)b * d->in_h + iy) * d->in_w * C + c;
                const float *wrow = d->filter + (size_t)ky * d->k_w * C + c;
                for (int kx = kx0; kx < kx1; kx++) {
                    int ix = ox * d->stride_w - d->pad_l + kx * d->dil_w;
                    const float *x = xrow + (size_t)ix * C;
                    const float *w = wrow + (size_t)kx * C;
                    acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(w), acc0);
                    acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 8), _mm256_loadu_ps(w + 8), acc1);
                }
            }
            _mm256_storeu_ps(out + c, _mm256_min_ps(_mm256_max_ps(acc0, lo), hi));
            _mm256_storeu_ps(out + c + 8, _mm256_min_ps(_mm256_max_ps(acc1, lo), hi));
        }
        for (; c + 8 <= C; c += 8) {
            __m256 acc = _mm256_loadu_ps(d->bias + c);
            for (int ky = ky0; ky < ky1; ky++) {
                int iy = oy * d->stride_h - d->pad_t + ky * d->dil_h;
                for (int kx = kx0; kx < kx1; kx++) {
                    int ix = ox * d->stride_w - d->pad_l + kx * d->dil_w;
                    const float *x = d->input + (((size_t)b * d->in_h + iy) * d->in_w + ix) * C + c;
                    acc = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(d->filter + (size_t)(ky * d->k_w + kx) * C + c), acc);
                }
            }
            _mm256_storeu_ps(out + c, _mm256_min_ps(_mm256_max_ps(acc, lo), hi));
        }
        for (; c < C; c++) {
            float acc = d->bias[c];
            for (int ky = ky0; ky < ky1; ky++) {
                int iy = oy * d->stride_h - d->pad_t + ky * d->dil_h;
                for (int kx = kx0; kx < kx1; kx++) {
                    int ix = ox * d->stride_w - d->pad_l + kx * d->dil_w;
                    acc += d->input[(((size_t)b * d->in_h + iy) * d->in_w + ix) * C + c] * d->filter[(size_t)(ky * d->k_w + kx) * C + c];
                }
            }
            out[c] = clampf(acc, d->act_min, d->act_max);
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
