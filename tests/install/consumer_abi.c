/* A program built against an older tacio.h, whose struct tacio_stats had
 * fewer fields (here: up to st2_plan), run with today's library: the ABI
 * rule (the size field) must let it read what it knows and write nothing
 * past its struct. Prints "consumer_abi: ok" or why not. */
#include <tacio.h>

#include <stdio.h>
#include <string.h>

struct old_stats { /* an older header's struct */
    size_t size;
    char op[16];
    char strategy[32];
    double st1_access, st2_plan;
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *path = argc > 1 ? argv[1] : "consumer_abi.dat";
    struct {
        struct old_stats s;
        unsigned char canary[64];
    } mem;
    memset(&mem, 0xA5, sizeof mem);
    mem.s.size = sizeof mem.s;
    tacio_file_t fh;
    char data[100] = {0};
    int rc =
        tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    rc = rc ? rc : tacio_file_write_at_all(fh, 0, data, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    rc = rc ? rc : tacio_file_get_stats(fh, (struct tacio_stats *)&mem.s);
    if (fh)
        tacio_file_close(&fh);
    int intact = 1;
    for (size_t i = 0; i < sizeof mem.canary; i++)
        intact &= mem.canary[i] == 0xA5;
    int ok = !rc && intact && !strcmp(mem.s.op, "write_at_all") && mem.s.st1_access >= 0;
    printf("consumer_abi: %s (rc %d, canary %s, op '%.15s')\n", ok ? "ok" : "failed", rc,
           intact ? "intact" : "overwritten", mem.s.op);
    MPI_Finalize();
    return ok ? 0 : 1;
}
