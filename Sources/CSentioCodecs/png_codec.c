// PNG through libpng: every colour type and bit depth (palette, 16-bit, interlaced) decoded to
// 8-bit channels with setjmp error recovery; encoding through the simplified API (png_image).
#include "sentio_codecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

// Decoding uses the classic API: the simplified one treats 16-bit files without a gAMA chunk
// as linear light and re-encodes them, so a 16-bit sample v would not come out as v/257 the
// way every other decoder (and the PNG specification's sample-depth scaling) has it.
struct sentio_png_decoder {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t len;
    size_t pos;
    char message[SENTIO_ERR_LEN];
};

static void sentio_png_error(png_structp png, png_const_charp msg) {
    struct sentio_png_decoder *dec = png_get_error_ptr(png);
    snprintf(dec->message, SENTIO_ERR_LEN, "%s", msg);
    png_longjmp(png, 1);
}

static void sentio_png_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static void sentio_png_read(png_structp png, png_bytep out, size_t count) {
    struct sentio_png_decoder *dec = png_get_io_ptr(png);
    if (count > dec->len - dec->pos) {
        png_error(png, "file ends early (truncated)");
    }
    memcpy(out, dec->data + dec->pos, count);
    dec->pos += count;
}

sentio_png_decoder *sentio_png_open(const uint8_t *data, size_t len, int *width, int *height,
                                    int *has_color, int *has_alpha, char *err) {
    sentio_png_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) {
        snprintf(err, SENTIO_ERR_LEN, "out of memory");
        return NULL;
    }
    dec->data = data;
    dec->len = len;
    dec->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, dec, sentio_png_error, sentio_png_warning);
    dec->info = dec->png ? png_create_info_struct(dec->png) : NULL;
    if (!dec->png || !dec->info) {
        snprintf(err, SENTIO_ERR_LEN, "out of memory");
        sentio_png_close(dec);
        return NULL;
    }
    if (setjmp(png_jmpbuf(dec->png))) {
        snprintf(err, SENTIO_ERR_LEN, "%s", dec->message);
        sentio_png_close(dec);
        return NULL;
    }
    png_set_read_fn(dec->png, dec, sentio_png_read);
    // Text and other ancillary chunks can be decompression bombs; bound what libpng allocates.
    png_set_chunk_malloc_max(dec->png, 16u << 20);
    png_read_info(dec->png, dec->info);
    int color_type = png_get_color_type(dec->png, dec->info);
    *width = (int)png_get_image_width(dec->png, dec->info);
    *height = (int)png_get_image_height(dec->png, dec->info);
    *has_color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
    *has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(dec->png, dec->info, PNG_INFO_tRNS);
    return dec;
}

int sentio_png_decode(sentio_png_decoder *dec, uint8_t *out, size_t stride, int channels, char *err) {
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(dec->png))) {
        snprintf(err, SENTIO_ERR_LEN, "%s", dec->message);
        free(rows);
        return -1;
    }
    png_structp png = dec->png;
    png_infop info = dec->info;
    int color_type = png_get_color_type(png, info);
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    png_set_expand(png);  // palette → RGB, gray < 8 bits → 8 bits, tRNS → alpha
    png_set_scale_16(png);  // 16 → 8 bits as round(v · 255 / 65535)
    int color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
    if (channels >= 3 && !color) png_set_gray_to_rgb(png);
    if (channels <= 2 && color) png_set_rgb_to_gray_fixed(png, 1, 29900, 58700);  // Rec. 601, as JPEG and Image.converted(to:)
    if ((channels == 1 || channels == 3) && has_alpha) png_set_strip_alpha(png);
    if ((channels == 2 || channels == 4) && !has_alpha) png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    if (png_get_rowbytes(png, info) != (size_t)png_get_image_width(png, info) * (size_t)channels) {
        snprintf(err, SENTIO_ERR_LEN, "unexpected row size after conversion");
        return -1;
    }
    rows = malloc(sizeof(png_bytep) * height);
    if (!rows) {
        snprintf(err, SENTIO_ERR_LEN, "out of memory");
        return -1;
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = out + (size_t)y * stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    return 0;
}

void sentio_png_close(sentio_png_decoder *dec) {
    if (!dec) return;
    if (dec->png) png_destroy_read_struct(&dec->png, dec->info ? &dec->info : NULL, NULL);
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
