#ifndef SENTIO_CODECS_H
#define SENTIO_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Length of the error message buffers the functions below fill.
#define SENTIO_ERR_LEN 200

// MARK: JPEG (libjpeg-turbo)

/// Colour models a JPEG can store.
enum { SENTIO_JPEG_GRAY = 1, SENTIO_JPEG_RGB = 2, SENTIO_JPEG_YCBCR = 3, SENTIO_JPEG_CMYK = 4, SENTIO_JPEG_YCCK = 5 };

/// An open JPEG decoder: the header has been read, pixels not yet. Opaque to Swift.
typedef struct sentio_jpeg_decoder sentio_jpeg_decoder;

/// What the header says.
typedef struct {
    int width;
    int height;
    int components;      ///< components stored in the file (1, 3 or 4)
    int color_model;     ///< one of the SENTIO_JPEG_* colour models below
    int progressive;     ///< 1 for progressive (SOF2) files
    int adobe_inverted;  ///< 1 when an Adobe APP14 marker says CMYK is stored inverted
} sentio_jpeg_info;

/// Reads the header of `len` bytes at `data` (which must stay valid until close).
/// `max_scans` bounds progressive scans (corrupt files can carry thousands); `strict`
/// turns libjpeg's corrupt-data warnings into errors. Returns NULL and fills `err` on failure.
sentio_jpeg_decoder *sentio_jpeg_open(const uint8_t *data, size_t len, int max_scans, int strict,
                                      sentio_jpeg_info *info, char *err);

/// The EXIF payload (starting at "Exif\0\0") of the first APP1 Exif marker, or NULL.
const uint8_t *sentio_jpeg_exif(sentio_jpeg_decoder *dec, size_t *len);

/// Decodes into `out` (height rows of `stride` bytes) as 1 (gray), 3 (RGB) or 4 (RGBA) channels.
/// Returns 0 on success, -1 with `err` filled on failure.
int sentio_jpeg_decode(sentio_jpeg_decoder *dec, uint8_t *out, size_t stride, int channels, char *err);

/// Releases the decoder (always call it, after success or failure).
void sentio_jpeg_close(sentio_jpeg_decoder *dec);

/// Encodes `channels` = 1 (gray), 3 (RGB), 4 (RGBA, alpha dropped; or CMYK when `cmyk` is 1).
/// `app1` (may be NULL) is written as an APP1 marker. The output is malloc'd: free it with
/// sentio_free. Returns 0 on success, -1 with `err` filled on failure.
int sentio_jpeg_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                       int cmyk, int quality, int progressive, const uint8_t *app1, size_t app1_len,
                       uint8_t **out, size_t *out_len, char *err);

// MARK: PNG (libpng's simplified API)

typedef struct sentio_png_decoder sentio_png_decoder;

/// Reads the header of the PNG in memory. Returns NULL and fills `err` on failure.
/// `has_color` and `has_alpha` say whether the file has colour and transparency (palette files
/// with a tRNS chunk count as having alpha).
sentio_png_decoder *sentio_png_open(const uint8_t *data, size_t len, int *width, int *height,
                                    int *has_color, int *has_alpha, char *err);

/// Decodes into `out` as 1 (gray), 2 (gray+alpha), 3 (RGB) or 4 (RGBA) 8-bit channels; 16-bit
/// and palette files are converted by libpng. Transparent pixels are kept as stored (no background).
int sentio_png_decode(sentio_png_decoder *dec, uint8_t *out, size_t stride, int channels, char *err);

void sentio_png_close(sentio_png_decoder *dec);

/// Encodes 8-bit pixels with 1, 3 or 4 channels. Output freed with sentio_free.
int sentio_png_encode(const uint8_t *pixels, int width, int height, size_t stride, int channels,
                      uint8_t **out, size_t *out_len, char *err);

void sentio_free(void *p);

/// Bytes of the C heap in use (glibc; 0 elsewhere), for leak checks.
size_t sentio_heap_in_use(void);

#ifdef __cplusplus
}
#endif

#endif
