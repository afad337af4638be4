#include "arena.h"

#include <stdlib.h>

struct arena_chunk {
    struct arena_chunk *next;
    int64_t size, used;
    _Alignas(16) char data[];
};

#define FIRST_CHUNK (64 << 10)

static struct arena_chunk *chunk_new(int64_t size)
{
    struct arena_chunk *c = malloc(sizeof *c + (size_t)size);
    if (c)
        *c = (struct arena_chunk){NULL, size, 0};
    return c;
}

void *arena_alloc(struct arena *a, int64_t n)
{
    n = (n + 15) & ~(int64_t)15;
    struct arena_chunk *c = a->cur;
    while (c && c->size - c->used < n && c->next)
        c = c->next; /* the chunks after cur are unused since the reset */
    if (!c || c->size - c->used < n) {
        int64_t last = c ? c->size : FIRST_CHUNK / 2, size = 2 * last > n ? 2 * last : n;
        struct arena_chunk *fresh = chunk_new(size);
        if (!fresh)
            return NULL;
        a->reserved += size;
        if (c)
            c->next = fresh; /* c is the last chunk */
        else
            a->first = fresh;
        c = fresh;
    }
    a->cur = c;
    void *p = c->data + c->used;
    c->used += n;
    return p;
}

void arena_reset(struct arena *a)
{
    for (struct arena_chunk *c = a->first; c; c = c->next)
        c->used = 0;
    a->cur = a->first;
}

void arena_release(struct arena *a)
{
    for (struct arena_chunk *c = a->first, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    *a = (struct arena){0};
}
