// Convolution as a packed matrix product (BLIS-style 6×16 micro-kernel, AVX2/FMA where the CPU
// has it). Why this shape: 12 accumulators + 2 weight vectors + 1 broadcast fill 15 of the 16
// ymm registers, and each step does 12 FMAs for 2 loads, so the kernel is bound by the FMA
// units, not by memory.
#include "sentio_kernels.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SENTIO_X86 1
#endif

size_t sentio_packed_size(int n, int k) {
    size_t panels = (size_t)(n + SENTIO_NR - 1) / SENTIO_NR;
    return panels * (size_t)k * SENTIO_NR;
}

void sentio_pack(const float *w, int n, int k, float *packed) {
    int panels = (n + SENTIO_NR - 1) / SENTIO_NR;
    for (int p = 0; p < panels; p++) {
        float *dst = packed + (size_t)p * k * SENTIO_NR;
        for (int kk = 0; kk < k; kk++) {
            for (int j = 0; j < SENTIO_NR; j++) {
                int o = p * SENTIO_NR + j;
                dst[(size_t)kk * SENTIO_NR + j] = o < n ? w[(size_t)o * k + kk] : 0.0f;
            }
        }
    }
}

// Portable micro-kernel: the same tile, plain C (auto-vectorised where the compiler can).
static void ukernel_generic(int k, const float *a, size_t lda, const float *b, float *c, size_t ldc,
                            const float *bias, float lo, float hi, int mr, int nr) {
    float acc[SENTIO_MR][SENTIO_NR];
    for (int i = 0; i < SENTIO_MR; i++)
        for (int j = 0; j < SENTIO_NR; j++) acc[i][j] = 0.0f;
    for (int p = 0; p < k; p++) {
        for (int i = 0; i < mr; i++) {
            float av = a[(size_t)i * lda + p];
            for (int j = 0; j < SENTIO_NR; j++) acc[i][j] += av * b[(size_t)p * SENTIO_NR + j];
        }
    }
    for (int i = 0; i < mr; i++)
        for (int j = 0; j < nr; j++) {
            float v = acc[i][j] + bias[j];
            v = v < lo ? lo : v;
            v = v > hi ? hi : v;
            c[(size_t)i * ldc + j] = v;
        }
}

#ifdef SENTIO_X86
__attribute__((target("avx2,fma")))
static void ukernel_avx2(int k, const float *a, size_t lda, const float *b, float *c, size_t ldc,
                         const float *bias, float lo, float hi, int mr, int nr) {
    const float *a0 = a;
    const float *a1 = mr > 1 ? a + lda : a0;
    const float *a2 = mr > 2 ? a + 2 * lda : a0;
    const float *a3 = mr > 3 ? a + 3 * lda : a0;
    const float *a4 = mr > 4 ? a + 4 * lda : a0;
    const float *a5 = mr > 5 ? a + 5 * lda : a0;
    // The sums start at zero and the bias is added at the end (see sentio_kernels.h).
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    for (int p = 0; p < k; p++) {
        __m256 w0 = _mm256_load_ps(b);
        __m256 w1 = _mm256_load_ps(b + 8);
        b += SENTIO_NR;
        __m256 x;
        x = _mm256_broadcast_ss(a0 + p); c00 = _mm256_fmadd_ps(x, w0, c00); c01 = _mm256_fmadd_ps(x, w1, c01);
        x = _mm256_broadcast_ss(a1 + p); c10 = _mm256_fmadd_ps(x, w0, c10); c11 = _mm256_fmadd_ps(x, w1, c11);
        x = _mm256_broadcast_ss(a2 + p); c20 = _mm256_fmadd_ps(x, w0, c20); c21 = _mm256_fmadd_ps(x, w1, c21);
        x = _mm256_broadcast_ss(a3 + p); c30 = _mm256_fmadd_ps(x, w0, c30); c31 = _mm256_fmadd_ps(x, w1, c31);
        x = _mm256_broadcast_ss(a4 + p); c40 = _mm256_fmadd_ps(x, w0, c40); c41 = _mm256_fmadd_ps(x, w1, c41);
        x = _mm256_broadcast_ss(a5 + p); c50 = _mm256_fmadd_ps(x, w0, c50); c51 = _mm256_fmadd_ps(x, w1, c51);
    }
    __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
    __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
#define CLAMP0(v) _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, b0), vlo), vhi)
#define CLAMP1(v) _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, b1), vlo), vhi)
    __m256 rows[SENTIO_MR][2] = {{CLAMP0(c00), CLAMP1(c01)}, {CLAMP0(c10), CLAMP1(c11)}, {CLAMP0(c20), CLAMP1(c21)},
                                 {CLAMP0(c30), CLAMP1(c31)}, {CLAMP0(c40), CLAMP1(c41)}, {CLAMP0(c50), CLAMP1(c51)}};
#undef CLAMP0
#undef CLAMP1
    if (nr == SENTIO_NR) {
        for (int i = 0; i < mr; i++) {
            _mm256_storeu_ps(c + (size_t)i * ldc, rows[i][0]);
            _mm256_storeu_ps(c + (size_t)i * ldc + 8, rows[i][1]);
        }
    } else {
        float tile[SENTIO_NR];
        for (int i = 0; i < mr; i++) {
            _mm256_storeu_ps(tile, rows[i][0]);
            _mm256_storeu_ps(tile + 8, rows[i][1]);
            memcpy(c + (size_t)i * ldc, tile, sizeof(float) * (size_t)nr);
        }
    }
}
#endif

