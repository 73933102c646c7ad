// RESIZE_BILINEAR and pooling with channels innermost: every inner loop runs over contiguous
// channels, which compilers vectorise (the AVX2 copies only add the target attribute).
#include "sentio_kernels.h"

#include <float.h>

#define RESIZE_BODY                                                                                   \
    for (int r = row_begin; r < row_end; r++) {                                                       \
        int b = r / out_h, oy = r % out_h;                                                            \
        const float *top = x + ((size_t)b * in_h + y0[oy]) * in_w * channels;                         \
        const float *bottom = x + ((size_t)b * in_h + y1[oy]) * in_w * channels;                      \
        float wy = fy[oy];                                                                            \
        float *o = out + (size_t)r * out_w * channels;                                                \
        for (int ox = 0; ox < out_w; ox++) {                                                          \
            const float *tl = top + (size_t)x0[ox] * channels, *tr = top + (size_t)x1[ox] * channels; \
            const float *bl = bottom + (size_t)x0[ox] * channels, *br = bottom + (size_t)x1[ox] * channels; \
            float wx = fx[ox];                                                                        \
            float a = (1 - wy) * (1 - wx), bb = wy * (1 - wx), cc = (1 - wy) * wx, dd = wy * wx;       \
            float *dst = o + (size_t)ox * channels;                                                   \
            for (int k = 0; k < channels; k++) dst[k] = tl[k] * a + bl[k] * bb + tr[k] * cc + br[k] * dd; \
        }                                                                                             \
    }

#define POOL_BODY                                                                                     \
    for (int r = row_begin; r < row_end; r++) {                                                       \
        int b = r / out_h, oy = r % out_h;                                                            \
        int iy0 = oy * stride_h - pad_t, iy1 = iy0 + k_h;                                             \
        if (iy0 < 0) iy0 = 0;                                                                         \
        if (iy1 > in_h) iy1 = in_h;                                                                   \
        for (int ox = 0; ox < out_w; ox++) {                                                          \
            int ix0 = ox * stride_w - pad_l, ix1 = ix0 + k_w;                                         \
            if (ix0 < 0) ix0 = 0;                                                                     \
            if (ix1 > in_w) ix1 = in_w;                                                               \
            float *dst = out + ((size_t)r * out_w + ox) * channels;                                   \
            for (int k = 0; k < channels; k++) dst[k] = is_max ? -FLT_MAX : 0.0f;                     \
            for (int iy = iy0; iy < iy1; iy++) {                                                      \
                for (int ix = ix0; ix < ix1; ix++) {                                                  \
                    const float *src = x + (((size_t)b * in_h + iy) * in_w + ix) * channels;          \
                    if (is_max) {                                                                     \
                        for (int k = 0; k < channels; k++) dst[k] = src[k] > dst[k] ? src[k] : dst[k]; \
                    } else {                                                                          \
                        for (int k = 0; k < channels; k++) dst[k] += src[k];                          \
                    }                                                                                 \
                }                                                                                     \
            }                                                                                         \
            int n = (iy1 - iy0) * (ix1 - ix0);                                                        \
            float scale = is_max || n <= 0 ? 1.0f : 1.0f / (float)n;                                  \
            for (int k = 0; k < channels; k++) {                                                      \
                float v = dst[k] * scale;                                                             \
                v = v < act_min ? act_min : v;                                                        \
                dst[k] = v > act_max ? act_max : v;                                                   \
            }                                                                                         \
        }                                                                                             \
    }

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma")))
static void resize_avx2(const float *x, float *out, int in_h, int in_w, int channels, int out_h, int out_w, const int *y0,
                        const int *y1, const float *fy, const int *x0, const int *x1, const float *fx, int row_begin, int row_end) {
    (void)in_h;
    RESIZE_BODY
}
__attribute__((target("avx2,fma")))
static void pool_avx2(const float *x, float *out, int in_h, int in_w, int channels, int out_h, int out_w, int k_h, int k_w,
                      int stride_h, int stride_w, int pad_t, int pad_l, int is_max, float act_min, float act_max,
                      int row_begin, int row_end) {
    POOL_BODY
}
#endif

void sentio_resize_bilinear_rows(const float *x, float *out, int in_h, int in_w, int channels, int out_h, int out_w,
                                 const int *y0, const int *y1, const float *fy, const int *x0, const int *x1,
                                 const float *fx, int row_begin, int row_end) {
#if defined(__x86_64__) || defined(__i386__)
    if (sentio_have_avx2()) {
        resize_avx2(x, out, in_h, in_w, channels, out_h, out_w, y0, y1, fy, x0, x1, fx, row_begin, row_end);
        return;
    }
#endif
    (void)in_h;
    RESIZE_BODY
}

void sentio_pool_rows(const float *x, float *out, int in_h, int in_w, int channels, int out_h, int out_w,
                      int k_h, int k_w, int stride_h, int stride_w, int pad_t, int pad_l, int is_max,
                      float act_min, float act_max, int row_begin, int row_end) {
#if defined(__x86_64__) || defined(__i386__)
    if (sentio_have_avx2()) {
        pool_avx2(x, out, in_h, in_w, channels, out_h, out_w, k_h, k_w, stride_h, stride_w, pad_t, pad_l, is_max,
                  act_min, act_max, row_begin, row_end);
        return;
    }
#endif
    POOL_BODY
}
