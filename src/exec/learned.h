/* auto's wisdom in a run (src/base/wisdom.h is the file): with tacio_wisdom
 * (or TACIO_WISDOM) naming a file, rank 0, which plans every call, reads
 * it at open; a call on a new shape whose key the file holds settled runs
 * the remembered choice at once and settles on it, without trials; a shape
 * whose trials settle is remembered, and rank 0 merges what the run
 * learned into the file at close. A shape that never repeats within a run
 * (a checkpoint) has its trials spread over runs: each run's first call of
 * it times the next candidate not yet timed, until all are. Nothing here is collective: the other
 * ranks learn that a choice was remembered from the plan's outcome, which
 * rank 0 broadcasts anyway. A file that cannot be used is ignored with one
 * warning on stderr, never an error of the program's. */
#ifndef TACIO_EXEC_LEARNED_H
#define TACIO_EXEC_LEARNED_H

#include "../base/wisdom.h"

#include <stdbool.h>
#include <stdint.h>

struct tacio_topo;

struct learned {
    char *path;           /* the wisdom file; NULL: none (or not rank 0) */
    struct wisdom known;  /* its entries at open, and what the run settled since */
    struct wisdom found;  /* what this run's trials settled, merged at close */
    struct wisdom_key at; /* the key's parts that hold for the whole file */
    bool unusable;        /* it could not be read at open: said once, and left alone */
    int64_t observed;     /* this file's calls the machine's fits took (coll.c fit_after) */
};

/* At open, on rank 0: the key's fixed parts (the job on topo, the file
 * system of descriptor fd), which also sign the machine's fitted model
 * (profile.h), and the file's entries (path "": no wisdom). */
void learned_open(struct learned *l, const char *path, const struct tacio_topo *topo, int fd);
/* At close: what the run learned, merged into the file. */
void learned_close(struct learned *l);
void learned_free(struct learned *l);

/* The key of a call: its direction, the shape's signature and the hints'
 * digest on the fixed parts. */
void learned_key(const struct learned *l, bool is_write, uint64_t sig, uint64_t hints,
                 struct wisdom_key *k);
/* The remembered choice for k, or NULL. */
const struct wisdom_entry *learned_find(const struct learned *l, const struct wisdom_key *k);
/* The trials of k settled within the run: its n candidates' choices and
 * seconds (the fastest is the choice). */
void learned_settled(struct learned *l, const struct wisdom_key *k, int n,
                     const char (*choice)[WISDOM_CHOICE], const double *secs);
/* The first call of k's shape in this run ran choice in secs: for a shape
 * whose calls do not repeat within a run (a checkpoint), one candidate
 * more timed of the `want` its trials time over runs. A choice already
 * timed (auto had no other left) times it again and settles k. Nothing
 * for a settled k. */
void learned_first_call(struct learned *l, const struct wisdom_key *k, const char *choice,
                        double secs, int want);

/* The machine's profile (wisdom.h): at open, fits of this process that
 * have seen no call start from the file's profile of their machine and
 * direction ([is_write]; fit NULL: none); at close, where this file's
 * calls fed them, the fits that saw calls in this run are what the run
 * learned (merged into the file with the rest). Under profile_lock. */
struct model_fit;
void learned_seed_fits(const struct learned *l, struct model_fit *fit);
void learned_keep_fits(struct learned *l, struct model_fit *fit);

#endif