#ifdef SENTIO_X86
// A panel with at most 8 live columns (out_c ≤ 8, or the last panel of 24, 40, … channels):
// the 6×16 tile would spend half its FMAs on the zero columns. Here 8 rows × 8 columns: one
// weight vector (the first half of each 16-wide panel row) and 8 broadcasts feed 8 FMAs.
__attribute__((target("avx2,fma")))
static void ukernel_8x8_avx2(int k, const float *a, size_t lda, const float *b, float *c, size_t ldc,
                             const float *bias, float lo, float hi, int mr, int nr) {
    const float *a0 = a;
    const float *a1 = mr > 1 ? a + lda : a0;
    const float *a2 = mr > 2 ? a + 2 * lda : a0;
    const float *a3 = mr > 3 ? a + 3 * lda : a0;
    const float *a4 = mr > 4 ? a + 4 * lda : a0;
    const float *a5 = mr > 5 ? a + 5 * lda : a0;
    const float *a6 = mr > 6 ? a + 6 * lda : a0;
    const float *a7 = mr > 7 ? a + 7 * lda : a0;
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    for (int p = 0; p < k; p++) {
        __m256 w = _mm256_load_ps(b);
        b += SENTIO_NR;
        c0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + p), w, c0);
        c1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + p), w, c1);
        c2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + p), w, c2);
        c3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + p), w, c3);
        c4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + p), w, c4);
        c5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + p), w, c5);
        c6 = _mm256_fmadd_ps(_mm256_broadcast_ss(a6 + p), w, c6);
        c7 = _mm256_fmadd_ps(_mm256_broadcast_ss(a7 + p), w, c7);
    }
    const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi), vb = _mm256_loadu_ps(bias);
    __m256 rows[8] = {c0, c1, c2, c3, c4, c5, c6, c7};
    for (int i = 0; i < mr; i++) {
        __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(rows[i], vb), vlo), vhi);
        if (nr == 8) {
            _mm256_storeu_ps(c + (size_t)i * ldc, v);
        } else {
            float tile[8];
            _mm256_storeu_ps(tile, v);
            memcpy(c + (size_t)i * ldc, tile, sizeof(float) * (size_t)nr);
        }
    }
}
#endif

size_t sentio_direct_size(int out_c, int k_h, int k_w, int in_c) {
    return (size_t)((out_c + 7) / 8) * (size_t)(k_h * k_w * in_c) * 8;
}

