/* A program built against an installed tacio: writes through the C API,
 * reads the bytes back with POSIX, and plans a job through the plan API
 * that tacio.h brings along (libtacio.so holds it too), checking the
 * library it runs with is the one its header describes. Prints "consumer:
 * N passed, M failed". */
#include <tacio.h>

#include <stdio.h>
#include <string.h>

#define CHECKS 6

/* A cube on 8 ranks over two hosts, planned by ROMIO's rule. */
static int plans(void)
{
    struct tacio_topo *t = NULL;
    struct tacio_pattern *p = NULL;
    struct tacio_hints *h = NULL;
    struct tacio_plan *plan = NULL;
    struct tacio_fd_info fd;
    int ok = !tacio_topo_parse("flat:nodes=2,cores=4", &t) && !tacio_topo_place(t, "block", 8) &&
             !tacio_pattern_parse("cube:n=8", 8, &p) && !tacio_hints_new(&h) &&
             !tacio_plan_compute(p, t, h, &plan) && tacio_plan_get_nfds(plan) == 2 &&
             !tacio_plan_get_fd(plan, 1, &fd) && fd.end == 8 * 8 * 8 * 8;
    tacio_plan_free(plan);
    tacio_hints_free(h);
    tacio_pattern_free(p);
    tacio_topo_free(t);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *path = argc > 1 ? argv[1] : "consumer.dat";
    char data[64], back[64] = {0};
    for (int i = 0; i < 64; i++)
        data[i] = (char)('a' + i % 26);
    tacio_file_t fh;
    int ok = 0, rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                                     MPI_INFO_NULL, &fh);
    ok += rc == MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        ok += tacio_file_write_all(fh, data, 64, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok += tacio_file_close(&fh) == MPI_SUCCESS;
    }
    FILE *f = fopen(path, "rb");
    ok += f && fread(back, 1, 64, f) == 64 && !memcmp(back, data, 64);
    if (f)
        fclose(f);
    ok += plans();
    ok += tacio_api_get_version() == TACIO_API_VERSION;
    printf("consumer: %d passed, %d failed\n", ok, CHECKS - ok);
    MPI_Finalize();
    return ok == CHECKS ? 0 : 1;
}
