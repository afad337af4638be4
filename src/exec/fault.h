/* Fault injection for the tests: TACIO_FAULT=op:rank:nth[:errno] makes the
 * nth operation `op` on `rank` fail with errno (EIO by default), or, with
 * a negative errno, take that many milliseconds longer and succeed. Ops:
 * pwrite, pread, open, nodeagg (a host leader's allocation), hosts (the
 * open's run-time discovery of hosts, names and memory). */
#ifndef TACIO_EXEC_FAULT_H
#define TACIO_EXEC_FAULT_H

/* Reads TACIO_FAULT at each open (the tests change it between files); the
 * nth operation counts from there. */
void fault_arm(void);
/* 0, or the errno to fail this operation with (a slow one sleeps first). */
int fault_check(const char *op, int rank);

#endif
