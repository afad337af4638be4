/* Large arrays given back by one flattening and wanted again by the next.
 *
 * A library that builds a fresh datatype for every collective (PnetCDF's
 * wait_all builds an hindexed type of every request) has tacio flatten a
 * million blocks each call: the type's contents, the flat's offsets,
 * lengths and prefix sums, about 36 bytes a block. glibc hands blocks that
 * large to the kernel at free, so every call used to fault its arrays in
 * again, a page at a time (1.5-1.7 us a 4 KiB page on the machines here:
 * some 13 ns a block, more than the flattening's own work). While a tacio
 * file is open, such blocks are kept when freed and handed out again.
 *
 * Blocks are the C library's own (malloc'd): a kept block handed out may be
 * realloc'd or free()d like any other. Nothing is kept while no file is
 * open, and closing the last file frees what was kept, so a program that
 * has closed its files holds nothing more than without this. */
#ifndef TACIO_BASE_WARM_H
#define TACIO_BASE_WARM_H

#include <stddef.h>

/* At least bytes: a kept block that fits, or malloc's. */
void *warm_alloc(size_t bytes);
/* Keep p for a later warm_alloc while a file is open, or free it. */
void warm_free(void *p);
/* A file opened and closed: blocks are kept while any is open; the last
 * close frees them. */
void warm_open(void);
void warm_close(void);
/* Blocks kept now, and their bytes (tests). */
size_t warm_kept(size_t *bytes);

#endif
