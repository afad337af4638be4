/* The differential fuzzer's program: seeded sequences of MPI-IO calls, the
 * same on every rank, built without tacio. Run once on the MPI alone and
 * once under the shim (tests/fuzz/run.sh); tests/fuzz/compare.py then
 * compares the two transcripts call by call.
 *
 * Every choice that makes a call erroneous is drawn from one generator all
 * ranks share, so an erroneous call is erroneous on every rank alike (an
 * MPI may hang when only some ranks fail a collective); what differs per
 * rank (offsets, data) follows from the rank by a closed form, and no two
 * ranks write the same byte in one call (overlapping writes are undefined).
 *
 * A transcript line per call, printed by rank 0 from every rank's result:
 *   SEQ OP NAME ARGS | c=CLASS,.. n=BYTES,.. p=POSITION,.. h=HASH,..
 * CLASS is MPI_Error_class of the return, BYTES the status count (-1 where
 * the call failed or moves no data), POSITION the individual file pointer
 * after the call (etype units), HASH the FNV-1a of the read buffer (holes
 * included: a read must leave them alone). ARGS may carry `doc=WHY`: a
 * call where tacio differs on purpose (docs/differences.md).
 * After each sequence: `SEQ end size=N hash=H`, the file read back with
 * POSIX (`absent` when delete-on-close removed it).
 *
 * usage: diff_app DIR SEED NSEQ NOPS STRATEGIES OUT
 *   STRATEGIES: comma-separated tacio_strategy values (plain MPI ignores
 *   tacio_ hints; the shim plans with them). */
#include <mpi.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank, nprocs;
static FILE *out;

/* ---- the shared generator (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int pick(int n) /* 0 .. n-1 */
{
    return (int)(rng_next() % (uint64_t)n);
}

