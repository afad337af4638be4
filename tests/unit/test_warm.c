/* The warm pool (src/base/warm.h): large blocks freed while a file is open
 * are handed out again, small ones and those freed with no file open are
 * not kept, the pool is bounded, and the last close empties it. */
#include "base/warm.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define MB ((size_t)1 << 20)

/* Nothing is kept while no file is open. */
static void test_closed(void)
{
    void *p = warm_alloc(4 * MB);
    CHECK(p != NULL);
    warm_free(p);
    CHECK_EQ(warm_kept(NULL), 0);
}

/* A freed block comes back to a request it fits; a request far smaller
 * does not take it; the last close frees it. */
static void test_reuse(void)
{
    warm_open();
    char *p = warm_alloc(8 * MB);
    memset(p, 1, 8 * MB); /* touched: what the pool keeps warm */
    warm_free(p);
    size_t bytes;
    CHECK_EQ(warm_kept(&bytes), 1);
    CHECK(bytes >= 8 * MB);
    void *small = warm_alloc(MB); /* an eighth: not handed this block */
    CHECK(small != p);
    CHECK_EQ(warm_kept(NULL), 1);
    free(small);
    char *q = warm_alloc(6 * MB);
    CHECK(q == p);
    CHECK_EQ(q[6 * MB - 1], 1);
    CHECK_EQ(warm_kept(NULL), 0);
    q = realloc(q, 16 * MB); /* the C library's own block */
    CHECK(q != NULL);
    warm_free(q);
    warm_free(malloc(4096)); /* too small to keep */
    CHECK_EQ(warm_kept(NULL), 1);
    warm_open(); /* a second file */
    warm_close();
    CHECK_EQ(warm_kept(NULL), 1);
    warm_close();
    CHECK_EQ(warm_kept(NULL), 0);
}

/* Bounded: past its slots the pool keeps the largest blocks; it holds at
 * most a GiB, and no block past 256 MiB. */
static void test_bounded(void)
{
    warm_open();
    void *big = malloc(32 * MB);
    warm_free(big);
    for (int i = 0; i < 40; i++)
        warm_free(malloc(MB + (size_t)i * 4096));
    size_t n = warm_kept(NULL);
    CHECK(n >= 2 && n <= 16);
    CHECK(warm_alloc(30 * MB) == big); /* the largest was not displaced */
    free(big);
    warm_close();
    CHECK_EQ(warm_kept(NULL), 0);
    warm_open(); /* and at most a GiB (untouched blocks: mapped, not faulted) */
    for (int i = 0; i < 6; i++)
        warm_free(malloc(200 * MB));
    size_t bytes;
    CHECK_EQ(warm_kept(&bytes), 5);
    CHECK(bytes <= 1024 * MB);
    warm_free(malloc(300 * MB)); /* larger than any block kept */
    CHECK_EQ(warm_kept(NULL), 5);
    warm_close();
    CHECK_EQ(warm_kept(NULL), 0);
}

int main(void)
{
    test_closed();
    test_reuse();
    test_bounded();
    return check_report("test_warm");
}
