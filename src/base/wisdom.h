/* Wisdom: auto's learned choices, remembered across runs (FFTW's idea for
 * I/O). A text file of one line a choice, keyed by what the choice depends
 * on: the direction, the access shape's signature, the job's ranks, hosts
 * and ranks per host, the MPI library, the file system, the machine and the
 * hints. The format (docs/usage.md, "Wisdom"):
 *
 *   tacio-wisdom 2
 *   # comments
 *   op=write sig=... ranks=4 hosts=1 per_host=4 mpi=... fs=tmpfs machine=...
 *       hints=... choice=romio:2 left=0
 *       tried=default@0.0015,romio:2@0.0012,mccio:1@0.0019 when=1764330000
 *   (one line)
 *   profile op=write ranks=4 hosts=1 per_host=4 mpi=... fs=tmpfs machine=...
 *       fit=9.1,1.3,20,3,2,0.8 choosing=0.00035 calls=37 when=1764330000
 *   (one line: a machine profile, below)
 *
 * Version 1 files (no profiles) are read as they are; a file is written
 * as version 1 where it holds no profile, so that an older tacio still
 * reads it.
 * Any field in any order, each once; a file that breaks a rule is not used
 * at all (the caller warns), since a half-read file could be anything. The
 * engine reads it on rank 0 (the planner's rank) and updates it at close;
 * `tacio wisdom` lists, shows and forgets entries. No MPI here. */
#ifndef TACIO_BASE_WISDOM_H
#define TACIO_BASE_WISDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WISDOM_VERSION 2
#define WISDOM_MAX_BYTES (1 << 20) /* a longer file is not one we wrote */
#define WISDOM_MAX_ENTRIES 4096
#define WISDOM_TOKEN 64 /* mpi, fs, machine: at most 63 characters */
#define WISDOM_TRIED 10 /* candidates an entry times: the default and auto's 8 + 1 */
#define WISDOM_CHOICE 48

struct wisdom_key {
    char op[8]; /* "write" or "read" */
    uint64_t sig, hints;
    int64_t ranks, hosts, per_host;
    char mpi[WISDOM_TOKEN], fs[WISDOM_TOKEN], machine[WISDOM_TOKEN];
};

struct wisdom_entry {
    struct wisdom_key key;
    /* the fastest of those tried: "default" (romio on the hints as they
     * are), "independent" (independent I/O where the hints leave the path
     * to tacio), or STRATEGY:K, or STRATEGY:K:nodes (collective buffering
     * with K aggregators per host, node aggregation first) */
    char choice[WISDOM_CHOICE];
    /* candidates still to time: 0, settled (the choice is run); else the
     * shape's calls never repeated within a run, and each run times the
     * next candidate on its first call (trials spread over runs) */
    int64_t left;
    int ntried;
    char tried[WISDOM_TRIED][WISDOM_CHOICE]; /* the candidates timed, and their seconds */
    double secs[WISDOM_TRIED];
    int64_t when; /* seconds since the epoch */
};

/* A machine profile: auto's cost model fitted on one direction's calls on
 * one machine signature (src/plan/fit.h), so that a later run's first
 * calls are rated by what earlier runs measured. Its key has no shape and
 * no hints (sig and hints 0). fit: the model's terms' multipliers in
 * fit.h's order (shuffle, io, messages, fixed, gather, pieces); choosing:
 * the seconds auto's rating of its candidates took (0: not measured);
 * calls: how many calls the fits behind it saw. */
#define WISDOM_TERMS 6
struct wisdom_profile {
    struct wisdom_key key;
    double fit[WISDOM_TERMS];
    double choosing;
    int64_t calls, when;
};

struct wisdom {
    struct wisdom_entry *e;
    int n, cap;
    struct wisdom_profile *p;
    int np, pcap;
};

/* Parses a whole file's text (len bytes, NUL bytes included); on failure
 * *w is empty and the error (tacio_fail) names the line and the rule. */
int wisdom_parse(const char *text, size_t len, struct wisdom *w);
/* Reads path: a missing file is an empty wisdom (*missing set); anything
 * but a regular file of at most WISDOM_MAX_BYTES, or a bad one, fails. */
int wisdom_read(const char *path, struct wisdom *w, bool *missing);
/* Writes w to path atomically: a temporary file beside it, then rename. */
int wisdom_write(const char *path, const struct wisdom *w);
/* Merges learned into path's entries (a learned key replaces the file's; a
 * full file loses its oldest) under an exclusive lock on path.lock, so jobs
 * that share the file do not lose each other's entries. A file that cannot
 * be parsed is left as it is, and the merge fails. */
int wisdom_update(const char *path, const struct wisdom *learned);

const struct wisdom_entry *wisdom_find(const struct wisdom *w, const struct wisdom_key *k);
/* Adds e, or replaces the entry of its key. */
int wisdom_put(struct wisdom *w, const struct wisdom_entry *e);
void wisdom_remove(struct wisdom *w, int i);
void wisdom_free(struct wisdom *w);

/* The profile of k's machine and direction (k's sig and hints are not
 * read), or NULL. */
const struct wisdom_profile *wisdom_find_profile(const struct wisdom *w,
                                                 const struct wisdom_key *k);
/* Whether p is one a file may hold: every multiplier finite, from 0 to
 * below 1e9, choosing from 0 to below 1000 s, calls from 0 to 2^40. */
bool wisdom_profile_valid(const struct wisdom_profile *p);
/* Adds p, or replaces the profile of its machine and direction; a profile
 * that is not valid is refused (TACIO_EINVAL). */
int wisdom_put_profile(struct wisdom *w, const struct wisdom_profile *p);
/* p as its file line (no newline). */
void wisdom_profile_line(const struct wisdom_profile *p, char *buf, size_t cap);

/* Whether e (NULL: nothing remembered) is settled: its choice is run, no
 * candidate is left to time. */
static inline bool wisdom_settled(const struct wisdom_entry *e)
{
    return e && !e->left;
}
/* Where choice is in e's tried (its seconds: e->secs[i]), or -1. */
int wisdom_tried(const struct wisdom_entry *e, const char *choice);
/* Adds (or times again) choice at secs, and makes the fastest tried e's
 * choice; false when e has no room. */
bool wisdom_try(struct wisdom_entry *e, const char *choice, double secs);
/* e as its file line (no newline). */
void wisdom_line(const struct wisdom_entry *e, char *buf, size_t cap);
/* s with every character a token may not hold replaced by '_', cut to
 * cap - 1: an MPI's version string, a host name. */
void wisdom_token(const char *s, char *out, size_t cap);
/* Whether choice is one the file may hold ("default", "independent",
 * NAME:K[:nodes]); the strategy's and K's: *name (cap bytes), *k, *nodes. */
bool wisdom_choice_parse(const char *choice, char *name, size_t cap, int64_t *k, bool *nodes);

#endif