static int chance(int percent)
{
    return pick(100) < percent;
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#define FNV0 0xcbf29ce484222325ull

/* ---- the state every rank knows alike ---- */

enum view_kind { VIEW_FLAT, VIEW_BLOCKS, VIEW_HOLES, NVIEW };

struct state {
    MPI_File fh;
    char path[512];
    int open, rdonly, wronly;
    enum view_kind view; /* last view that took (per plain MPI's idea) */
    int esize;           /* etype size of that view */
    int block;           /* etypes per rank per tile, blocked views */
    MPI_Offset disp;     /* displacement of that view */
    int external;        /* its data representation is external32 */
    int view_failed;     /* the last set_view failed: the view is the MPI's guess */
    MPI_Datatype etype;
    char **strategies;
    int nstrategies;
    unsigned char *written; /* the bytes successful writes put in the file (every
                               rank's: shared after each write call), a flag each */
    int64_t nwritten;       /* bytes of the file `written` covers */
};

/* ---- the bytes written: what the file must hold at the end ---- */

static void grow_written(struct state *s, int64_t size)
{
    if (size <= s->nwritten)
        return;
    unsigned char *w = realloc(s->written, (size_t)size);
    if (!w)
        MPI_Abort(MPI_COMM_WORLD, 3);
    memset(w + s->nwritten, 0, (size_t)(size - s->nwritten));
    s->written = w, s->nwritten = size;
}

/* Marks [at, at + len) as written by a call that succeeded. A byte offset
 * below 0 (a view whose displacement is negative, which OMPIO takes and
 * then "writes" through, failing inside) puts nothing in the file. */
static void mark_written(struct state *s, int64_t at, int64_t len)
{
    if (at < 0 || at + len > ((int64_t)1 << 30)) /* (writes here stay below 1 GiB) */
        return;
    grow_written(s, at + len);
    memset(s->written + at, 1, (size_t)len);
}

/* After a write call (every rank makes it): every rank's marks on every
 * rank, so that a read knows which bytes any rank wrote. */
static void share_written(struct state *s)
{
    int64_t n;
    MPI_Allreduce(&s->nwritten, &n, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    grow_written(s, n);
    if (n > 0)
        MPI_Allreduce(MPI_IN_PLACE, s->written, (int)n, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
}

static bool is_written(const struct state *s, int64_t at)
{
    return at >= 0 && at < s->nwritten && s->written[at];
}

/* The file is now `size` bytes (set_size, or a new file): what lay past
 * that is gone, and bytes there later are unwritten until written again. */
static void cut_written(struct state *s, int64_t size)
{
    if (size < s->nwritten)
        s->nwritten = size;
}

/* One call's results on this rank, gathered to rank 0. */
struct result {
    int64_t cls, bytes, pos;
    uint64_t hash;
    int64_t expect;   /* reads: the bytes before end-of-file; seeks to the end: the standard's
                       * position (-1: neither) */
    uint64_t valid;   /* reads: FNV-1a of those bytes, in the buffer's order */
    uint64_t posix;   /* reads: FNV-1a of the same bytes read from the file with POSIX */
    uint64_t written; /* reads: `valid` with the bytes no write put in the file as 0 */
};

static int err_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* The class's name: the MPIs number the classes differently. */
static const char *class_name(int cls)
{
#define C(x)                                                                                       \
    {                                                                                              \
        x, #x                                                                                      \
    }
    static const struct {
        int cls;
        const char *name;
    } names[] = {C(MPI_SUCCESS),
                 C(MPI_ERR_ARG),
                 C(MPI_ERR_COUNT),
                 C(MPI_ERR_TYPE),
                 C(MPI_ERR_BUFFER),
                 C(MPI_ERR_FILE),
                 C(MPI_ERR_AMODE),
                 C(MPI_ERR_ACCESS),
                 C(MPI_ERR_READ_ONLY),
                 C(MPI_ERR_NO_SUCH_FILE),
                 C(MPI_ERR_FILE_EXISTS),
                 C(MPI_ERR_IO),
                 C(MPI_ERR_NO_SPACE),
                 C(MPI_ERR_QUOTA),
                 C(MPI_ERR_UNSUPPORTED_DATAREP),
                 C(MPI_ERR_UNSUPPORTED_OPERATION),
                 C(MPI_ERR_NOT_SAME),
                 C(MPI_ERR_INFO_VALUE),
                 C(MPI_ERR_INFO_KEY),
                 C(MPI_ERR_INFO),
                 C(MPI_ERR_BAD_FILE),
                 C(MPI_ERR_FILE_IN_USE),
                 C(MPI_ERR_CONVERSION),
                 C(MPI_ERR_DUP_DATAREP),
                 C(MPI_ERR_NO_MEM),
                 C(MPI_ERR_INTERN),
                 C(MPI_ERR_OTHER),
                 C(MPI_ERR_UNKNOWN)};
#undef C
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].cls == cls)
            return names[i].name + (cls ? 8 : 4); /* ARG, COUNT, ...; SUCCESS */
    return "OTHER_CLASS";
}

static int64_t status_bytes(int rc, MPI_Status *st)
{
    MPI_Count n = -1;
    if (rc == MPI_SUCCESS)
        MPI_Get_elements_x(st, MPI_BYTE, &n);
    return n;
}

static int64_t position(struct state *s)
{
    MPI_Offset p = -1;
    if (s->open && MPI_File_get_position(s->fh, &p) != MPI_SUCCESS)
        p = -2;
    return p;
}

/* The line for one call: ARGS from every rank's results. All ranks wait
 * for all (an allgather): a call's effects on the file are complete before
 * any rank's next call, which may read the file's size. */
static void record(long seq, int op, const char *name, struct result *mine, const char *fmt, ...)
{
    struct result *all = malloc(sizeof *all * nprocs);
    MPI_Allgather(mine, sizeof *mine, MPI_BYTE, all, sizeof *mine, MPI_BYTE, MPI_COMM_WORLD);
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(out, "%ld %d %s ", seq, op, name);
        vfprintf(out, fmt, ap);
        va_end(ap);
        const char *key[] = {" | c=", " n=", " p=", " x=", " h=", " v=", " o=", " w="};
        for (int k = 0; k < 8; k++) {
            fputs(key[k], out);
            for (int r = 0; r < nprocs; r++) {
                const struct result *x = &all[r];
                int64_t v[] = {x->cls, x->bytes, x->pos, x->expect};
                if (k == 0)
                    fprintf(out, "%s%s", r ? "," : "", class_name((int)x->cls));
                else if (k >= 4)
                    fprintf(out, "%s%016llx", r ? "," : "",
                            (unsigned long long)(k == 4   ? x->hash
                                                 : k == 5 ? x->valid
                                                 : k == 6 ? x->posix
                                                          : x->written));
                else
                    fprintf(out, "%s%lld", r ? "," : "", (long long)v[k]);
            }
        }
        fputc('\n', out);
    }
    free(all);
}

/* ---- open, with hints ---- */

static const char *valid_hints[][2] = {
    {"cb_buffer_size", "65536"},
    {"cb_buffer_size", "1048576"},
    {"cb_nodes", "1"},
    {"cb_nodes", "2"},
    {"romio_cb_write", "enable"},
    {"romio_cb_write", "disable"},
    {"romio_cb_read", "automatic"},
    {"romio_ds_write", "disable"},
    {"striping_unit", "65536"},
    {"tacio_ranks_per_node", "1"},
    {"tacio_ranks_per_node", "2"},
    {"tacio_aggs_per_node", "2"},
};