void sentio_pack_direct(const float *w, int out_c, int k_h, int k_w, int in_c, float *packed) {
    const int taps = k_h * k_w * in_c;
    for (int g = 0; g < (out_c + 7) / 8; g++)
        for (int t = 0; t < taps; t++)
            for (int j = 0; j < 8; j++) {
                int o = g * 8 + j;
                packed[((size_t)g * taps + t) * 8 + j] = o < out_c ? w[(size_t)o * taps + t] : 0.0f;
            }
}

#ifdef SENTIO_X86
// The direct convolution's interior, six output pixels × sixteen output channels at a time
// (the matrix product's 6×16 tile, fed straight from the image): with no dilation, a window
// row's (kx, channel) taps are k_w·in_c contiguous floats, so each tap is one broadcast per
// pixel and two weight vectors, 12 FMAs for 8 loads. Columns [ox_begin, ox_end) must have
// their whole window inside the image; an odd last group of 8 channels computes its partner
// from the same weights and stores only its own.
__attribute__((target("avx2,fma")))
static void direct_tiles_avx2(const sentio_conv *c, const float *image, int oy, int ky0, int ky1, float *out_row,
                              int ox_begin, int ox_end) {
    const int C = c->in_c, KWC = c->k_w * C, groups = (c->out_c + 7) / 8, taps = c->k_h * KWC;
    const size_t row_len = (size_t)c->in_w * C, step = (size_t)c->stride_w * C;
    const __m256 lo = _mm256_set1_ps(c->act_min), hi = _mm256_set1_ps(c->act_max);
    for (int ox = ox_begin; ox + 6 <= ox_end; ox += 6) {
        for (int g = 0; g < groups; g += 2) {
            const int pair = g + 1 < groups;
            const float *w0 = c->direct + (size_t)g * taps * 8;
            const float *w1 = pair ? w0 + (size_t)taps * 8 : w0;
            __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
            __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
            for (int ky = ky0; ky < ky1; ky++) {
                const float *x = image + (size_t)(oy * c->stride_h - c->pad_t + ky * c->dil_h) * row_len
                    + (size_t)(ox * c->stride_w - c->pad_l) * C;
                const float *wa = w0 + (size_t)ky * KWC * 8, *wb = w1 + (size_t)ky * KWC * 8;
                for (int t = 0; t < KWC; t++) {
                    const __m256 u0 = _mm256_loadu_ps(wa + (size_t)t * 8), u1 = _mm256_loadu_ps(wb + (size_t)t * 8);
                    __m256 v;
                    v = _mm256_broadcast_ss(x + t); c00 = _mm256_fmadd_ps(v, u0, c00); c01 = _mm256_fmadd_ps(v, u1, c01);
                    v = _mm256_broadcast_ss(x + step + t); c10 = _mm256_fmadd_ps(v, u0, c10); c11 = _mm256_fmadd_ps(v, u1, c11);
                    v = _mm256_broadcast_ss(x + 2 * step + t); c20 = _mm256_fmadd_ps(v, u0, c20); c21 = _mm256_fmadd_ps(v, u1, c21);
                    v = _mm256_broadcast_ss(x + 3 * step + t); c30 = _mm256_fmadd_ps(v, u0, c30); c31 = _mm256_fmadd_ps(v, u1, c31);
                    v = _mm256_broadcast_ss(x + 4 * step + t); c40 = _mm256_fmadd_ps(v, u0, c40); c41 = _mm256_fmadd_ps(v, u1, c41);
                    v = _mm256_broadcast_ss(x + 5 * step + t); c50 = _mm256_fmadd_ps(v, u0, c50); c51 = _mm256_fmadd_ps(v, u1, c51);
                }
            }
            const __m256 b0 = _mm256_loadu_ps(c->bias + g * 8), b1 = _mm256_loadu_ps(c->bias + (g + pair) * 8);
            __m256 res[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
            for (int h = 0; h <= pair; h++) {
                const int ch = (g + h) * 8, nr = c->out_c - ch < 8 ? c->out_c - ch : 8;
                const __m256 bias = h ? b1 : b0;
                for (int p = 0; p < 6; p++) {
                    __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(res[p][h], bias), lo), hi);
                    float *dst = out_row + (size_t)(ox + p) * c->out_c + ch;
                    if (nr == 8) {
                        _mm256_storeu_ps(dst, v);
                    } else {
                        float tmp[8];
                        _mm256_storeu_ps(tmp, v);
                        for (int j = 0; j < nr; j++) dst[j] = tmp[j];
                    }
                }
            }
        }
    }
}
#endif

