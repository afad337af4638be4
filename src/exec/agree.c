#include "agree.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int mpi_class_of(int code)
{
    switch (code) {
    case TACIO_ENOMEM:
        return MPI_ERR_NO_MEM;
    case TACIO_EIO:
        return MPI_ERR_IO;
    case TACIO_EUNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case TACIO_ENOSPC:
        return MPI_ERR_NO_SPACE;
    case TACIO_EREADONLY:
        return MPI_ERR_READ_ONLY;
    case TACIO_EACCESS:
        return MPI_ERR_ACCESS;
    case TACIO_ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case TACIO_EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case TACIO_EAMODE:
        return MPI_ERR_AMODE;
    case TACIO_ECOUNT:
        return MPI_ERR_COUNT;
    case TACIO_EDATAREP:
        return MPI_ERR_UNSUPPORTED_DATAREP;
    case TACIO_ETYPE:
        return MPI_ERR_TYPE;
    case TACIO_ECOMM:
        return MPI_ERR_OTHER;
    default: /* TACIO_EINVAL, TACIO_ERANGE */
        return MPI_ERR_ARG;
    }
}

static int code_of_errno(int err)
{
    switch (err) {
    case ENOSPC:
    case EDQUOT:
        return TACIO_ENOSPC;
    case EROFS:
        return TACIO_EREADONLY;
    case EACCES:
    case EPERM:
        return TACIO_EACCESS;
    case ENOENT:
        return TACIO_ENOENT;
    case EEXIST:
        return TACIO_EEXIST;
    case ENOMEM:
        return TACIO_ENOMEM;
    default:
        return TACIO_EIO;
    }
}

int fail_errno(int err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tacio_fail(code_of_errno(err), "%s: %s", msg, strerror(err));
}

#define AGREED "tacio: rank " /* how an agreed message begins */

/* Every rank learns the first failing rank's code and message. */
static int agreed_failure(MPI_Comm comm, int rank, int first, int local)
{
    struct {
        int code;
        char msg[500];
    } e = {0};
    if (rank == first) {
        e.code = local;
        const char *last = tacio_last_error();
        if (!strncmp(last, AGREED, strlen(AGREED))) /* agreed before: keep its message */
            snprintf(e.msg, sizeof e.msg, "%s", last);
        else
            snprintf(e.msg, sizeof e.msg, AGREED "%d: %s", rank, last);
    }
    /* a rank that cannot hear the failing rank still knows that some rank
     * failed (the reduction said so): it fails too, not succeeds */
    if (MPI_Bcast(&e, sizeof e, MPI_BYTE, first, comm) != MPI_SUCCESS || !e.code)
        return tacio_fail(TACIO_ECOMM, "rank %d failed, and its error could not be told", first);
    return tacio_fail(e.code, "%s", e.msg);
}