/* Hints for one open; *doc names a hint tacio refuses on purpose. */
static MPI_Info open_hints(struct state *s, const char **doc)
{
    MPI_Info info;
    MPI_Info_create(&info);
    int n = pick(4);
    for (int i = 0; i < n; i++) {
        int h = pick((int)(sizeof valid_hints / sizeof *valid_hints));
        MPI_Info_set(info, valid_hints[h][0], valid_hints[h][1]);
    }
    MPI_Info_set(info, "tacio_strategy", s->strategies[pick(s->nstrategies)]);
    char v[32];
    snprintf(v, sizeof v, "rank%d", rank); /* differs across ranks; every MPI ignores it */
    MPI_Info_set(info, "access_style", chance(20) ? v : "read_mostly");
    if (chance(3)) {
        MPI_Info_set(info, "tacio_strategy", "no_such_strategy");
        *doc = "tacio_hint_invalid";
    } else if (nprocs > 1 && chance(3)) {
        MPI_Info_set(info, "tacio_aggs_per_node", rank ? "1" : "2");
        *doc = "tacio_hint_differs";
    }
    return info;
}

static int ompio(void);

static void do_open(struct state *s, long seq, int op)
{
    static const struct {
        int amode;
        const char *name;
    } modes[] = {
        {MPI_MODE_RDWR | MPI_MODE_CREATE, "rdwr|create"},
        {MPI_MODE_WRONLY | MPI_MODE_CREATE, "wronly|create"},
        {MPI_MODE_RDONLY, "rdonly"},
        {MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_APPEND, "rdwr|create|append"},
        {MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, "rdwr|create|delete"},
        {MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, "rdwr|create|excl"},
        {MPI_MODE_RDWR | MPI_MODE_RDONLY, "rdwr|rdonly"}, /* erroneous: MPI_ERR_AMODE */
        {MPI_MODE_RDWR, "rdwr"},
    };
    int m = pick((int)(sizeof modes / sizeof *modes));
    /* OMPIO's open with MPI_MODE_DELETE_ON_CLOSE hangs now and then at 2
     * ranks (one rank's open fails inside and closes the file, the other
     * waits in its open's barrier: seed 1001, sequences 95 and 191) */
    if (ompio() && nprocs > 1 && (modes[m].amode & MPI_MODE_DELETE_ON_CLOSE))
        m = 0;
    const char *doc = "";
    MPI_Info info = open_hints(s, &doc);
    int rc = MPI_File_open(MPI_COMM_WORLD, s->path, modes[m].amode, info, &s->fh);
    MPI_Info_free(&info);
    s->open = rc == MPI_SUCCESS;
    struct stat sb;
    if (s->open && stat(s->path, &sb) == 0 && sb.st_size == 0) /* new, or empty */
        cut_written(s, 0);
    if (s->open) {
        s->rdonly = !!(modes[m].amode & MPI_MODE_RDONLY);
        s->wronly = !!(modes[m].amode & MPI_MODE_WRONLY);
        s->view = VIEW_FLAT, s->esize = 1, s->etype = MPI_BYTE, s->disp = 0, s->view_failed = 0,
        s->external = 0;
    }
    struct result r = {err_class(rc), -1, position(s), 0, -1, 0, 0};
    record(seq, op, "open", &r, "mode=%s%s%s", modes[m].name, *doc ? " doc=" : "", doc);
}

static void do_close(struct state *s, long seq, int op)
{
    int rc = MPI_File_close(&s->fh);
    s->open = 0;
    struct result r = {err_class(rc), -1, -1, 0, -1, 0, 0};
    record(seq, op, "close", &r, "-");
}

/* ---- views ---- */

static MPI_Datatype etype_of(int k, int *size)
{
    MPI_Datatype t[] = {MPI_BYTE, MPI_INT, MPI_DOUBLE};
    MPI_Type_size(t[k], size);
    return t[k];
}

/* This rank's filetype: its `block` etypes of each tile of nprocs blocks,
 * once (BLOCKS) or twice with the other ranks' blocks between (HOLES). */
