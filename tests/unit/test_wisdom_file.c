/* The wisdom file (src/base/wisdom.h): its lines round-trip; each rule of
 * the format refuses what breaks it; and jobs that update one file at once
 * lose none of each other's entries. */
#include "base/util.h"
#include "base/wisdom.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct wisdom_entry entry(uint64_t sig, const char *choice)
{
    struct wisdom_entry e = {.key = {.op = "write",
                                     .sig = sig,
                                     .hints = 0xabcdefull,
                                     .ranks = 4,
                                     .hosts = 1,
                                     .per_host = 4,
                                     .mpi = "Open_MPI_v4.1.4",
                                     .fs = "tmpfs",
                                     .machine = "vm"},
                             .when = 1764330000};
    wisdom_try(&e, "default", 0.0025);
    wisdom_try(&e, choice, 0.00125); /* the faster: the choice */
    return e;
}

static int parse(const char *text)
{
    struct wisdom w;
    int rc = wisdom_parse(text, strlen(text), &w);
    wisdom_free(&w);
    return rc;
}

static void test_round_trip(void)
{
    struct wisdom w = {0}, back;
    struct wisdom_entry a = entry(1, "romio:2"), b = entry(2, "bottleneck:4:nodes");
    CHECK(!wisdom_put(&w, &a) && !wisdom_put(&w, &b));
    CHECK(wisdom_try(&b, "default", 0.0001) && !strcmp(b.choice, "default")); /* now the fastest */
    b.left = 3;
    CHECK(!wisdom_put(&w, &b)); /* the same key: replaced */
    CHECK_EQ(w.n, 2);
    char text[4096] = "tacio-wisdom 1\n# a comment\n\n", line[1024];
    for (int i = 0; i < w.n; i++) {
        wisdom_line(&w.e[i], line, sizeof line);
        strcat(strcat(text, line), "\n");
    }
    CHECK(!wisdom_parse(text, strlen(text), &back));
    CHECK_EQ(back.n, 2);
    const struct wisdom_entry *found = wisdom_find(&back, &b.key);
    CHECK(found && !strcmp(found->choice, "default") && found->left == 3 && found->ntried == 2);
    CHECK(found && wisdom_tried(found, "bottleneck:4:nodes") == 1 && found->secs[1] == 0.00125 &&
          found->secs[0] == 0.0001);
    struct wisdom_key other = b.key;
    strcpy(other.machine, "elsewhere");
    CHECK(!wisdom_find(&back, &other));
    other = b.key;
    strcpy(other.op, "read");
    CHECK(!wisdom_find(&back, &other));
    wisdom_remove(&back, 0);
    CHECK_EQ(back.n, 1);
    wisdom_free(&w);
    wisdom_free(&back);
}

/* One valid line with one field's value replaced, or the field added. */
static int parse_with(const char *field, const char *value)
{
    struct wisdom_entry e = entry(7, "romio:1");
    char line[1024] = " ", text[2400], key[64];
    wisdom_line(&e, line + 1, sizeof line - 1); /* " op=... ": every field after a space */
    snprintf(key, sizeof key, " %s=", field);
    char *at = strstr(line, key);
    if (at)
        snprintf(text, sizeof text, "tacio-wisdom 1\n%.*s%s%s%s\n", (int)(at - line), line, key,
                 value, at + 1 + strcspn(at + 1, " "));
    else
        snprintf(text, sizeof text, "tacio-wisdom 1\n%s%s%s\n", line, key, value);
    return parse(text);
}

