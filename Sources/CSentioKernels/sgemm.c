// A plain single-precision matrix product for training small networks: loops ordered so the
// innermost one runs along contiguous memory of C and B, which the compiler vectorizes.

#include "sentio_kernels.h"
#include <string.h>

void sentio_sgemm(int trans_a, int trans_b, int m_begin, int m_end, int n, int k,
                  const float *a, int lda, const float *b, int ldb, float *c, int ldc, int accumulate) {
    for (int i = m_begin; i < m_end; i++) {
        float *ci = c + (size_t)i * ldc;
        if (!accumulate) memset(ci, 0, sizeof(float) * (size_t)n);
        if (!trans_b) {
            for (int p = 0; p < k; p++) {
                const float av = trans_a ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p];
                if (av == 0) continue;
                const float *bp = b + (size_t)p * ldb;
                for (int j = 0; j < n; j++) ci[j] += av * bp[j];
            }
        } else {
            for (int j = 0; j < n; j++) {
                const float *bj = b + (size_t)j * ldb;
                float sum = 0;
                if (trans_a) {
                    for (int p = 0; p < k; p++) sum += a[(size_t)p * lda + i] * bj[p];
                } else {
                    const float *ai = a + (size_t)i * lda;
                    for (int p = 0; p < k; p++) sum += ai[p] * bj[p];
                }
                ci[j] += sum;
            }
        }
    }
}