#ifdef SENTIO_X86
// Direct convolution for few input channels (the RGB layer every model starts with): im2col
// would copy 3 floats at a time and the matrix product would run with K = 27. Here four
// output pixels × 8 output channels accumulate at once, one broadcast input value per
// (tap, channel, pixel) and one weight vector per (tap, channel).
__attribute__((target("avx2,fma")))
static void direct_row_avx2(const sentio_conv *c, int b, int oy) {
    const int C = c->in_c, KW = c->k_w, groups = (c->out_c + 7) / 8, taps = c->k_h * KW * C;
    const __m256 lo = _mm256_set1_ps(c->act_min), hi = _mm256_set1_ps(c->act_max);
    float *out_row = c->output + ((size_t)b * c->out_h + oy) * c->out_w * c->out_c;
    int ky0 = 0, ky1 = c->k_h;
    while (ky0 < ky1 && oy * c->stride_h - c->pad_t + ky0 * c->dil_h < 0) ky0++;
    while (ky1 > ky0 && oy * c->stride_h - c->pad_t + (ky1 - 1) * c->dil_h >= c->in_h) ky1--;
    int ox_lo = (c->pad_l + c->stride_w - 1) / c->stride_w;
    int ox_hi = (c->in_w - 1 - (KW - 1) * c->dil_w + c->pad_l) / c->stride_w + 1;
    if (ox_hi > c->out_w) ox_hi = c->out_w;
    if (ox_lo > ox_hi) ox_lo = ox_hi;
    const size_t row_len = (size_t)c->in_w * C;
    const float *image = c->input + (size_t)b * c->in_h * row_len;
    // Interior columns in tiles of six (no dilation across a row); the loop below does the rest.
    int tiled_lo = ox_lo, tiled_hi = ox_lo;
    if (c->dil_w == 1 && ox_hi - ox_lo >= 6) {
        tiled_hi = ox_lo + (ox_hi - ox_lo) / 6 * 6;
        direct_tiles_avx2(c, image, oy, ky0, ky1, out_row, tiled_lo, tiled_hi);
    }
    for (int g = 0; g < groups; g++) {
        const float *wg = c->direct + (size_t)g * taps * 8;
        const __m256 bias = _mm256_loadu_ps(c->bias + g * 8);
        const int nr = c->out_c - g * 8 < 8 ? c->out_c - g * 8 : 8;
        int ox = 0;
        while (ox < c->out_w) {
            if (ox == tiled_lo && tiled_hi > tiled_lo) {
                ox = tiled_hi;
                continue;
            }
            int four = ox >= ox_lo && ox + 4 <= ox_hi;
            __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            for (int ky = ky0; ky < ky1; ky++) {
                const float *xr = image + (size_t)(oy * c->stride_h - c->pad_t + ky * c->dil_h) * row_len;
                for (int kx = 0; kx < KW; kx++) {
                    const float *w = wg + (size_t)((ky * KW + kx) * C) * 8;
                    int ix = ox * c->stride_w - c->pad_l + kx * c->dil_w;
                    if (four) {
                        const float *x = xr + (size_t)ix * C;
                        const size_t step = (size_t)c->stride_w * C;
                        for (int ci = 0; ci < C; ci++) {
                            __m256 wv = _mm256_loadu_ps(w + ci * 8);
                            a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(x + ci), wv, a0);
                            a1 = _mm256_fmadd_ps(_mm256_broadcast_ss(x + step + ci), wv, a1);
                            a2 = _mm256_fmadd_ps(_mm256_broadcast_ss(x + 2 * step + ci), wv, a2);
                            a3 = _mm256_fmadd_ps(_mm256_broadcast_ss(x + 3 * step + ci), wv, a3);
                        }
                    } else if (ix >= 0 && ix < c->in_w) {
                        const float *x = xr + (size_t)ix * C;
                        for (int ci = 0; ci < C; ci++) a0 = _mm256_fmadd_ps(_mm256_broadcast_ss(x + ci), _mm256_loadu_ps(w + ci * 8), a0);
                    }
                }
            }
            __m256 res[4] = {a0, a1, a2, a3};
            int count = four ? 4 : 1;
            for (int p = 0; p < count; p++) {
                __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(res[p], bias), lo), hi);
                float *dst = out_row + (size_t)(ox + p) * c->out_c + g * 8;
                if (nr == 8) {
                    _mm256_storeu_ps(dst, v);
                } else {
                    float tmp[8];
                    _mm256_storeu_ps(tmp, v);
                    for (int j = 0; j < nr; j++) dst[j] = tmp[j];
                }
            }
            ox += count;
        }
    }
}
#endif

