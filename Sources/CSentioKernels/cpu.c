#if defined(__linux__)
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "sentio_kernels.h"

int sentio_have_avx2(void) {
#if defined(__x86_64__) || defined(__i386__)
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return cached;
#else
    return 0;
#endif
}

int sentio_lower_thread_priority(int niceness) {
#if defined(__linux__)
    /* On Linux a nice value belongs to the thread (the kernel's task), named by its tid. */
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
#else
    (void)niceness;
    return -1;
#endif
}
