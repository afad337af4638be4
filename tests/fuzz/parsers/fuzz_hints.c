/* Every way hints reach the engine, in its order of precedence: a hints
 * file (ROMIO_HINTS, TACIO_HINTS_FILE: "key value" lines), TACIO_HINTS
 * (key=value,...) and the program's MPI_Info ("key=value" lines here):
 * "FILE\0ENV\0INFO". Then what the engine prints and compares of them. */
#include "harness.h"

#include "exec/hints.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return MPI_Init(NULL, NULL); /* a singleton: MPI_Info needs MPI */
}

/* "key=value" lines as an MPI_Info (keys MPI_Info_set refuses are the
 * MPI's to refuse, and skipped). */
static MPI_Info info_of(char *lines)
{
    MPI_Info info;
    MPI_Info_create(&info);
    for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq || eq == line)
            continue;
        *eq = '\0';
        if (strlen(line) < MPI_MAX_INFO_KEY && strlen(eq + 1) < MPI_MAX_INFO_VAL)
            MPI_Info_set(info, line, eq + 1);
    }
    return info;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[3];
    if (!fuzz_split(data, size, '\0', part, 3))
        return 0;
    setenv("TACIO_HINTS_FILE", fuzz_file("hints", part[0]), 1);
    setenv("TACIO_HINTS", part[1], 1);
    MPI_Info info = info_of(part[2]);
    struct exec_hints h, again;
    if (hints_from(NULL, info, &h) == 0) {
        char text[8192];
        (void)hints_text(&h, text, sizeof text);
        (void)hints_digest(&h);
        if (hints_from(&h, MPI_INFO_NULL, &again) != 0) /* a file's hints, reused */
            abort();
    }
    MPI_Info_free(&info);
    free(part[0]);
    return 0;
}