static MPI_Datatype filetype_of(enum view_kind v, MPI_Datatype et, int esize, int block)
{
    MPI_Datatype t, r;
    if (v == VIEW_FLAT) {
        MPI_Type_contiguous(1, et, &t);
        return t;
    }
    int reps = v == VIEW_HOLES ? 2 : 1;
    int displs[2] = {rank * block, (nprocs + rank) * block};
    MPI_Type_create_indexed_block(reps, block, displs, et, &t);
    MPI_Type_create_resized(t, 0, (MPI_Aint)reps * nprocs * block * esize, &r);
    MPI_Type_free(&t);
    return r;
}

static void do_set_view(struct state *s, long seq, int op)
{
    int ek = pick(3), esize, block = 1 + pick(8);
    MPI_Datatype et = etype_of(ek, &esize);
    enum view_kind v = (enum view_kind)pick(NVIEW);
    MPI_Offset disps[] = {0, 8, 24, 1000, -(MPI_Offset)esize * 8};
    int di = pick(5);
    int bad = pick(20); /* 0: uncommitted filetype; 1: filetype not of etypes */
    MPI_Datatype ft;
    const char *what = "ok";
    if (bad == 1 && esize > 1) {
        MPI_Type_contiguous(esize + 1, MPI_BYTE, &ft);
        what = "ragged";
    } else
        ft = filetype_of(v, et, esize, block);
    if (bad == 0)
        what = "uncommitted";
    else
        MPI_Type_commit(&ft);
    const char *rep = chance(5) ? "external32" : "native";
    int rc = MPI_File_set_view(s->fh, disps[di], et, ft, rep, MPI_INFO_NULL);
    MPI_Type_free(&ft);
    if (rc == MPI_SUCCESS)
        s->view = v, s->esize = esize, s->etype = et, s->block = block, s->disp = disps[di],
        s->external = rep[0] == 'e';
    s->view_failed = rc != MPI_SUCCESS;
    struct result r = {err_class(rc), -1, position(s), 0, -1, 0, 0};
    record(seq, op, "set_view", &r, "disp=%lld etype=%d view=%d block=%d type=%s rep=%s%s",
           (long long)disps[di], esize, (int)v, block, what, rep,
           disps[di] < 0 ? " err=negative_disp" : "");
}

/* ---- data calls ---- */

/* The buffer's layout in memory: etypes packed, or each followed by a
 * hole of one etype (a derived memory type). */
struct membuf {
    MPI_Datatype type;
    int count, holes;
    size_t bytes;
    unsigned char *p;
};

static void membuf_make(struct membuf *b, struct state *s, int count, int holes, int nullbuf,
                        long seq, int op, int fill)
{
    b->count = count, b->holes = holes;
    if (holes)
        MPI_Type_create_resized(s->etype, 0, 2 * (MPI_Aint)s->esize, &b->type);
    else
        MPI_Type_dup(s->etype, &b->type);
    MPI_Type_commit(&b->type);
    b->bytes = (size_t)(count > 0 ? count : 0) * s->esize * (holes ? 2 : 1);
    b->p = nullbuf ? NULL : malloc(b->bytes + 1);
    if (!b->p)
        return;
    for (size_t i = 0; i < b->bytes; i++) /* data differs by rank, call and byte */
        b->p[i] = fill ? (unsigned char)(seq * 131 + op * 17 + rank * 7 + i) : 0xEE;
}

static void membuf_free(struct membuf *b)
{
    MPI_Type_free(&b->type);
    free(b->p);
}

/* Where this rank's call goes, in etypes of the view: in a flat view each
 * rank its own run; in a blocked view every rank at the same view offset. */
static MPI_Offset offset_for(struct state *s, int kind, int count, MPI_Offset base)
{
    switch (kind) {
    case 0: /* ordinary */
        return s->view == VIEW_FLAT ? base + (MPI_Offset)rank * (count > 0 ? count : 1) : base;
    case 1:
        return -1 - base; /* negative, on every rank */
    default:
        /* far past anything (reads only); in a byte offset below 2^62
         * through every view here: a position that overflows one crashes
         * both MPIs' ROMIO (docs/differences.md; tacio refuses it, tests/unit/test_view) */
        return (MPI_Offset)1 << 48;
    }
}

enum data_op {
    D_WRITE_AT_ALL,
    D_READ_AT_ALL,
    D_WRITE_ALL,
    D_READ_ALL,
    D_WRITE_AT,
    D_READ_AT,
    NDATA
};
static const char *data_names[] = {"write_at_all", "read_at_all", "write_all",
                                   "read_all",     "write_at",    "read_at"};

/* Independent writes, one rank after the other: ROMIO's sieved
 * independent writes (romio321 of Open MPI 4.1.4) lose updates when ranks
 * rewrite interleaved bytes at once, which would make the baseline differ
 * from itself run to run. */
