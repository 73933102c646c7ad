#ifndef SENTIO_KERNELS_H
#define SENTIO_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Output channels per packed weight panel (two AVX registers).
#define SENTIO_NR 16
/// Output pixels per micro-tile.
#define SENTIO_MR 6

/// 1 when the CPU has AVX2 and FMA (the fast paths use them; otherwise portable C runs).
int sentio_have_avx2(void);

/// Lowers the calling thread's scheduling priority to nice `niceness` (Linux; elsewhere -1).
int sentio_lower_thread_priority(int niceness);

/// Floats needed to pack an [n][k] weight matrix into panels of SENTIO_NR columns.
size_t sentio_packed_size(int n, int k);

/// Packs weights w[o][k] (row-major: a TFLite OHWI filter flattened, or FC weights) into
/// panels packed[panel][k][SENTIO_NR], zero-padding the last panel.
void sentio_pack(const float *w, int n, int k, float *packed);

/// A convolution lowered to a matrix product: rows are output pixels, columns output
/// channels, and the inner dimension is (ky, kx, input channel).
///
/// Every convolution kernel (and depthwise, and fully connected) sums the products from zero
/// and adds the bias at the end, as the reference kernels and TFLite's own reference kernels
/// do: biases folded from batch norms are often far larger than the result, and a sum started
/// at the bias rounds each partial sum to the bias's ulp (docs/neural-kernels.md).
typedef struct {
    const float *input;   ///< NHWC
    float *output;        ///< NHWC
    const float *packed;  ///< sentio_pack of the OHWI filter
    const float *weights; ///< the OHWI filter itself (read by the few-output-channel path)
    const float *bias;    ///< padded to a whole number of panels (zeros when absent)
    int batch, in_h, in_w, in_c;
    int out_h, out_w, out_c;
    int k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
    float act_min, act_max;
    /// 1 for 1×1, stride 1, no padding: input rows are used in place (no im2col).
    int pointwise;
    /// For few input channels (an RGB image): the filter as [oc/8][ky][kx][ci][8], read by a
    /// direct kernel that skips im2col. NULL otherwise.
    const float *direct;
} sentio_conv;

/// Floats of the `direct` filter layout for a filter of out_c × k_h × k_w × in_c.
size_t sentio_direct_size(int out_c, int k_h, int k_w, int in_c);
/// Repacks an OHWI filter into the `direct` layout.
void sentio_pack_direct(const float *w, int out_c, int k_h, int k_w, int in_c, float *packed);

/// Rows (output pixels) per block of work; parallel callers split on these.
#define SENTIO_CONV_BLOCK 72

/// Floats of scratch one worker needs for sentio_conv_blocks.
size_t sentio_conv_scratch(const sentio_conv *c);

/// Computes row blocks [block_begin, block_end) of the convolution.
void sentio_conv_blocks(const sentio_conv *c, int block_begin, int block_end, float *scratch);

/// Depthwise convolution (multiplier 1): filter [kh][kw][C].
typedef struct {
    const float *input;
    float *output;
    const float *filter;
    const float *bias;  ///< C values (zeros when absent)
    int batch, in_h, in_w, channels;
    int out_h, out_w;
    int k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
    float act_min, act_max;
} sentio_depthwise;

/// Computes output rows [row_begin, row_end) of batch·out_h rows.
void sentio_depthwise_rows(const sentio_depthwise *d, int row_begin, int row_end);

/// out[i] = clamp(a[i] + b[i]) or clamp(a[i] · b[i]) for i in [begin, end).
void sentio_binary_same(const float *a, const float *b, float *out, size_t begin, size_t end, int multiply,
                        float act_min, float act_max);

/// out[i, c] = clamp(a[i, c] op b[c]): b broadcast along the last axis of length channels.
void sentio_binary_channel(const float *a, const float *b, float *out, size_t rows_begin, size_t rows_end,
                           int channels, int multiply, float act_min, float act_max);

/// PRELU with per-channel α: out = x ≥ 0 ? x : α[c]·x.
void sentio_prelu_channel(const float *x, const float *alpha, float *out, size_t rows_begin, size_t rows_end, int channels);

