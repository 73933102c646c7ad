// PAD as run copies: for each (n, y) output row, zero what lies outside the input and copy the
// input's rows of channels in one memcpy per pixel run.
#include "sentio_kernels.h"

#include <string.h>

void sentio_pad4(const float *x, const int *in_shape, const int *before, const int *out_shape, float *out,
                 int outer_begin, int outer_end) {
    const int oh = out_shape[1], ow = out_shape[2], oc = out_shape[3];
    const int ih = in_shape[1], iw = in_shape[2], ic = in_shape[3];
    const size_t out_row = (size_t)ow * oc;
    for (int r = outer_begin; r < outer_end; r++) {  // r = n · oh + y
        int n = r / oh, y = r % oh;
        float *dst = out + (size_t)r * out_row;
        int in_n = n - before[0], in_y = y - before[1];
        if (in_n < 0 || in_n >= in_shape[0] || in_y < 0 || in_y >= ih) {
            memset(dst, 0, sizeof(float) * out_row);
            continue;
        }
        const float *src = x + ((size_t)in_n * ih + in_y) * iw * ic;
        if (oc == ic) {
            // Channels unpadded: the whole input row is one run.
            size_t lead = (size_t)before[2] * oc, run = (size_t)iw * ic;
            memset(dst, 0, sizeof(float) * lead);
            memcpy(dst + lead, src, sizeof(float) * run);
            memset(dst + lead + run, 0, sizeof(float) * (out_row - lead - run));
            continue;
        }
        memset(dst, 0, sizeof(float) * out_row);
        for (int ix = 0; ix < iw; ix++) {
            memcpy(dst + (size_t)(ix + before[2]) * oc + before[3], src + (size_t)ix * ic, sizeof(float) * (size_t)ic);
        }
    }
}