static int write_at_in_turn(struct state *s, MPI_Offset off, struct membuf *b, MPI_Status *st)
{
    int rc = MPI_SUCCESS;
    for (int r = 0; r < nprocs; r++) {
        if (r == rank)
            rc = MPI_File_write_at(s->fh, off, b->p, b->count, b->type, st);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return rc;
}

static int data_call(struct state *s, enum data_op d, MPI_Offset off, struct membuf *b,
                     MPI_Status *st)
{
    switch (d) {
    case D_WRITE_AT_ALL:
        return MPI_File_write_at_all(s->fh, off, b->p, b->count, b->type, st);
    case D_READ_AT_ALL:
        return MPI_File_read_at_all(s->fh, off, b->p, b->count, b->type, st);
    case D_WRITE_ALL:
        return MPI_File_write_all(s->fh, b->p, b->count, b->type, st);
    case D_READ_ALL:
        return MPI_File_read_all(s->fh, b->p, b->count, b->type, st);
    case D_WRITE_AT:
        return write_at_in_turn(s, off, b, st);
    default:
        return MPI_File_read_at(s->fh, off, b->p, b->count, b->type, st);
    }
}

static void reverse_bytes(unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        unsigned char t = b[i];
        b[i] = b[n - 1 - i];
        b[n - 1 - i] = t;
    }
}

/* The bytes a read at view offset `off` of `count` etypes finds before
 * end-of-file (the standard: the status holds the data actually read; the
 * filetypes here never go backwards, so the read stops at the first etype
 * past the end), and *posix the FNV-1a of those bytes read with POSIX:
 * the oracle, which trusts no MPI-IO layer. The file's size is POSIX's:
 * every earlier call is done. */
#define MAX_COUNT 64               /* the most etypes a data call moves here (48) */
static int64_t elem_at[MAX_COUNT]; /* readable_bytes: each element's byte in the file */

static int64_t readable_bytes(struct state *s, MPI_Offset off, int count, uint64_t *posix)
{
    struct stat sb;
    *posix = FNV0;
    int fd = open(s->path, O_RDONLY);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int64_t n = 0;
    for (int j = 0; j < count; j++) {
        MPI_Offset at;
        if (MPI_File_get_byte_offset(s->fh, off + j, &at) != MPI_SUCCESS || at >= sb.st_size)
            break;
        if (j < MAX_COUNT)
            elem_at[j] = at;
        int64_t left = sb.st_size - at, len = left < s->esize ? left : s->esize;
        unsigned char b[8];
        if (pread(fd, b, (size_t)len, at) != len)
            break;
        /* external32 is big-endian, memory is not; an element cut by the
         * end has no defined conversion (the MPIs differ): not compared */
        if (s->external && len == s->esize)
            reverse_bytes(b, (size_t)len);
        if (!s->external || len == s->esize)
            *posix = fnv(b, (size_t)len, *posix);
        n += len;
        if (left < s->esize)
            break;
    }
    close(fd);
    return n;
}

static void dump(long seq, int op, const struct membuf *b)
{
    fprintf(stderr, "dump seq %ld op %d rank %d:", seq, op, rank);
    for (size_t i = 0; b->p && i < b->bytes && i < 96; i++)
        fprintf(stderr, " %02x", b->p[i]);
    fputc('\n', stderr);
}

/* valid_hash with every byte that lies where no write put one taken as 0
 * (elem_at: readable_bytes ran for this read): ROMIO's stale bytes in a
 * gap read as what tacio leaves there. Through external32 (its bytes
 * reversed in the file) the same as valid_hash. */
static uint64_t written_hash(const struct membuf *b, const struct state *s, int64_t n)
{
    uint64_t h = FNV0;
    for (int64_t j = 0; b->p && n > 0 && j < MAX_COUNT; j++, n -= s->esize) {
        const unsigned char *e = b->p + j * s->esize * (b->holes ? 2 : 1);
        for (int64_t i = 0; i < (n < s->esize ? n : s->esize); i++) {
            unsigned char c = s->external || is_written(s, elem_at[j] + i) ? e[i] : 0;
            h = fnv(&c, 1, h);
        }
    }
    return h;
}

/* FNV-1a of the first `n` data bytes of the buffer, in element order. */
static uint64_t valid_hash(const struct membuf *b, int esize, int64_t n)
{
    uint64_t h = FNV0;
    for (int64_t i = 0; b->p && n > 0; i++, n -= esize)
        h = fnv(b->p + i * esize * (b->holes ? 2 : 1), (size_t)(n < esize ? n : esize), h);
    return h;
}