static void test_rules(void)
{
    CHECK(!parse(""));                 /* empty: no entries */
    CHECK(!parse("tacio-wisdom 1\n")); /* a header alone */
    CHECK(!parse("tacio-wisdom 2\n")); /* this version */
    CHECK(parse("tacio-wisdom 3\n"));  /* another version */
    CHECK(parse("tacio-wisdom\n"));
    CHECK(parse("op=write\n")); /* no header */
    CHECK(parse("tacio-wisdom 1\nop=write\n"));
    char nul[] = "tacio-wisdom 1\n\0";
    struct wisdom w;
    CHECK(wisdom_parse(nul, sizeof nul - 1, &w));
    CHECK(!parse_with("ranks", "4")); /* the line as it is */
    CHECK(!parse_with("choice", "default"));
    CHECK(parse_with("choice", "mccio:4:nodes")); /* well formed, but not among those tried */
    CHECK(parse_with("choice", "romio"));
    CHECK(parse_with("choice", "romio:0"));
    CHECK(parse_with("choice", "romio:2:more"));
    CHECK(parse_with("choice", "Romio:2"));
    CHECK(parse_with("op", "append"));
    CHECK(parse_with("sig", "12345678901234567")); /* 17 digits */
    CHECK(parse_with("sig", "ABC"));
    CHECK(parse_with("ranks", "-4"));
    CHECK(parse_with("ranks", "4x"));
    CHECK(!parse_with("tried", "romio:1@0.5"));
    CHECK(parse_with("tried", "romio:1@nan"));
    CHECK(parse_with("tried", "romio:1@-1"));
    CHECK(parse_with("tried", "romio:1@1e300"));
    CHECK(parse_with("tried", "romio:1"));
    CHECK(parse_with("tried", ""));
    CHECK(parse_with("tried", "romio:1@1,romio:1@2")); /* twice */
    CHECK(parse_with("tried", "default@1,mccio:2@2")); /* the choice not among them */
    CHECK(parse_with("tried", "romio:1@1,romio:2@1,romio:3@1,romio:4@1,romio:5@1,romio:6@1,"
                              "romio:7@1,romio:8@1,romio:9@1,romio:10@1,romio:11@1")); /* 11 */
    CHECK(parse_with("left", "11"));
    CHECK(parse_with("mpi", "has\"quote"));
    CHECK(parse_with("colour", "blue"));     /* an unknown field */
    CHECK(parse_with("ranks", "4 ranks=4")); /* a field twice */
    char longline[1200];
    memset(longline, 'a', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    CHECK(parse_with("machine", longline));
}

static struct wisdom_profile profile(const char *op, double scale)
{
    struct wisdom_profile p = {.key = {.op = "",
                                       .ranks = 4,
                                       .hosts = 1,
                                       .per_host = 4,
                                       .mpi = "Open_MPI_v4.1.4",
                                       .fs = "tmpfs",
                                       .machine = "vm"},
                               .fit = {9 * scale, 1.3 * scale, 20, 3, 2, 0.8},
                               .choosing = 0.00035,
                               .calls = 37,
                               .when = 1764330000};
    snprintf(p.key.op, sizeof p.key.op, "%s", op);
    return p;
}

/* A profile line with one field's text replaced (or, when field is not in
 * it, added), after a version 2 header. */
static int parse_profile_with(const char *field, const char *value)
{
    struct wisdom_profile p = profile("write", 1);
    char line[1024] = " ", text[2400], key[64];
    wisdom_profile_line(&p, line + 1, sizeof line - 1);
    snprintf(key, sizeof key, " %s=", field);
    char *at = strstr(line, key);
    if (at)
        snprintf(text, sizeof text, "tacio-wisdom 2\n%.*s%s%s%s\n", (int)(at - line), line, key,
                 value, at + 1 + strcspn(at + 1, " "));
    else
        snprintf(text, sizeof text, "tacio-wisdom 2\n%s%s%s\n", line, key, value);
    return parse(text);
}

/* Machine profiles: a line each, found by machine and direction alone
 * (not by shape or hints), replaced by the same machine's, written and
 * read back; each rule refuses what breaks it. */
static void test_profiles(void)
{
    struct wisdom w = {0}, back;
    struct wisdom_profile wr = profile("write", 1), rd = profile("read", 2);
    struct wisdom_entry e = entry(5, "romio:2");
    CHECK(!wisdom_put(&w, &e) && !wisdom_put_profile(&w, &wr) && !wisdom_put_profile(&w, &rd));
    wr.fit[0] = 11;
    CHECK(!wisdom_put_profile(&w, &wr)); /* the same machine and direction: replaced */
    CHECK_EQ(w.np, 2);
    char text[4096] = "tacio-wisdom 2\n", line[1024];
    wisdom_line(&w.e[0], line, sizeof line);
    strcat(strcat(text, line), "\n");
    for (int i = 0; i < w.np; i++) {
        wisdom_profile_line(&w.p[i], line, sizeof line);
        strcat(strcat(text, line), "\n");
    }
    CHECK(!wisdom_parse(text, strlen(text), &back));
    CHECK_EQ(back.n, 1);
    CHECK_EQ(back.np, 2);
    struct wisdom_key k = e.key; /* a shape's key finds its machine's profile */
    const struct wisdom_profile *found = wisdom_find_profile(&back, &k);
    CHECK(found && found->fit[0] == 11 && found->fit[1] == 1.3 && found->fit[5] == 0.8 &&
          found->choosing == 0.00035 && found->calls == 37 && found->when == 1764330000);
    strcpy(k.op, "read");
    found = wisdom_find_profile(&back, &k);
    CHECK(found && found->fit[0] == 18);
    strcpy(k.fs, "lustre");
    CHECK(!wisdom_find_profile(&back, &k));
    /* a version 1 file holds none */
    text[13] = '1';
    CHECK(parse(text));
    wisdom_free(&w);
    wisdom_free(&back);
    CHECK(!parse_profile_with("calls", "0"));
    CHECK(!parse_profile_with("fit", "0,0,0,0,0,0"));
    CHECK(parse_profile_with("fit", "1,2,3,4,5"));       /* five */
    CHECK(parse_profile_with("fit", "1,2,3,4,5,6,7"));   /* seven */
    CHECK(parse_profile_with("fit", "1,2,3,4,5,-6"));    /* negative */
    CHECK(parse_profile_with("fit", "1,2,3,4,5,nan"));   /* not a number */
    CHECK(parse_profile_with("fit", "1,2,3,4,5,1e300")); /* too large */
    CHECK(parse_profile_with("fit", "1,2,3,4,5,6,"));
    CHECK(parse_profile_with("choosing", "-1"));
    CHECK(parse_profile_with("choosing", "5000"));
    CHECK(parse_profile_with("calls", "-3"));
    CHECK(parse_profile_with("sig", "1")); /* a profile has no shape */
    CHECK(parse_profile_with("choice", "romio:1"));
    CHECK(parse_profile_with("fit", "1,1,1,1,1,1 fit=1,1,1,1,1,1")); /* twice */
    CHECK(parse_profile_with("op", "write op=read"));
    CHECK(parse_profile_with("when", "1 when=2"));      /* twice */
    CHECK(parse("tacio-wisdom 2\nprofile op=write\n")); /* fields missing */
    /* each field left out alone: refused */
    static const char *const each[] = {"op",      "ranks", "hosts",    "per_host", "mpi", "fs",
                                       "machine", "fit",   "choosing", "calls",    "when"};
    for (size_t i = 0; i < sizeof each / sizeof *each; i++) {
        struct wisdom_profile p = profile("write", 1);
        char line[1024], text[1100], key[32];
        wisdom_profile_line(&p, line, sizeof line);
        snprintf(key, sizeof key, " %s=", each[i]);
        char *at = strstr(line, key), *end = at ? strchr(at + 1, ' ') : NULL;
        CHECK(at != NULL);
        if (!at)
            continue;
        *at = '\0';
        snprintf(text, sizeof text, "tacio-wisdom 2\n%s%s\n", line, end ? end : "");
        CHECK(parse(text));
    }
    /* a profile the reader would refuse is not put (it would lose the file) */
    struct wisdom none = {0};
    struct wisdom_profile bad = profile("write", 1);
    bad.fit[2] = NAN;
    CHECK(wisdom_put_profile(&none, &bad) == TACIO_EINVAL);
    bad.fit[2] = 1, bad.choosing = 5000;
    CHECK(wisdom_put_profile(&none, &bad) == TACIO_EINVAL);
    CHECK_EQ(none.np, 0);
    wisdom_free(&none);
    CHECK(parse("tacio-wisdom 2\nprofile\n"));
}

/* A file is written as version 1 where it holds no profile (an older
 * tacio reads it still), as 2 where it does. */
static void test_written_version(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/wisdom_version.txt", dir);
    struct wisdom w = {0}, back;
    struct wisdom_entry e = entry(3, "romio:2");
    struct wisdom_profile p = profile("read", 1);
    bool missing;
    CHECK(!wisdom_put(&w, &e) && !wisdom_write(path, &w));
    FILE *f = fopen(path, "r");
    char head[32] = "";
    CHECK(f && fgets(head, sizeof head, f) && !strcmp(head, "tacio-wisdom 1\n"));
    if (f)
        fclose(f);
    CHECK(!wisdom_put_profile(&w, &p) && !wisdom_write(path, &w));
    f = fopen(path, "r");
    CHECK(f && fgets(head, sizeof head, f) && !strcmp(head, "tacio-wisdom 2\n"));
    if (f)
        fclose(f);
    CHECK(!wisdom_read(path, &back, &missing) && back.n == 1 && back.np == 1);
    wisdom_free(&back);
    wisdom_free(&w);
    unlink(path);
}

/* Each child adds its own entries, one update at a time: every entry of
 * every child is in the file at the end, and the file parses. */
static void test_concurrent(const char *dir)
{
    enum { CHILDREN = 6, EACH = 12 };
    char path[512];
    snprintf(path, sizeof path, "%s/wisdom_concurrent.txt", dir);
    unlink(path);
    pid_t pid[CHILDREN];
    for (int c = 0; c < CHILDREN; c++)
        if ((pid[c] = fork()) == 0) {
            int bad = 0;
            for (int i = 0; i < EACH; i++) {
                struct wisdom one = {0};
                struct wisdom_entry e = entry((uint64_t)(c * 1000 + i), "romio:1");
                struct wisdom_profile p = profile(i % 2 ? "read" : "write", c + 1);
                p.key.ranks = c + 1; /* each child its own machine */
                bad |= wisdom_put(&one, &e) || wisdom_put_profile(&one, &p) ||
                       wisdom_update(path, &one);
                wisdom_free(&one);
            }
            _exit(bad);
        }
    int failed = 0;
    for (int c = 0; c < CHILDREN; c++) {
        int status = 0;
        waitpid(pid[c], &status, 0);
        failed += !WIFEXITED(status) || WEXITSTATUS(status);
    }
    CHECK_EQ(failed, 0);
    struct wisdom w;
    bool missing;
    CHECK(!wisdom_read(path, &w, &missing) && !missing);
    CHECK_EQ(w.n, CHILDREN * EACH);
    CHECK_EQ(w.np, CHILDREN * 2); /* each child's two, its last of each kept */
    wisdom_free(&w);
    /* a file that does not parse is not overwritten by an update */
    FILE *f = fopen(path, "w");
    fputs("not wisdom\n", f);
    fclose(f);
    struct wisdom one = {0};
    struct wisdom_entry e = entry(1, "romio:1");
    wisdom_put(&one, &e);
    CHECK(wisdom_update(path, &one));
    CHECK(wisdom_read(path, &w, &missing));
    wisdom_free(&one);
    unlink(path);
    strcat(path, ".lock");
    unlink(path);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    char dir[] = "/tmp/tacio-wisdom-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_round_trip();
    test_rules();
    test_profiles();
    test_written_version(dir);
    test_concurrent(dir);
    rmdir(dir);
    return check_report("test_wisdom_file");
}
