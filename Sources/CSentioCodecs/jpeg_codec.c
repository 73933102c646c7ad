// JPEG through libjpeg-turbo with setjmp/longjmp error recovery: libjpeg's default error
// handler calls exit(), which a library must never do.
#include "sentio_codecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

struct sentio_error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int strict;
    char message[SENTIO_ERR_LEN];
};

struct sentio_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct sentio_error_mgr err;
    struct jpeg_progress_mgr progress;
    int max_scans;
    int adobe_inverted;
};

static void sentio_error_exit(j_common_ptr cinfo) {
    struct sentio_error_mgr *mgr = (struct sentio_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, mgr->message);
    longjmp(mgr->jump, 1);
}

// Corrupt-data warnings (level -1) leave gray blocks in the picture; in strict mode they are
// errors, so a truncated file is reported instead of silently padded.
static void sentio_emit_message(j_common_ptr cinfo, int level) {
    struct sentio_error_mgr *mgr = (struct sentio_error_mgr *)cinfo->err;
    if (level < 0) {
        if (mgr->strict) {
            (*cinfo->err->format_message)(cinfo, mgr->message);
            longjmp(mgr->jump, 1);
        }
        cinfo->err->num_warnings++;
    }
}

static void sentio_output_message(j_common_ptr cinfo) { (void)cinfo; }

// Progressive files with absurd scan counts make libjpeg spin for minutes; bound them.
static void sentio_progress(j_common_ptr cinfo) {
    struct sentio_jpeg_decoder *dec = (struct sentio_jpeg_decoder *)cinfo;
    if (dec->cinfo.is_decompressor && dec->cinfo.input_scan_number > dec->max_scans) {
        snprintf(dec->err.message, SENTIO_ERR_LEN, "more than %d progressive scans", dec->max_scans);
        longjmp(dec->err.jump, 1);
    }
}

static void install_errors(struct sentio_error_mgr *mgr, j_common_ptr cinfo, int strict) {
    cinfo->err = jpeg_std_error(&mgr->pub);
    mgr->pub.error_exit = sentio_error_exit;
    mgr->pub.emit_message = sentio_emit_message;
    mgr->pub.output_message = sentio_output_message;
    mgr->strict = strict;
    mgr->message[0] = 0;
}

sentio_jpeg_decoder *sentio_jpeg_open(const uint8_t *data, size_t len, int max_scans, int strict,
                                      sentio_jpeg_info *info, char *err) {
    sentio_jpeg_decoder *dec = calloc(1, sizeof *dec);
    if (!dec) {
        snprintf(err, SENTIO_ERR_LEN, "out of memory");
        return NULL;
    }
    install_errors(&dec->err, (j_common_ptr)&dec->cinfo, strict);
    dec->max_scans = max_scans;
    if (setjmp(dec->err.jump)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", dec->err.message);
        jpeg_destroy_decompress(&dec->cinfo);
        free(dec);
        return NULL;
    }
    jpeg_create_decompress(&dec->cinfo);
    dec->progress.progress_monitor = sentio_progress;
    dec->cinfo.progress = &dec->progress;
    jpeg_mem_src(&dec->cinfo, data, (unsigned long)len);
    jpeg_save_markers(&dec->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&dec->cinfo, TRUE);
    dec->adobe_inverted = dec->cinfo.saw_Adobe_marker &&
        (dec->cinfo.jpeg_color_space == JCS_CMYK || dec->cinfo.jpeg_color_space == JCS_YCCK);
    info->width = (int)dec->cinfo.image_width;
    info->height = (int)dec->cinfo.image_height;
    info->components = dec->cinfo.num_components;
    switch (dec->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: info->color_model = SENTIO_JPEG_GRAY; break;
    case JCS_RGB: info->color_model = SENTIO_JPEG_RGB; break;
    case JCS_CMYK: info->color_model = SENTIO_JPEG_CMYK; break;
    case JCS_YCCK: info->color_model = SENTIO_JPEG_YCCK; break;
    default: info->color_model = SENTIO_JPEG_YCBCR; break;
    }
    info->progressive = dec->cinfo.progressive_mode ? 1 : 0;
    info->adobe_inverted = dec->adobe_inverted;
    return dec;
}

