/* A program built against an installed tacio: writes through the C API,
 * reads the bytes back with POSIX. Prints "consumer: N passed, M failed". */
#include <tacio.h>

#include <stdio.h>
#include <string.h>

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
    printf("consumer: %d passed, %d failed\n", ok, 4 - ok);
    MPI_Finalize();
    return ok == 4 ? 0 : 1;
}