/// Zero padding of a tensor of up to 4 dimensions (shapes given as 4, leading ones for lower
/// ranks): copies whole innermost runs. `before[a]` leading zeros on axis a.
void sentio_pad4(const float *x, const int *in_shape, const int *before, const int *out_shape, float *out,
                 int outer_begin, int outer_end);

/// RESIZE_BILINEAR for output rows [row_begin, row_end) of batch·out_h; the per-column source
/// indices and weights are precomputed (x0[i], x1[i], fx[i]; likewise per row).
void sentio_resize_bilinear_rows(const float *x, float *out, int in_h, int in_w, int channels, int out_h, int out_w,
                                 const int *y0, const int *y1, const float *fy, const int *x0, const int *x1,
                                 const float *fx, int row_begin, int row_end);

/// MAX_POOL_2D / AVERAGE_POOL_2D for output rows [row_begin, row_end) of batch·out_h.
void sentio_pool_rows(const float *x, float *out, int in_h, int in_w, int channels, int out_h, int out_w,
                      int k_h, int k_w, int stride_h, int stride_w, int pad_t, int pad_l, int is_max,
                      float act_min, float act_max, int row_begin, int row_end);

/// Element-wise activations over [begin, end): 0 RELU, 1 RELU6, 2 LOGISTIC, 3 HARD_SWISH.
void sentio_unary(const float *x, float *out, size_t begin, size_t end, int kind);

/// Mean over the spatial axes of NHWC (global average pooling): out[b, c] for batches
/// [batch_begin, batch_end).
void sentio_spatial_mean(const float *x, float *out, int batch_begin, int batch_end, int pixels, int channels);

/// Scatter-adds the per-pixel products of a transposed convolution: cols holds, for each input
/// pixel, k_h·k_w·out_c values ordered (ky, kx, o); output rows [row_begin, row_end) of
/// batch·out_h are written (bias, then every contribution that lands in them, then clamping).
void sentio_col2im_rows(const float *cols, const float *bias, float *out, int in_h, int in_w, int out_h, int out_w,
                        int out_c, int k_h, int k_w, int stride_h, int stride_w, int pad_t, int pad_l,
                        float act_min, float act_max, int row_begin, int row_end);

/// A pool of worker threads that spin briefly between jobs (an interpreter runs a hundred
/// small jobs back to back; waking a sleeping thread for each would cost more than the work).
typedef struct sentio_pool sentio_pool;
typedef void (*sentio_task)(void *context, int worker, int workers);

/// A pool for `threads` threads in all: the caller's and threads − 1 workers.
sentio_pool *sentio_pool_create(int threads);
/// Threads the pool runs on, the caller's included.
int sentio_pool_threads(const sentio_pool *pool);
/// Makes the calling thread the pool's owner until sentio_pool_release (nested calls by the
/// owner count). Returns 1 when the caller owns it, 0 when another thread does.
int sentio_pool_acquire(sentio_pool *pool);
/// Ends one sentio_pool_acquire of the calling thread; the workers sleep once none is left.
void sentio_pool_release(sentio_pool *pool);
/// Runs task(context, w, workers) for w in 0..<workers (workers ≤ threads), w = 0 on the
/// calling thread; returns when every call has returned. A caller that does not own the pool
/// runs task(context, 0, 1) alone.
void sentio_pool_run(sentio_pool *pool, sentio_task task, void *context, int workers);
void sentio_pool_destroy(sentio_pool *pool);

// MARK: int8 (TFLite's quantized scheme; see docs/quantized-models.md)

#include <stdint.h>

/// 1 when the CPU has AVX-512 VNNI (u8 × s8 dot products), which the int8 fast paths use.
int sentio_have_avx512vnni(void);

/// Output channels per packed int8 weight panel.
#define SENTIO_QNR 16

/// Bytes needed to pack an [n][k] int8 weight matrix: panels of SENTIO_QNR channels, k
/// rounded up to a multiple of 4 (groups of four products per 32-bit lane).
size_t sentio_qpacked_size(int n, int k);