/* Where the view makes a data call differ on purpose (docs/differences.md): the view
 * left by a set_view that failed (OMPIO keeps part of it; tacio takes what
 * the MPI reports and refuses what it cannot serve). */
static const char *view_doc(const struct state *s)
{
    return s->view_failed ? " doc=view_after_error" : "";
}

/* Whether this is Open MPI's OMPIO (its default MPI-IO; run.sh picks
 * its ROMIO with OMPI_MCA_io from 2 ranks, where OMPIO's opens and
 * collectives hang now and then under this program). */
static int ompio(void)
{
#ifdef OPEN_MPI
    const char *io = getenv("OMPI_MCA_io");
    return !io || !strstr(io, "romio");
#else
    return 0;
#endif
}

/* Whether the MPI survives erroneous call d (a negative offset, or a
 * write to a read-only file). OMPIO (Open MPI 4.1.4) does not when d is a
 * collective: it lets the call through (success; a write lands
 * somewhere), and a later collective on another file hangs (its
 * MPI_File_sync's barrier, at 3 ranks). Both runs of one MPI make the same
 * choice; the other MPIs' runs give tacio's rule for collectives its test. */
static int erroneous_survives(enum data_op d)
{
    return !ompio() || d == D_WRITE_AT || d == D_READ_AT;
}

/* The call's arguments the standard calls erroneous, as " err=A+B" (the
 * comparator requires the shim to refuse such a call on every rank). */
static const char *erroneous(const struct state *s, int write, int negative_offset, int count)
{
    static char tag[96];
    const char *what[] = {
        negative_offset ? "negative_offset" : NULL, count < 0 ? "negative_count" : NULL,
        write && s->rdonly ? "write_rdonly" : NULL, !write && s->wronly ? "read_wronly" : NULL};
    tag[0] = 0;
    for (size_t i = 0; i < sizeof what / sizeof *what; i++)
        if (what[i])
            snprintf(tag + strlen(tag), sizeof tag - strlen(tag), "%s%s",
                     tag[0] ? "+" : " err=", what[i]);
    return tag;
}

