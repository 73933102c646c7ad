// Heap bytes in use, for the decoders' leak checks (the fuzz harness counts what libjpeg and
// libpng keep between inputs).
#include "sentio_codecs.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

size_t sentio_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks;
#else
    return 0;
#endif
}
