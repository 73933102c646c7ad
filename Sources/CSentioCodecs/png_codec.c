// PNG through libpng's simplified API (png_image), which recovers from errors internally and
// converts every colour type and bit depth (palette, 16-bit, interlaced) to 8-bit channels.
#include "sentio_codecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

struct sentio_png_decoder {
    png_image image;
};

sentio_png_decoder *sentio_png_open(const uint8_t *data, size_t len, int *width, int *height,
                                    int *has_color, int *has_alpha, char *err) {
    sentio_png_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) {
        snprintf(err, SENTIO_ERR_LEN, "out of memory");
        return NULL;
    }
    dec->image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&dec->image, data, len)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", dec->image.message);
        png_image_free(&dec->image);
        free(dec);
        return NULL;
    }
    *width = (int)dec->image.width;
    *height = (int)dec->image.height;
    *has_color = (dec->image.format & PNG_FORMAT_FLAG_COLOR) != 0;
    *has_alpha = (dec->image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    return dec;
}

int sentio_png_decode(sentio_png_decoder *dec, uint8_t *out, size_t stride, int channels, char *err) {
    switch (channels) {
    case 1: dec->image.format = PNG_FORMAT_GRAY; break;
    case 2: dec->image.format = PNG_FORMAT_GA; break;
    case 3: dec->image.format = PNG_FORMAT_RGB; break;
    default: dec->image.format = PNG_FORMAT_RGBA; break;
    }
    if (!png_image_finish_read(&dec->image, NULL, out, (png_int_32)stride, NULL)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", dec->image.message);
        return -1;
    }
    return 0;
}

void sentio_png_close(sentio_png_decoder *dec) {
    if (!dec) return;
    png_image_free(&dec->image);
    free(dec);
}

int sentio_png_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                      uint8_t **out, size_t *out_len, char *err) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = channels == 1 ? PNG_FORMAT_GRAY : channels == 2 ? PNG_FORMAT_GA
                 : channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_RGBA;
    png_alloc_size_t size = 0;
    // First pass measures, second pass writes.
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, (png_int_32)stride, NULL)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", image.message);
        png_image_free(&image);
        return -1;
    }
    uint8_t *buffer = malloc(size);
    if (!buffer) {
        snprintf(err, SENTIO_ERR_LEN, "out of memory");
        return -1;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, (png_int_32)stride, NULL)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", image.message);
        png_image_free(&image);
        free(buffer);
        return -1;
    }
    *out = buffer;
    *out_len = size;
    return 0;
}
