// The thread pool: workers wait for a new generation number, spinning for a while (the next
// job usually follows within microseconds) and then sleeping on a condition variable.
#include "sentio_kernels.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define SPIN_ROUNDS 20000  // about 0.3 ms of pause instructions

struct sentio_pool {
    int threads;
    pthread_t *workers;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_uint generation;
    atomic_int pending;
    atomic_int stop;
    sentio_task task;
    void *context;
    int job_workers;
};

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
    unsigned seen = 0;
    for (;;) {
        unsigned now;
        int spins = 0;
        while ((now = atomic_load_explicit(&pool->generation, memory_order_acquire)) == seen) {
            if (++spins < SPIN_ROUNDS) {
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
        if (arg.index < pool->job_workers) {
            pool->task(pool->context, arg.index, pool->job_workers);
            atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel);
        }
    }
}

sentio_pool *sentio_pool_create(int threads) {
    sentio_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->threads = threads < 1 ? 1 : threads;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    atomic_init(&pool->generation, 0);
    atomic_init(&pool->pending, 0);
    atomic_init(&pool->stop, 0);
    pool->workers = calloc((size_t)pool->threads, sizeof(pthread_t));
    for (int i = 1; i < pool->threads; i++) {
        worker_arg *arg = malloc(sizeof *arg);
        arg->pool = pool;
        arg->index = i;
        if (pthread_create(&pool->workers[i], NULL, worker_main, arg) != 0) {
            free(arg);
            pool->threads = i;  // run with the threads that started
            break;
        }
    }
    return pool;
}

void sentio_pool_run(sentio_pool *pool, sentio_task task, void *context, int workers) {
    if (workers > pool->threads) workers = pool->threads;
    if (workers <= 1) {
        task(context, 0, 1);
        return;
    }
    pool->task = task;
    pool->context = context;
    pool->job_workers = workers;
    atomic_store_explicit(&pool->pending, workers - 1, memory_order_release);
    pthread_mutex_lock(&pool->lock);
    atomic_fetch_add_explicit(&pool->generation, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    task(context, 0, workers);
    while (atomic_load_explicit(&pool->pending, memory_order_acquire) > 0) CPU_RELAX();
}

void sentio_pool_destroy(sentio_pool *pool) {
    if (!pool) return;
    atomic_store_explicit(&pool->stop, 1, memory_order_release);
    pthread_mutex_lock(&pool->lock);
    atomic_fetch_add_explicit(&pool->generation, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (int i = 1; i < pool->threads; i++) pthread_join(pool->workers[i], NULL);
    pthread_mutex_destroy(&pool->lock);
    pthread_cond_destroy(&pool->wake);
    free(pool->workers);
    free(pool);
}