size_t sentio_conv_scratch(const sentio_conv *c) {
    return c->pointwise || c->direct || (c->out_c <= 2 && c->in_c % 8 == 0) ? 0 : (size_t)SENTIO_CONV_BLOCK * (size_t)(c->k_h * c->k_w * c->in_c);
}

// Gathers the (ky, kx, channel) patch of `rows` output pixels starting at `row0`, zero where
// the window leaves the image.
static void im2col(const sentio_conv *c, int row0, int rows, float *dst) {
    const int kdim = c->k_h * c->k_w * c->in_c;
    const int plane = c->out_h * c->out_w;
    int b = row0 / plane, oy = (row0 % plane) / c->out_w, ox = row0 % c->out_w;
    for (int r = 0; r < rows; r++) {
        float *out = dst + (size_t)r * kdim;
        for (int ky = 0; ky < c->k_h; ky++) {
            int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
            for (int kx = 0; kx < c->k_w; kx++) {
                int ix = ox * c->stride_w - c->pad_l + kx * c->dil_w;
                if (iy < 0 || iy >= c->in_h || ix < 0 || ix >= c->in_w) {
                    for (int k = 0; k < c->in_c; k++) out[k] = 0.0f;
                } else {
                    const float *src = c->input + (((size_t)b * c->in_h + iy) * c->in_w + ix) * c->in_c;
                    // A call to memcpy costs more than copying 3 or 8 floats.
                    if (c->in_c <= 16) {
                        for (int k = 0; k < c->in_c; k++) out[k] = src[k];
                    } else {
                        memcpy(out, src, sizeof(float) * (size_t)c->in_c);
                    }
                }
                out += c->in_c;
            }
        }
        if (++ox == c->out_w) {
            ox = 0;
            if (++oy == c->out_h) { oy = 0; b++; }
        }
    }
}