static void do_data(struct state *s, long seq, int op)
{
    enum data_op d = (enum data_op)pick(NDATA);
    if (s->rdonly && (d == D_WRITE_AT_ALL || d == D_WRITE_ALL) && !erroneous_survives(d))
        d = d == D_WRITE_ALL ? D_READ_ALL : D_READ_AT_ALL;
    int write = d == D_WRITE_AT_ALL || d == D_WRITE_ALL || d == D_WRITE_AT;
    int at = d != D_WRITE_ALL && d != D_READ_ALL;
    int ck = pick(10), count = ck == 0 ? 0 : ck == 1 ? -1 : 1 + pick(48);
    int ok = pick(20), kind = !at ? 0 : ok == 0 ? 1 : (ok == 1 && !write) ? 2 : 0;
    if (kind == 1 && !erroneous_survives(d))
        kind = 0;
    /* through external32 (the MPI's own path, under the shim too) neither
     * a NULL buffer nor a memory type with holes: MPICH 4.0.2 aborts in
     * MPI_Pack_external on a NULL buffer even with count 0, and frees a
     * pointer it did not allocate writing a resized MPI_BYTE */
    int holes = !s->external && chance(30), nullbuf = count == 0 && !s->external && chance(50);
    MPI_Offset base = pick(4) ? pick(200) : 0;
    MPI_Offset off = offset_for(s, kind, count, base), start = off;
    if (!at && s->view == VIEW_FLAT) /* each rank's pointer to its own run */
        MPI_File_seek(s->fh, off, MPI_SEEK_SET);
    if (!at)
        MPI_File_get_position(s->fh, &start);
    struct membuf b;
    membuf_make(&b, s, count, holes, nullbuf, seq, op, write);
    uint64_t posix = 0;
    int64_t expect = write || kind == 1 ? -1 : readable_bytes(s, start, count, &posix);
    int64_t whole = s->external && expect > 0 ? expect - expect % s->esize : expect;
    MPI_Status st;
    memset(&st, 0xa5, sizeof st); /* a call must set it (ROMIO leaves a zero-count one) */
    int rc = data_call(s, d, off, &b, &st);
    for (int j = 0; write && rc == MPI_SUCCESS && j < count; j++) {
        MPI_Offset byte; /* (start: the explicit offset, or the pointer's before the call) */
        if (MPI_File_get_byte_offset(s->fh, start + j, &byte) == MPI_SUCCESS)
            mark_written(s, byte, s->esize);
    }
    if (write)
        share_written(s);
    struct result r = {err_class(rc), status_bytes(rc, &st),
                       position(s),   write || !b.p ? 0 : fnv(b.p, b.bytes, FNV0),
                       expect,        expect < 0 ? 0 : valid_hash(&b, s->esize, whole),
                       posix,         expect < 0 ? 0 : written_hash(&b, s, whole)};
    /* A read past the end leaves the pointer where the MPI put it (some
     * count the whole request): back to the start, the same in every run. */
    if (!at && expect >= 0 && expect < (int64_t)count * s->esize)
        MPI_File_seek(s->fh, start, MPI_SEEK_SET); /* (the record below says eof=1) */
    if (getenv("FUZZ_DUMP") && !write)             /* replaying: what the read left */
        dump(seq, op, &b);
    membuf_free(&b);
    int past_end = expect >= 0 && expect < (int64_t)count * s->esize, any_past_end;
    MPI_Allreduce(&past_end, &any_past_end, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    record(seq, op, data_names[d], &r, "offset=%s count=%d holes=%d null=%d base=%lld%s%s%s",
           kind == 0   ? "ok"
           : kind == 1 ? "negative"
                       : "huge",
           count, holes, nullbuf, (long long)base, any_past_end ? " eof=1" : "", view_doc(s),
           erroneous(s, write, kind == 1, count));
}

/* ---- the rest: pointers, sizes, sync ---- */

/* The bytes of this rank's view (its closed form: filetype_of) that lie
 * below file offset `size`. */
static int64_t view_bytes_below(const struct state *s, int64_t size)
{
    int64_t rel = size - s->disp;
    if (rel <= 0)
        return 0;
    if (s->view == VIEW_FLAT)
        return rel;
    int reps = s->view == VIEW_HOLES ? 2 : 1;
    int64_t block = (int64_t)s->block * s->esize, tile = (int64_t)reps * nprocs * block;
    int64_t bytes = rel / tile * reps * block, rest = rel % tile;
    for (int k = 0; k < reps; k++) {
        int64_t in = rest - (int64_t)(k * nprocs + rank) * block;
        bytes += in <= 0 ? 0 : in < block ? in : block;
    }
    return bytes;
}

/* Where MPI_SEEK_END puts the pointer, in the standard's words (the etype
 * at or after the last byte, holes of the view skipped; ROMIO's
 * ADIOI_Get_eof_offset): the view's etypes below the end of the file,
 * a partial one counted whole. -1 when there is no file to measure. */
static int64_t standard_end(const struct state *s)
{
    struct stat sb;
    if (stat(s->path, &sb) != 0)
        return -1;
    return (view_bytes_below(s, sb.st_size) + s->esize - 1) / s->esize;
}

/* A seek records in x where the standard puts a seek to the end (the
 * comparator takes it where the MPI answers otherwise: OMPIO counts the
 * file's bytes past the displacement, holes and all) and goes on from
 * there, and tags a seek to a negative position as erroneous. */
static void do_seek(struct state *s, long seq, int op)
{
    int whence[] = {MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END}, w = pick(3);
    MPI_Offset off = pick(10) ? pick(100) + rank : -1000; /* -1000: before the file */
    int64_t end = w == 2 && !s->external ? standard_end(s) : -1;
    int64_t from[] = {0, position(s), end};
    int negative = (w != 2 || end >= 0) && from[w] + off < 0, any_negative;
    MPI_Allreduce(&negative, &any_negative, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rc = MPI_File_seek(s->fh, off, whence[w]);
    struct result r = {err_class(rc), -1, position(s), 0, end < 0 ? -1 : end + off, 0, 0};
    record(seq, op, "seek", &r, "whence=%d off=%s%s", w, off < 0 ? "negative" : "ok",
           any_negative ? " err=negative_position" : "");
    if (end >= 0 && end + off >= 0) /* on from the standard's place, the same in every run */
        MPI_File_seek(s->fh, end + off, MPI_SEEK_SET);
}

static void do_size(struct state *s, long seq, int op)
{
    int k = pick(4), rc;
    if (k == 1 && s->wronly && ompio()) /* OMPIO fails it, then crashes in a write_all */
        k = 2;
    MPI_Offset size = pick(10) ? pick(5000) : -5;
    const char *name[] = {"set_size", "preallocate", "sync", "get_size"};
    if (k == 0) {
        rc = MPI_File_set_size(s->fh, size);
        if (rc == MPI_SUCCESS)
            cut_written(s, size);
    } else if (k == 1)
        rc = MPI_File_preallocate(s->fh, size);
    else if (k == 2)
        rc = MPI_File_sync(s->fh);
    else
        rc = MPI_File_get_size(s->fh, &size);
    struct result r = {
        err_class(rc), k == 3 && rc == MPI_SUCCESS ? size : -1, position(s), 0, -1, 0, 0};
    record(seq, op, name[k], &r, "size=%s", k < 2 && size < 0 ? "negative" : "ok");
}

/* ---- a sequence ---- */

/* The sequence's last word: the file's size and hash; `written`, the hash
 * with every byte no successful write put there taken as 0; `stale`, how
 * many such bytes are not 0. (Bytes no call wrote, in a gap a write past
 * the end opened, hold whatever the library left: ROMIO's buffers can put
 * stale bytes there, tacio's windows zero them; the standard leaves them
 * undefined. Where the hashes differ, the comparator compares `written`.) */
static void file_image(struct state *s, long seq)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return;
    int fd = open(s->path, O_RDONLY);
    if (fd < 0) {
        fprintf(out, "%ld end absent\n", seq);
        return;
    }
    unsigned char buf[65536];
    uint64_t h = FNV0, hw = FNV0;
    long long size = 0, stale = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        h = fnv(buf, (size_t)n, h);
        for (ssize_t i = 0; i < n; i++, size++) {
            unsigned char w = is_written(s, size) ? buf[i] : 0;
            stale += buf[i] != w;
            hw = fnv(&w, 1, hw);
        }
    }
    close(fd);
    fprintf(out, "%ld end size=%lld hash=%016llx written=%016llx stale=%lld\n", seq, size,
            (unsigned long long)h, (unsigned long long)hw, stale);
}

