/* The memory a control group leaves a process (src/base/memlimit.h), read
 * from a directory laid out as /sys/fs/cgroup is: v1 and v2, limits on the
 * group and above it, no limit, a usage over its limit, unreadable groups. */
#include "base/memlimit.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

/* root/dir/name holding text, with its directories made. */
static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, dir);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/%s/%s", root, dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* v1: the least of limit - usage over the group and its parents; the
 * mount's root says no limit (a number near 2^63). */
static void test_v1(void)
{
    put("memory", "memory.limit_in_bytes", "9223372036854771712\n");
    put("memory", "memory.usage_in_bytes", "5000000\n");
    put("memory/job", "memory.limit_in_bytes", "500\n");
    put("memory/job", "memory.usage_in_bytes", "400\n");
    put("memory/job/step", "memory.limit_in_bytes", "1000\n");
    put("memory/job/step", "memory.usage_in_bytes", "300\n");
    const char *self = "12:pids:/job/step\n4:memory:/job/step\n1:cpu,cpuacct:/job\n";
    CHECK_EQ(memlimit_free(root, self), 100); /* the parent's 500 - 400 */
    put("memory/job", "memory.limit_in_bytes", "9223372036854771712\n");
    CHECK_EQ(memlimit_free(root, self), 700); /* the step's own */
    put("memory/job/step", "memory.usage_in_bytes", "1200\n");
    CHECK_EQ(memlimit_free(root, self), 0); /* over its limit: nothing left */
    /* inactive page cache the kernel drops first counts free */
    put("memory/job/step", "memory.stat", "cache 900\ninactive_file 1\ntotal_inactive_file 600\n");
    CHECK_EQ(memlimit_free(root, self), 400); /* 1000 - (1200 - 600) */
    put("memory/job/step", "memory.stat", "total_inactive_file 5000\n");
    CHECK_EQ(memlimit_free(root, self), 1000); /* all of it cache */
    put("memory/job/step", "memory.stat", "");
    /* the controller among others on its line */
    CHECK_EQ(memlimit_free(root, "4:memory,hugetlb:/job/step\n"), 0);
    /* no group limits it, or no line names memory */
    put("memory/job/step", "memory.limit_in_bytes", "9223372036854771712\n");
    CHECK_EQ(memlimit_free(root, self), -1);
    CHECK_EQ(memlimit_free(root, "12:pids:/job/step\n1:cpu,cpuacct:/job\n"), -1);
    CHECK_EQ(memlimit_free(root, "4:memoryx:/job/step\n"), -1);
}

/* v2: memory.max ("max": none) and memory.current, the group and above. */
static void test_v2(void)
{
    put("slice/job", "memory.max", "max\n");
    put("slice/job", "memory.current", "10\n");
    put("slice", "memory.max", "2000\n");
    put("slice", "memory.current", "500\n");
    CHECK_EQ(memlimit_free(root, "0::/slice/job\n"), 1500);
    put("slice/job", "memory.max", "1200\n");
    CHECK_EQ(memlimit_free(root, "0::/slice/job\n"), 1190);
    put("slice", "memory.stat", "active_file 7\ninactive_file 400\n");
    CHECK_EQ(memlimit_free(root, "0::/slice/job\n"), 1190); /* the parent: 2000 - 100 */
    put("slice", "memory.current", "1500\n");
    CHECK_EQ(memlimit_free(root, "0::/slice/job\n"), 900); /* 2000 - (1500 - 400) */
    put("slice", "memory.current", "500\n");
    CHECK_EQ(memlimit_free(root, "0::/slice/job/\n"), 1190); /* a trailing slash */
    CHECK_EQ(memlimit_free(root, "0::/\n"), -1);             /* the root: no files */
}

/* A group not mounted here (a container's path) is no limit; a hybrid
 * system's v2 line without memory files falls to the v1 line. */
static void test_unreadable(void)
{
    CHECK_EQ(memlimit_free(root, "0::/not/here\n"), -1);
    CHECK_EQ(memlimit_free(root, "4:memory:/not/here\n"), -1);
    put("memory/hy", "memory.limit_in_bytes", "4096\n");
    put("memory/hy", "memory.usage_in_bytes", "96\n");
    CHECK_EQ(memlimit_free(root, "0::/user.slice\n4:memory:/hy\n"), 4000);
    CHECK_EQ(memlimit_free(root, ""), -1);
    CHECK_EQ(memlimit_free(root, "garbage without colons"), -1);
    put("memory/bad", "memory.limit_in_bytes", "lots\n");
    put("memory/bad", "memory.usage_in_bytes", "1\n");
    CHECK_EQ(memlimit_free(root, "4:memory:/bad"), -1); /* no newline, no number */
}

/* This process: whatever it is, a number of bytes or -1, never another
 * negative. */
static void test_self(void)
{
    CHECK(memlimit_free_self() >= -1);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/tacio-memlimit.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    test_v1();
    test_v2();
    test_unreadable();
    test_self();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    return check_report("test_memlimit");
}