int agree_max(MPI_Comm comm, int local, int64_t *vals, int n)
{
    /* A failing rank r sends INT64_MAX - r: the lowest failing rank wins.
     * The rank is asked for only then (a steady loop's calls are ~2 us). */
    int rank = 0;
    if (local)
        MPI_Comm_rank(comm, &rank);
    int64_t in[AGREE_MAX_VALS + 1] FILLED_BEFORE_READ, out[AGREE_MAX_VALS + 1] FILLED_BEFORE_READ;
    n = n < AGREE_MAX_VALS ? n : AGREE_MAX_VALS;
    in[0] = local ? INT64_MAX - rank : 0;
    for (int i = 0; i < n; i++)
        in[i + 1] = vals[i];
    if (MPI_Allreduce(in, out, 1 + n, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return tacio_fail(TACIO_ECOMM, "the agreement on errors failed");
    for (int i = 0; i < n; i++)
        vals[i] = out[i + 1];
    if (!out[0])
        return 0;
    MPI_Comm_rank(comm, &rank);
    return agreed_failure(comm, rank, (int)(INT64_MAX - out[0]), local);
}

int agree(MPI_Comm comm, int local)
{
    return agree_max(comm, local, NULL, 0);
}

/* ---- the file API's error codes ---- */

/* MPICH 4.0.2 gives codes added to a predefined class no "dynamic" mark, so
 * MPI_Error_string shows an unrelated internal message for them. Probe once
 * whether a dynamic code keeps its string; if not, make the code the way
 * MPICH's own ROMIO makes its I/O errors' codes (MPIR_Err_create_code, an
 * exported symbol of libmpich: MPI_Error_string gives the class's text,
 * then the message in the error stack), and where that is missing too,
 * return the class itself. */
static bool dynamic_works;
static pthread_once_t dynamic_once = PTHREAD_ONCE_INIT;
typedef int (*mpich_create_fn)(int lastcode, int fatal, const char fcname[], int line,
                               int error_class, const char generic_msg[], const char specific_msg[],
                               ...);
static mpich_create_fn mpich_create;

static void probe_dynamic_codes(void)
{
    int code, len;
    char s[MPI_MAX_ERROR_STRING] = "";
    dynamic_works = MPI_Add_error_code(MPI_ERR_OTHER, &code) == MPI_SUCCESS &&
                    MPI_Add_error_string(code, "tacio probe") == MPI_SUCCESS &&
                    MPI_Error_string(code, s, &len) == MPI_SUCCESS && !strcmp(s, "tacio probe");
    if (!dynamic_works)
        *(void **)&mpich_create = dlsym(RTLD_DEFAULT, "MPIR_Err_create_code");
}

/* An MPICH code of class cls whose string carries msg, or cls. "**fail" is
 * a generic text MPICH knows for any class (an unknown one loses the
 * message); the error stack's line reads "tacio(0): MSG". */
static int mpich_code(int cls, const char *msg)
{
    int code = mpich_create(MPI_SUCCESS, 0 /* recoverable */, "tacio", 0, cls, "**fail", "%s", msg);
    int got = -1;
    return MPI_Error_class(code, &got) == MPI_SUCCESS && got == cls ? code : cls;
}

/* Codes returned lately with their messages (tacio_error_get_string's), and per
 * MPI class a ring of dynamic codes reused in turn, so that a long run of
 * failing calls does not exhaust the MPI's table of error codes: a code
 * keeps its message until its class has failed RING more times. */
#define RECENT 16
#define RING 8
#define NCLASSES 64
static struct {
    int code;
    char msg[512];
} recent[RECENT];
static int nrecent;
static struct {
    int codes[RING], next;
} rings[NCLASSES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* files on several threads */

static void remember(int code, const char *msg)
{
    int k = nrecent++ % RECENT;
    recent[k].code = code;
    snprintf(recent[k].msg, sizeof recent[k].msg, "%s", msg);
}

/* A dynamic code of class cls showing msg, or cls itself when the MPI
 * cannot keep a message on one. */
static int code_for(int cls, const char *msg)
{
    pthread_once(&dynamic_once, probe_dynamic_codes);
    if (!dynamic_works && mpich_create)
        return mpich_code(cls, msg);
    if (!dynamic_works || cls < 0 || cls >= NCLASSES)
        return cls;
    int *slot = &rings[cls].codes[rings[cls].next++ % RING];
    if (!*slot && MPI_Add_error_code(cls, slot) != MPI_SUCCESS)
        return *slot = 0, cls;
    char shown[MPI_MAX_ERROR_STRING]; /* Open MPI refuses longer strings (MPI_ERR_ARG) */
    snprintf(shown, sizeof shown, "%s", msg);
    MPI_Add_error_string(*slot, shown); /* a new string replaces the code's old one */
    return *slot;
}

/* tacio_error_get_string's answer for a positive (MPI) code: the message agreed
 * for it lately, else the MPI's own. */
static int resolve(int code, char *out, int *len)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (int i = 1; i <= RECENT && i <= nrecent && !found; i++) { /* newest first */
        int k = (nrecent - i) % RECENT;
        if ((found = recent[k].code == code))
            snprintf(out, TACIO_MAX_ERROR_STRING, "%s", recent[k].msg);
    }
    pthread_mutex_unlock(&lock);
    if (!found) {
        char s[MPI_MAX_ERROR_STRING] = "";
        int n = 0;
        if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
            return -1;
        snprintf(out, TACIO_MAX_ERROR_STRING, "%s", s);
    }
    *len = (int)strlen(out);
    return 0;
}

int api_result(int rc)
{
    if (!rc)
        return MPI_SUCCESS;
    error_set_resolver(resolve);
    pthread_mutex_lock(&lock);
    int code = code_for(mpi_class_of(rc), tacio_last_error());
    remember(code, tacio_last_error());
    pthread_mutex_unlock(&lock);
    return code;
}
