// Activations, global average pooling and the scatter half of transposed convolution.
// LOGISTIC needs exp: the AVX2 path uses the classic Cody–Waite range reduction
// (x = n·ln2 + r, |r| ≤ ln2/2) and a degree-6 polynomial for e^r, good to about 2 ulp, so the
// sigmoid agrees with libm's to ~1e-7.
#include "sentio_kernels.h"

#include <math.h>

static inline float unary_scalar(float v, int kind) {
    switch (kind) {
    case 0: return v > 0 ? v : 0;
    case 1: return v < 0 ? 0 : (v > 6 ? 6 : v);
    case 2: return 1.0f / (1.0f + expf(-v));
    default: { float t = v + 3; t = t < 0 ? 0 : (t > 6 ? 6 : t); return v * t / 6; }
    }
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx2,fma")))
static inline __m256 exp_avx2(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.3981999507e-3f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

__attribute__((target("avx2,fma")))
static void unary_avx2(const float *x, float *out, size_t begin, size_t end, int kind) {
    size_t i = begin;
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), three = _mm256_set1_ps(3.0f);
    const __m256 six = _mm256_set1_ps(6.0f), sixth = _mm256_set1_ps(1.0f / 6.0f);
    for (; i + 8 <= end; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i), r;
        switch (kind) {
        case 0: r = _mm256_max_ps(v, zero); break;
        case 1: r = _mm256_min_ps(_mm256_max_ps(v, zero), six); break;
        case 2: r = _mm256_div_ps(one, _mm256_add_ps(one, exp_avx2(_mm256_sub_ps(zero, v)))); break;
        default: r = _mm256_mul_ps(_mm256_mul_ps(v, _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, three), zero), six)), sixth); break;
        }
        _mm256_storeu_ps(out + i, r);
    }
    for (; i < end; i++) out[i] = unary_scalar(x[i], kind);
}
#endif

void sentio_unary(const float *x, float *out, size_t begin, size_t end, int kind) {
#if defined(__x86_64__) || defined(__i386__)
    if (sentio_have_avx2()) { unary_avx2(x, out, begin, end, kind); return; }
#endif
    for (size_t i = begin; i < end; i++) out[i] = unary_scalar(x[i], kind);
}

void sentio_spatial_mean(const float *x, float *out, int batch_begin, int batch_end, int pixels, int channels) {
    for (int b = batch_begin; b < batch_end; b++) {
        float *o = out + (size_t)b * channels;
        for (int c = 0; c < channels; c++) o[c] = 0;
        const float *src = x + (size_t)b * pixels * channels;
        for (int p = 0; p < pixels; p++)
            for (int c = 0; c < channels; c++) o[c] += src[(size_t)p * channels + c];
        for (int c = 0; c < channels; c++) o[c] /= (float)pixels;
    }
}

void sentio_col2im_rows(const float *cols, const float *bias, float *out, int in_h, int in_w, int out_h, int out_w,
                        int out_c, int k_h, int k_w, int stride_h, int stride_w, int pad_t, int pad_l,
                        float act_min, float act_max, int row_begin, int row_end) {
    const size_t per_pixel = (size_t)k_h * k_w * out_c;
    for (int r = row_begin; r < row_end; r++) {
        int b = r / out_h, oy = r % out_h;
        float *row = out + (size_t)r * out_w * out_c;
        for (int ox = 0; ox < out_w; ox++)
            for (int o = 0; o < out_c; o++) row[(size_t)ox * out_c + o] = bias[o];
        // Input rows iy whose taps ky = oy − iy·s + pad fall inside the filter.
        for (int ky = 0; ky < k_h; ky++) {
            int t = oy + pad_t - ky;
            if (t < 0 || t % stride_h) continue;
            int iy = t / stride_h;
            if (iy >= in_h) continue;
            for (int ix = 0; ix < in_w; ix++) {
                const float *src = cols + (((size_t)b * in_h + iy) * in_w + ix) * per_pixel + (size_t)ky * k_w * out_c;
                for (int kx = 0; kx < k_w; kx++) {
                    int ox = ix * stride_w - pad_l + kx;
                    if (ox < 0 || ox >= out_w) continue;
                    float *dst = row + (size_t)ox * out_c;
                    const float *s = src + (size_t)kx * out_c;
                    for (int o = 0; o < out_c; o++) dst[o] += s[o];
                }
            }
        }
        for (size_t i = 0; i < (size_t)out_w * out_c; i++) {
            float v = row[i];
            v = v < act_min ? act_min : v;
            row[i] = v > act_max ? act_max : v;
        }
    }
}