const uint8_t *sentio_jpeg_exif(sentio_jpeg_decoder *dec, size_t *len) {
    for (jpeg_saved_marker_ptr m = dec->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length >= 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            *len = m->data_length;
            return m->data;
        }
    }
    *len = 0;
    return NULL;
}

// CMYK to RGB (and gray), with the Adobe convention of inverted storage.
static void cmyk_row(const uint8_t *in, uint8_t *out, int width, int channels, int inverted) {
    for (int x = 0; x < width; x++) {
        int c = in[4 * x], m = in[4 * x + 1], y = in[4 * x + 2], k = in[4 * x + 3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        int r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255;
        if (channels == 1) {
            out[x] = (uint8_t)((r * 77 + g * 150 + b * 29 + 128) >> 8);
        } else {
            uint8_t *p = out + x * channels;
            p[0] = (uint8_t)r; p[1] = (uint8_t)g; p[2] = (uint8_t)b;
            if (channels == 4) p[3] = 255;
        }
    }
}

int sentio_jpeg_decode(sentio_jpeg_decoder *dec, uint8_t *out, size_t stride, int channels, char *err) {
    uint8_t *volatile cmyk = NULL;
    if (setjmp(dec->err.jump)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", dec->err.message);
        free(cmyk);
        jpeg_abort_decompress(&dec->cinfo);
        return -1;
    }
    int is_cmyk = dec->cinfo.jpeg_color_space == JCS_CMYK || dec->cinfo.jpeg_color_space == JCS_YCCK;
    if (is_cmyk) {
        dec->cinfo.out_color_space = JCS_CMYK;
    } else if (channels == 1) {
        dec->cinfo.out_color_space = JCS_GRAYSCALE;
    } else if (channels == 3) {
        dec->cinfo.out_color_space = JCS_EXT_RGB;
    } else {
        dec->cinfo.out_color_space = JCS_EXT_RGBA;
    }
    jpeg_start_decompress(&dec->cinfo);
    if (is_cmyk) {
        cmyk = malloc((size_t)dec->cinfo.output_width * 4);
        if (!cmyk) {
            snprintf(err, SENTIO_ERR_LEN, "out of memory");
            jpeg_abort_decompress(&dec->cinfo);
            return -1;
        }
    }
    while (dec->cinfo.output_scanline < dec->cinfo.output_height) {
        uint8_t *row = out + (size_t)dec->cinfo.output_scanline * stride;
        if (is_cmyk) {
            JSAMPROW rows[1] = {cmyk};
            jpeg_read_scanlines(&dec->cinfo, rows, 1);
            cmyk_row(cmyk, row, (int)dec->cinfo.output_width, channels, dec->adobe_inverted);
        } else {
            JSAMPROW rows[1] = {row};
            jpeg_read_scanlines(&dec->cinfo, rows, 1);
        }
    }
    jpeg_finish_decompress(&dec->cinfo);
    free(cmyk);
    return 0;
}

void sentio_jpeg_close(sentio_jpeg_decoder *dec) {
    if (!dec) return;
    jpeg_destroy_decompress(&dec->cinfo);
    free(dec);
}

int sentio_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                       int cmyk, int quality, int progressive, const uint8_t *app1, size_t app1_len,
                       uint8_t **out, size_t *out_len, char *err) {
    struct jpeg_compress_struct cinfo;
    struct sentio_error_mgr mgr;
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;
    install_errors(&mgr, (j_common_ptr)&cinfo, 0);
    if (setjmp(mgr.jump)) {
        snprintf(err, SENTIO_ERR_LEN, "%s", mgr.message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = channels;
    switch (channels) {
    case 1: cinfo.in_color_space = JCS_GRAYSCALE; break;
    case 3: cinfo.in_color_space = JCS_RGB; break;
    default: cinfo.in_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBX; break;
    }
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (app1 && app1_len > 0) jpeg_write_marker(&cinfo, JPEG_APP0 + 1, app1, (unsigned int)app1_len);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[1] = {(JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride)};
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_len = size;
    return 0;
}

void sentio_free(void *p) { free(p); }