/// Packs w[o][k] into packed[panel][k / 4][SENTIO_QNR][4], zero-padded.
void sentio_qpack(const int8_t *w, int n, int k, int8_t *packed);

/// How an int32 sum becomes a stored int8 value, per output channel: the sum (bias and
/// zero-point terms included) times multiplier · 2^(shift − 31), rounded twice as TFLite's
/// classic MultiplyByQuantizedMultiplier does or once (rounds_once), plus the output zero
/// point, clamped to [out_min, out_max].
///
/// With `scale` set (XNNPACK's arithmetic), the sum is instead scaled in float32 by scale[c],
/// clamped to [out_min − out_zero, out_max − out_zero], rounded to nearest even, and offset.
typedef struct {
    const int32_t *multiplier;
    const int32_t *shift;
    const float *scale;
    int32_t out_zero, out_min, out_max;
    int rounds_once;
} sentio_requant;

/// An int8 convolution as a u8 × s8 matrix product (inputs offset by 128).
typedef struct {
    const int8_t *input;      ///< NHWC
    int8_t *output;           ///< NHWC
    const int8_t *packed;     ///< sentio_qpack of the OHWI filter
    /// Per output channel, padded to whole panels: the bias minus (128 + input zero point) ·
    /// Σ filter, so that Σ (x + 128) · w + bias' = Σ (x − zero point) · w + bias.
    const int32_t *bias;
    sentio_requant requant;
    int input_zero;
    int batch, in_h, in_w, in_c;
    int out_h, out_w, out_c;
    int k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
    int portable;             ///< 1: the plain C path even where VNNI is there (for tests)
} sentio_qconv;

/// Bytes of scratch one call of sentio_qconv_run needs.
size_t sentio_qconv_scratch_size(const sentio_qconv *c);
/// Output pixels [begin, end) of the convolution.
void sentio_qconv_run(const sentio_qconv *c, int begin, int end, void *scratch);

/// An int8 depthwise convolution (filter [1, KH, KW, C·M]).
typedef struct {
    const int8_t *input;
    int8_t *output;
    const int8_t *filter;     ///< [KH][KW][out_c]
    const int32_t *bias;      ///< out_c values (zeros when absent)
    sentio_requant requant;
    int input_zero, multiplier;
    int batch, in_h, in_w, in_c;
    int out_h, out_w, out_c;
    int k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_t, pad_l;
    int portable;
} sentio_qdepthwise;

/// Output rows [begin, end) (over batch × out_h) of the depthwise convolution.
void sentio_qdepthwise_run(const sentio_qdepthwise *c, int begin, int end);

/// TFLite's 8-bit ADD: each input less its zero point, shifted left by `left_shift`, scaled
/// by its multiplier; the sum scaled to the output; all rounded twice as TFLite does.
///
/// With `xnnpack` set, XNNPACK's arithmetic instead: (xnn_bias + a·xnn_a + b·xnn_b) >> xnn_shift,
/// clamped relative to the zero point, plus the zero point.
typedef struct {
    int32_t a_zero, b_zero, a_multiplier, a_shift, b_multiplier, b_shift;
    int32_t out_multiplier, out_shift, out_zero, out_min, out_max, left_shift;
    int xnnpack;
    int32_t xnn_a, xnn_b, xnn_shift, xnn_bias;
    int portable;
} sentio_qadd_params;

/// out[i] = a[i] ⊕ b[i] for i in [begin, end).
void sentio_qadd(const int8_t *a, const int8_t *b, int8_t *out, size_t begin, size_t end, const sentio_qadd_params *p);

// MARK: training

/// C[m][n] (+)= Σₖ A[m][k] · B[k][n], with A read transposed (A[k][m]) when trans_a and B read
/// transposed (B[n][k]) when trans_b; lda, ldb, ldc are the row strides as stored. For the
/// small networks SentioNeural trains; rows [m_begin, m_end) of C only, so threads can split it.
void sentio_sgemm(int trans_a, int trans_b, int m_begin, int m_end, int n, int k,
                  const float *a, int lda, const float *b, int ldb, float *c, int ldc, int accumulate);

#ifdef __cplusplus
}
#endif

#endif
