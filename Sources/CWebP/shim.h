// libwebp reports errors by return value (no longjmp), so Swift calls it directly; the
// demuxer's animation decoder gives the first frame of animated files.
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
