// Element-wise kernels: residual additions, per-channel scales and PRELU slopes. Written as
// plain loops over contiguous memory, which compilers vectorise; the AVX2 copies only add the
// target attribute so the same loops use 8-wide registers where the CPU has them.
#include "sentio_kernels.h"

static inline float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

#define BINARY_SAME_BODY                                                           \
    if (multiply) {                                                                \
        for (size_t i = begin; i < end; i++) out[i] = clampf(a[i] * b[i], lo, hi); \
    } else {                                                                       \
        for (size_t i = begin; i < end; i++) out[i] = clampf(a[i] + b[i], lo, hi); \
    }

#define BINARY_CHANNEL_BODY                                                               \
    for (size_t r = rows_begin; r < rows_end; r++) {                                      \
        const float *x = a + r * (size_t)channels;                                        \
        float *o = out + r * (size_t)channels;                                            \
        if (multiply) {                                                                   \
            for (int c = 0; c < channels; c++) o[c] = clampf(x[c] * b[c], lo, hi);         \
        } else {                                                                          \
            for (int c = 0; c < channels; c++) o[c] = clampf(x[c] + b[c], lo, hi);         \
        }                                                                                 \
    }

#define PRELU_BODY                                                                        \
    for (size_t r = rows_begin; r < rows_end; r++) {                                      \
        const float *v = x + r * (size_t)channels;                                        \
        float *o = out + r * (size_t)channels;                                            \
        for (int c = 0; c < channels; c++) o[c] = v[c] >= 0 ? v[c] : v[c] * alpha[c];     \
    }

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"))) static void same_avx2(const float *a, const float *b, float *out, size_t begin,
                                                          size_t end, int multiply, float lo, float hi) {
    BINARY_SAME_BODY
}
__attribute__((target("avx2,fma"))) static void channel_avx2(const float *a, const float *b, float *out, size_t rows_begin,
                                                             size_t rows_end, int channels, int multiply, float lo, float hi) {
    BINARY_CHANNEL_BODY
}
__attribute__((target("avx2,fma"))) static void prelu_avx2(const float *x, const float *alpha, float *out, size_t rows_begin,
                                                           size_t rows_end, int channels) {
    PRELU_BODY
}
#endif

void sentio_binary_same(const float *a, const float *b, float *out, size_t begin, size_t end, int multiply,
                        float lo, float hi) {
#if defined(__x86_64__) || defined(__i386__)
    if (sentio_have_avx2()) { same_avx2(a, b, out, begin, end, multiply, lo, hi); return; }
#endif
    BINARY_SAME_BODY
}

void sentio_binary_channel(const float *a, const float *b, float *out, size_t rows_begin, size_t rows_end,
                           int channels, int multiply, float lo, float hi) {
#if defined(__x86_64__) || defined(__i386__)
    if (sentio_have_avx2()) { channel_avx2(a, b, out, rows_begin, rows_end, channels, multiply, lo, hi); return; }
#endif
    BINARY_CHANNEL_BODY
}

void sentio_prelu_channel(const float *x, const float *alpha, float *out, size_t rows_begin, size_t rows_end, int channels) {
#if defined(__x86_64__) || defined(__i386__)
    if (sentio_have_avx2()) { prelu_avx2(x, alpha, out, rows_begin, rows_end, channels); return; }
#endif
    PRELU_BODY
}
