// The thread pool. One thread at a time owns the workers (sentio_pool_acquire): it posts jobs
// by bumping a generation word that also carries the job's worker count, so a worker decides
// whether it takes part from the one word it read and never from a field a later job may have
// overwritten. While the pool is owned, workers spin briefly between jobs (an inference is a
// hundred small jobs back to back); once it is released they sleep until the next job.
#include "sentio_kernels.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define SPIN_ROUNDS 20000  // about 0.3 ms of pause instructions
#define WORKER_BITS 16u
#define WORKER_MASK ((1u << WORKER_BITS) - 1u)

struct sentio_pool {
    int threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    /// (job counter << 16) | workers of that job. A worker with index < workers runs it.
    _Atomic uint64_t generation;
    atomic_int pending;
    atomic_int stop;
    /// The owning thread's token (the address of a thread-local), or NULL.
    _Atomic(void *) owner;
    int depth;  // nested acquisitions by the owner (touched by the owner only)
    sentio_task task;
    void *context;
};

static _Thread_local char thread_token;

typedef struct {
    sentio_pool *pool;
    int index;
} worker_arg;

static void *worker_main(void *raw) {
    worker_arg arg = *(worker_arg *)raw;
    free(raw);
    sentio_pool *pool = arg.pool;
    // Generation 0 is the pool's state at creation: a worker that starts late must still see
    // every job (and the stop) posted since, so it does not read the counter here.
    uint64_t seen = 0;
    for (;;) {
        uint64_t now;
        int spins = 0;
        while ((now = atomic_load_explicit(&pool->generation, memory_order_acquire)) == seen) {
            // Spin only while someone owns the pool (more jobs are likely to follow at once).
            if (atomic_load_explicit(&pool->owner, memory_order_relaxed) != NULL && ++spins < SPIN_ROUNDS) {
                CPU_RELAX();
                continue;
            }
            pthread_mutex_lock(&pool->lock);
            while ((now = atomic_load_explicit(&pool->generation, memory_order_acquire)) == seen)
                pthread_cond_wait(&pool->wake, &pool->lock);
            pthread_mutex_unlock(&pool->lock);
            break;
        }
        seen = now;
        if (atomic_load_explicit(&pool->stop, memory_order_acquire)) return NULL;
        int workers = (int)(now & WORKER_MASK);
        // A worker that sits a job out reads nothing else: the next job may already be posted.
        if (arg.index < workers) {
            pool->task(pool->context, arg.index, workers);
            atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel);
        }
    }
}

sentio_pool *sentio_pool_create(int threads) {
    sentio_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->threads = threads < 1 ? 1 : (threads > (int)WORKER_MASK ? (int)WORKER_MASK : threads);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    atomic_init(&pool->generation, 0);
    atomic_init(&pool->pending, 0);
    atomic_init(&pool->stop, 0);
    atomic_init(&pool->owner, NULL);
    pool->workers = calloc((size_t)pool->threads, sizeof(pthread_t));
    for (int i = 1; i < pool->threads; i++) {
        worker_arg *arg = malloc(sizeof *arg);
        if (arg) {
            arg->pool = pool;
            arg->index = i;
        }
        if (!arg || pthread_create(&pool->workers[i], NULL, worker_main, arg) != 0) {
            free(arg);
            pool->threads = i;  // run with the threads that started
            break;
        }
    }
    return pool;
}

int sentio_pool_threads(const sentio_pool *pool) { return pool->threads; }

int sentio_pool_acquire(sentio_pool *pool) {
    void *me = &thread_token;
    if (atomic_load_explicit(&pool->owner, memory_order_relaxed) == me) {
        pool->depth++;
        return 1;
    }
    void *expected = NULL;
    if (!atomic_compare_exchange_strong_explicit(&pool->owner, &expected, me, memory_order_acquire, memory_order_relaxed))
        return 0;
    pool->depth = 1;
    return 1;
}

void sentio_pool_release(sentio_pool *pool) {
    if (atomic_load_explicit(&pool->owner, memory_order_relaxed) != &thread_token) return;
    if (--pool->depth == 0) atomic_store_explicit(&pool->owner, NULL, memory_order_release);
}

void sentio_pool_run(sentio_pool *pool, sentio_task task, void *context, int workers) {
    if (workers > pool->threads) workers = pool->threads;
    // A caller that does not own the pool runs the job alone: two submitters can never post
    // jobs over each other.
    int owned = atomic_load_explicit(&pool->owner, memory_order_relaxed) == &thread_token;
    if (workers <= 1 || !owned) {
        task(context, 0, 1);
        return;
    }
    pool->task = task;
    pool->context = context;
    atomic_store_explicit(&pool->pending, workers - 1, memory_order_release);
    pthread_mutex_lock(&pool->lock);
    uint64_t counter = (atomic_load_explicit(&pool->generation, memory_order_relaxed) >> WORKER_BITS) + 1;
    atomic_store_explicit(&pool->generation, (counter << WORKER_BITS) | (uint64_t)workers, memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    task(context, 0, workers);
    while (atomic_load_explicit(&pool->pending, memory_order_acquire) > 0) CPU_RELAX();
}

void sentio_pool_destroy(sentio_pool *pool) {
    if (!pool) return;
    atomic_store_explicit(&pool->stop, 1, memory_order_release);
    pthread_mutex_lock(&pool->lock);
    uint64_t counter = (atomic_load_explicit(&pool->generation, memory_order_relaxed) >> WORKER_BITS) + 1;
    atomic_store_explicit(&pool->generation, counter << WORKER_BITS, memory_order_release);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i < pool->threads; i++) pthread_join(pool->workers[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    free(pool->workers);
    free(pool);
}
