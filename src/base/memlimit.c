/* Memory left under this process's control group (memlimit.h). */
#include "memlimit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number in dir/name; -1 where the file cannot be read or says "max"
 * (v2's no limit). */
static int64_t read_bytes(const char *dir, const char *name)
{
    char path[4096], text[64] = "";
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *got = fgets(text, sizeof text, f);
    fclose(f);
    char *end;
    long long v = got ? strtoll(text, &end, 10) : -1;
    return got && end != text && v >= 0 ? (int64_t)v : -1;
}

/* The value of key in dir/memory.stat ("key value" lines); 0 where absent. */
static int64_t read_stat(const char *dir, const char *key)
{
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/memory.stat", dir);
    FILE *f = fopen(path, "r");
    size_t n = strlen(key);
    long long v = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ' ' && sscanf(line + n, "%lld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v > 0 ? (int64_t)v : 0;
}

/* v1 writes no limit as a number near 2^63 (rounded to its page size). */
#define NO_LIMIT_V1 ((int64_t)1 << 62)

/* One cgroup version's files: the limit, the usage, and the page cache its
 * usage counts that the kernel drops before it fails an allocation (the
 * inactive file pages: what MemAvailable counts free, and a container's
 * "working set" leaves out). */
struct files {
    const char *limit, *usage, *cache;
};
static const struct files V1 = {"memory.limit_in_bytes", "memory.usage_in_bytes",
                                "total_inactive_file"};
static const struct files V2 = {"memory.max", "memory.current", "inactive_file"};

/* The least limit - usage from dir up to top (a prefix of dir). */
static int64_t least_free(char *dir, size_t top, const struct files *v)
{
    int64_t best = -1;
    for (;;) {
        int64_t limit = read_bytes(dir, v->limit), usage = read_bytes(dir, v->usage);
        if (limit >= 0 && limit < NO_LIMIT_V1 && usage >= 0) {
            int64_t cache = read_stat(dir, v->cache);
            usage = usage > cache ? usage - cache : 0;
            int64_t left = limit > usage ? limit - usage : 0;
            best = best < 0 || left < best ? left : best;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || (size_t)(slash - dir) < top)
            return best;
        *slash = '\0';
    }
}

/* Whether a v1 line's controller list ("cpu,cpuacct") names memory. */
static int names_memory(const char *list, size_t len)
{
    for (const char *p = list; p < list + len;) {
        const char *comma = memchr(p, ',', (size_t)(list + len - p));
        size_t n = comma ? (size_t)(comma - p) : (size_t)(list + len - p);
        if (n == 6 && !memcmp(p, "memory", 6))
            return 1;
        p += n + 1;
    }
    return 0;
}

int64_t memlimit_free(const char *root, const char *self)
{
    char dir[4096];
    for (const char *line = self; line && *line;) {
        const char *eol = strchr(line, '\n'), *end = eol ? eol : line + strlen(line);
        const char *c1 = memchr(line, ':', (size_t)(end - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
        if (c2) {
            int v2 = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;
            int v1 = !v2 && names_memory(c1 + 1, (size_t)(c2 - c1 - 1));
            const char *mount = v2 ? "" : "/memory";
            int n = snprintf(dir, sizeof dir, "%s%s", root, mount);
            size_t top = (size_t)n;
            if ((v1 || v2) && n > 0 && (size_t)n + (size_t)(end - c2) < sizeof dir) {
                memcpy(dir + n, c2 + 1, (size_t)(end - c2 - 1));
                dir[n + (end - c2 - 1)] = '\0';
                size_t len = strlen(dir);
                while (len > top && dir[len - 1] == '/')
                    dir[--len] = '\0'; /* "0::/" is the root itself */
                int64_t left = least_free(dir, top, v2 ? &V2 : &V1);
                if (left >= 0)
                    return left;
            }
        }
        line = eol ? eol + 1 : NULL;
    }
    return -1;
}

int64_t memlimit_free_self(void)
{
    char self[8192];
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    size_t n = fread(self, 1, sizeof self - 1, f);
    fclose(f);
    self[n] = '\0';
    return memlimit_free("/sys/fs/cgroup", self);
}
