#include "warm.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/* The C library's (glibc, musl), declared here rather than from <malloc.h>,
 * which cannot follow the malloc macros SMPI's compiler puts before every
 * file. */
size_t malloc_usable_size(void *p);

/* Smaller blocks come warm from malloc's heap anyway; larger ones are
 * rare enough to give back. */
#define WARM_MIN ((size_t)256 << 10)
#define WARM_MAX ((size_t)256 << 20)
/* A million-block view and memory type free some ten arrays a call, 8 MB
 * or less each; ten million blocks, ten times that. */
#define WARM_SLOTS 16
#define WARM_TOTAL ((size_t)1 << 30)
/* A kept block serves a request of at least 1/WARM_FIT its size, so that a
 * small request does not take the block a large one will want. */
#define WARM_FIT 4

static struct {
    pthread_mutex_t lock;
    int open;     /* files open */
    int n;        /* blocks kept */
    size_t bytes; /* theirs */
    void *block[WARM_SLOTS];
    size_t size[WARM_SLOTS]; /* usable bytes of each */
} warm = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The kept block that fits bytes most closely (WARM_FIT), -1 if none. */
static int closest_fit(size_t bytes)
{
    int best = -1;
    for (int i = 0; i < warm.n; i++)
        if (warm.size[i] >= bytes && warm.size[i] / WARM_FIT <= bytes &&
            (best < 0 || warm.size[i] < warm.size[best]))
            best = i;
    return best;
}

static void *take(int i)
{
    void *p = warm.block[i];
    warm.bytes -= warm.size[i];
    warm.n--;
    warm.block[i] = warm.block[warm.n];
    warm.size[i] = warm.size[warm.n];
    return p;
}

void *warm_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes >= WARM_MIN / WARM_FIT) { /* no kept block serves a smaller one */
        pthread_mutex_lock(&warm.lock);
        int i = closest_fit(bytes);
        if (i >= 0)
            p = take(i);
        pthread_mutex_unlock(&warm.lock);
    }
    return p ? p : malloc(bytes);
}

static int smallest(void)
{
    int s = 0;
    for (int i = 1; i < warm.n; i++)
        if (warm.size[i] < warm.size[s])
            s = i;
    return s;
}

/* p kept; returns what to free instead: NULL, the smallest kept block p
 * displaced (the slots full), or p itself (no file open, a size not kept,
 * no larger than every kept block, or past the pool's bytes). */
static void *keep(void *p, size_t size)
{
    if (!warm.open || size < WARM_MIN || size > WARM_MAX)
        return p;
    bool full = warm.n == WARM_SLOTS;
    int i = full ? smallest() : warm.n;
    size_t out = full ? warm.size[i] : 0;
    if ((full && out >= size) || warm.bytes - out + size > WARM_TOTAL)
        return p;
    void *gone = full ? warm.block[i] : NULL;
    warm.n += !full;
    warm.block[i] = p;
    warm.size[i] = size;
    warm.bytes += size - out;
    return gone;
}

void warm_free(void *p)
{
    if (!p)
        return;
    size_t size = malloc_usable_size(p);
    if (size >= WARM_MIN) {
        pthread_mutex_lock(&warm.lock);
        p = keep(p, size);
        pthread_mutex_unlock(&warm.lock);
    }
    free(p);
}

void warm_open(void)
{
    pthread_mutex_lock(&warm.lock);
    warm.open++;
    pthread_mutex_unlock(&warm.lock);
}

void warm_close(void)
{
    void *gone[WARM_SLOTS];
    int n = 0;
    pthread_mutex_lock(&warm.lock);
    if (--warm.open == 0)
        while (warm.n)
            gone[n++] = take(warm.n - 1);
    pthread_mutex_unlock(&warm.lock);
    for (int i = 0; i < n; i++)
        free(gone[i]);
}

size_t warm_kept(size_t *bytes)
{
    pthread_mutex_lock(&warm.lock);
    size_t n = (size_t)warm.n, total = warm.bytes;
    pthread_mutex_unlock(&warm.lock);
    if (bytes)
        *bytes = total;
    return n;
}
