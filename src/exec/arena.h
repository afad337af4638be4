/* Memory that lives with an open file: chunks allocated once, touched once,
 * handed out again after every reset and released at close. A round's
 * messages and staged data come from one (reset each round), so that no
 * round allocates from the C library, and no round pays page faults for
 * memory the previous one just gave back (glibc returns large blocks to the
 * kernel at free: every round used to fault its buffers in again). */
#ifndef TACIO_EXEC_ARENA_H
#define TACIO_EXEC_ARENA_H

#include <stdint.h>

struct arena_chunk;
struct arena {
    struct arena_chunk *first, *cur;
    int64_t reserved; /* bytes held in chunks */
};

/* n bytes (16-aligned), valid until the next reset; NULL when out of memory. */
void *arena_alloc(struct arena *a, int64_t n);
/* Everything handed out is free again; the chunks stay. */
void arena_reset(struct arena *a);
void arena_release(struct arena *a);

#endif