static void run_sequence(struct state *s, const char *dir, uint64_t seed, long seq, int nops)
{
    rng_state = seed * 0x2545f4914f6cdd1dull + (uint64_t)seq;
    snprintf(s->path, sizeof s->path, "%s/fuzz_%ld.dat", dir, seq);
    if (rank == 0)
        unlink(s->path);
    MPI_Barrier(MPI_COMM_WORLD);
    s->open = 0;
    cut_written(s, 0);
    /* No data moves through a view with a negative displacement, which the
     * standard calls erroneous: MPICH refuses it; OMPIO takes it, and its
     * collectives through it fail inside, report success and leave its
     * next MPI_File_sync hanging at 3 ranks. tests/shim's negview case
     * runs tacio's rule for it (the next collective fails, agreed). */
    for (int op = 0; op < nops; op++) {
        if (!s->open) {
            do_open(s, seq, op);
            continue;
        }
        int k = pick(100);
        if (k < 8)
            do_close(s, seq, op);
        else if (k < 20)
            do_set_view(s, seq, op);
        else if (k < 80 && s->disp < 0) /* see below */
            do_set_view(s, seq, op);
        else if (k < 80)
            do_data(s, seq, op);
        else if (k < 88)
            do_seek(s, seq, op);
        else
            do_size(s, seq, op);
    }
    if (s->open)
        do_close(s, seq, nops);
    file_image(s, seq);
    if (rank == 0 && !getenv("FUZZ_KEEP")) /* replaying: keep it to look at */
        unlink(s->path);
}

static int split_list(char *list, char ***items)
{
    int n = 1;
    for (char *p = list; *p; p++)
        n += *p == ',';
    *items = malloc(sizeof **items * n);
    n = 0;
    for (char *t = strtok(list, ","); t; t = strtok(NULL, ","))
        (*items)[n++] = t;
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc != 7) {
        if (rank == 0)
            fprintf(stderr, "usage: diff_app DIR SEED NSEQ NOPS STRATEGIES OUT\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct state s = {0};
    s.nstrategies = split_list(argv[5], &s.strategies);
    if (rank == 0 && !(out = fopen(argv[6], "w"))) {
        perror(argv[6]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) /* whole lines, for a run that hangs or crashes */
        setvbuf(out, NULL, _IOLBF, 0);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    uint64_t seed = strtoull(argv[2], NULL, 10);
    long nseq = atol(argv[3]);
    long first = 0, last = nseq - 1;
    const char *only = getenv("FUZZ_SEQ"); /* replay: "K" or "FIRST:LAST" */
    if (only && sscanf(only, "%ld:%ld", &first, &last) == 1)
        last = first;
    for (long q = first; q <= last; q++)
        run_sequence(&s, argv[1], seed, q, atoi(argv[4]));
    if (rank == 0)
        fclose(out);
    free(s.strategies);
    free(s.written);
    MPI_Finalize();
    return 0;
}