#ifdef SENTIO_X86
// The eight horizontal sums of a0 … a7, in order.
__attribute__((target("avx2,fma"), always_inline))
static inline __m256 hsum8(__m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256 a4, __m256 a5, __m256 a6, __m256 a7) {
    __m256 u0 = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
    __m256 u1 = _mm256_hadd_ps(_mm256_hadd_ps(a4, a5), _mm256_hadd_ps(a6, a7));
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

// One output value of the narrow path: the window's taps, 8 channels per FMA, reduced at the end.
__attribute__((target("avx2,fma")))
static float narrow_pixel(const sentio_conv *c, int b, int oy, int ox, int o) {
    const int C = c->in_c, KK = c->k_h * c->k_w;
    // Two accumulators alternate taps so consecutive FMAs do not wait on each other.
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    const float *w = c->weights + (size_t)o * KK * C;
    int t = 0;
    for (int ky = 0; ky < c->k_h; ky++) {
        int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
        if (iy < 0 || iy >= c->in_h) continue;
        const float *xrow = c->input + ((size_t)b * c->in_h + iy) * c->in_w * C;
        for (int kx = 0; kx < c->k_w; kx++) {
            int ix = ox * c->stride_w - c->pad_l + kx * c->dil_w;
            if (ix < 0 || ix >= c->in_w) continue;
            const float *x = xrow + (size_t)ix * C;
            const float *wk = w + (size_t)(ky * c->k_w + kx) * C;
            for (int k = 0; k < C; k += 8, t++) {
                if (t & 1) acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(wk + k), acc1);
                else acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + k), _mm256_loadu_ps(wk + k), acc0);
            }
        }
    }
    __m256 acc = _mm256_add_ps(acc0, acc1);
    __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
    s4 = _mm_add_ss(s4, _mm_shuffle_ps(s4, s4, 1));
    float v = _mm_cvtss_f32(s4) + c->bias[o];
    v = v < c->act_min ? c->act_min : v;
    return v > c->act_max ? c->act_max : v;
}

// Few output channels (a mask or heat-map head) and channels in multiples of 8: a 16-wide
// panel would waste most of the micro-kernel and im2col would copy more than it computes, so
// each output is accumulated straight from the input, 8 channels per FMA. Eight neighbouring
// pixels of a row whose windows lie inside the image go together: each weight vector is
// loaded once for eight FMAs, and their eight sums are reduced together (one transpose-and-add
// for all eight, not one horizontal reduction each).
__attribute__((target("avx2,fma")))
static void narrow_avx2(const sentio_conv *c, int row0, int rows) {
    const int plane = c->out_h * c->out_w, C = c->in_c, KK = c->k_h * c->k_w;
    const size_t step = (size_t)c->stride_w * C;
    const __m256 lo = _mm256_set1_ps(c->act_min), hi = _mm256_set1_ps(c->act_max);
    // Interior columns: ox·s − pad ≥ 0 and ox·s − pad + (kw−1)·dil < in_w.
    int ox_lo = (c->pad_l + c->stride_w - 1) / c->stride_w;
    int ox_hi = (c->in_w - 1 - (c->k_w - 1) * c->dil_w + c->pad_l) / c->stride_w + 1;
    if (ox_hi > c->out_w) ox_hi = c->out_w;
    int b = row0 / plane, oy = (row0 % plane) / c->out_w, ox = row0 % c->out_w;
    int m = row0;
    const int m_end = row0 + rows;
    while (m < m_end) {
        if (ox >= ox_lo && ox + 8 <= ox_hi && m + 8 <= m_end) {
            for (int o = 0; o < c->out_c; o++) {
                __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
                const float *w = c->weights + (size_t)o * KK * C;
                for (int ky = 0; ky < c->k_h; ky++) {
                    int iy = oy * c->stride_h - c->pad_t + ky * c->dil_h;
                    if (iy < 0 || iy >= c->in_h) continue;
                    const float *xrow = c->input + ((size_t)b * c->in_h + iy) * c->in_w * C;
                    for (int kx = 0; kx < c->k_w; kx++) {
                        const float *x = xrow + (size_t)(ox * c->stride_w - c->pad_l + kx * c->dil_w) * C;
                        const float *wk = w + (size_t)(ky * c->k_w + kx) * C;
                        for (int k = 0; k < C; k += 8) {
                            const __m256 wv = _mm256_loadu_ps(wk + k);
                            const float *xk = x + k;
                            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(xk), wv, a0);
                            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + step), wv, a1);
                            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 2 * step), wv, a2);
                            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 3 * step), wv, a3);
                            a4 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 4 * step), wv, a4);
                            a5 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 5 * step), wv, a5);
                            a6 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 6 * step), wv, a6);
                            a7 = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 7 * step), wv, a7);
                        }
                    }
                }
                __m256 v = _mm256_add_ps(hsum8(a0, a1, a2, a3, a4, a5, a6, a7), _mm256_set1_ps(c->bias[o]));
                v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
                float *dst = c->output + (size_t)m * c->out_c + o;
                if (c->out_c == 1) {
                    _mm256_storeu_ps(dst, v);
                } else {
                    float tmp[8];
                    _mm256_storeu_ps(tmp, v);
                    for (int p = 0; p < 8; p++) dst[(size_t)p * c->out_c] = tmp[p];
                }
            }
            m += 8;
            ox += 8;
        } else {
            for (int o = 0; o < c->out_c; o++) c->output[(size_t)m * c->out_c + o] = narrow_pixel(c, b, oy, ox, o);
            m++;
            ox++;
        }
        if (ox == c->out_w) {
            ox = 0;
            if (++oy == c->out_h) { oy = 0; b++; }
        }
    }
}
#endif

void sentio_conv_blocks(const sentio_conv *c, int block_begin, int block_end, float *scratch) {
    const int kdim = c->k_h * c->k_w * c->in_c;
    const int m_total = c->batch * c->out_h * c->out_w;
    const int panels = (c->out_c + SENTIO_NR - 1) / SENTIO_NR;
    const int avx = sentio_have_avx2();
#ifdef SENTIO_X86
    if (avx && c->direct) {
        // Blocks here are output rows (see sentio_conv_direct_rows).
        for (int r = block_begin; r < block_end && r < c->batch * c->out_h; r++) direct_row_avx2(c, r / c->out_h, r % c->out_h);
        return;
    }
#endif
    for (int block = block_begin; block < block_end; block++) {
        int row0 = block * SENTIO_CONV_BLOCK;
        if (row0 >= m_total) break;
        int rows = m_total - row0 < SENTIO_CONV_BLOCK ? m_total - row0 : SENTIO_CONV_BLOCK;
#ifdef SENTIO_X86
        if (avx && c->out_c <= 2 && c->in_c % 8 == 0) {
            narrow_avx2(c, row0, rows);
            continue;
        }
#endif
        const float *a;
        size_t lda;
        if (c->pointwise) {
            a = c->input + (size_t)row0 * c->in_c;
            lda = (size_t)c->in_c;
        } else {
            im2col(c, row0, rows, scratch);
            a = scratch;
            lda = (size_t)kdim;
        }
        for (int p = 0; p < panels; p++) {
            const float *b = c->packed + (size_t)p * kdim * SENTIO_NR;
            const float *bias = c->bias + p * SENTIO_NR;
            int nr = c->out_c - p * SENTIO_NR < SENTIO_NR ? c->out_c - p * SENTIO_NR : SENTIO_NR;
#ifdef SENTIO_X86
            if (avx && nr <= 8) {
                for (int i = 0; i < rows; i += 8) {
                    int mr = rows - i < 8 ? rows - i : 8;
                    float *out = c->output + (size_t)(row0 + i) * c->out_c + p * SENTIO_NR;
                    ukernel_8x8_avx2(kdim, a + (size_t)i * lda, lda, b, out, (size_t)c->out_c, bias, c->act_min, c->act_max, mr, nr);
                }
                continue;
            }
#endif
            for (int i = 0; i < rows; i += SENTIO_MR) {
                int mr = rows - i < SENTIO_MR ? rows - i : SENTIO_MR;
                float *out = c->output + (size_t)(row0 + i) * c->out_c + p * SENTIO_NR;
#ifdef SENTIO_X86
                if (avx) {
                    ukernel_avx2(kdim, a + (size_t)i * lda, lda, b, out, (size_t)c->out_c, bias, c->act_min, c->act_max, mr, nr);
                    continue;
                }
#endif
                (void)avx;
                ukernel_generic(kdim, a + (size_t)i * lda, lda, b, out, (size_t)c->out_c, bias, c->act_min, c->act_max, mr, nr);
            }
        }
    }
}
