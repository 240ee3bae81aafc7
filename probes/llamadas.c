/* llamadas: the cost of one system call, repeated N times in a tight loop (seed 001, extended).
 *
 * Usage: llamadas OPERATIONS N [CPU [MAX_MS [PATH]]]
 *   OPERATIONS one or more of these, separated by commas, run one after the other:
 *              getpid         syscall(SYS_getpid): enters the kernel every time (no libc cache)
 *              clock_gettime  clock_gettime(CLOCK_MONOTONIC) through the vDSO: no kernel entry (control)
 *              read           read(2) of 1 byte from /dev/zero (opened once, before the loop)
 *              open_close     open(2) + close(2) of PATH
 *              stat           stat(2) of PATH
 *   N          calls to time per operation (> 0)
 *   CPU        pin to this CPU with sched_setaffinity before anything else; -1 = do not pin
 *   MAX_MS     stop an operation's loop early once it has run this long (checked every 1024 calls, so
 *              a very slow kernel such as gVisor's does not take minutes); 0 = no limit (default)
 *   PATH       file for open_close and stat (default /dev/null, present in every container)
 *
 * Prints one line per operation on stdout (n = calls actually timed):
 *   llamadas operacion=OP n=N cpu=CPU ns_total=T ns_por_llamada=X ns_cpu_por_llamada=C pid=P niveles_pid=L
 * ns_por_llamada is wall-clock time (CLOCK_MONOTONIC) per call: it grows when another process takes the
 * CPU. ns_cpu_por_llamada is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID, user + kernel) per call:
 * on a shared machine it leaves out the time the thread was waiting for the CPU.
 * niveles_pid = how many PID namespaces the process sees itself in (fields of NSpid in
 * /proc/self/status; 1 = the host's; -1 = unknown, e.g. a kernel without NSpid).
 * A warm-up of min(N/10, 1000) calls runs before each timed loop. Exit 2 = bad usage, 3 = setup error.
 * Built static (probes/Makefile) so the same binary runs on the host and in any image. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum op { OP_GETPID, OP_CLOCK, OP_READ, OP_OPEN_CLOSE, OP_STAT };

static int usage(const char *self) {
    fprintf(stderr, "uso: %s OPERACIONES(getpid,clock_gettime,read,open_close,stat) N>0 [CPU|-1 [TOPE_MS [RUTA]]]\n",
            self);
    return 2;
}

static int pid_levels(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[512];
    int levels = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "NSpid:", 6) == 0) {
            levels = 0;
            char *save = NULL;
            for (char *tok = strtok_r(line + 6, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
                levels++;
            break;
        }
    }
    fclose(f);
    return levels;
}

/* One call of the operation; returns -1 on failure. Kept out of line so the loop is the same for all. */
static __attribute__((noinline)) int once(enum op op, int fd, const char *path) {
    struct timespec ts;
    struct stat st;
    char byte;
    switch (op) {
    case OP_GETPID:
        return (int)syscall(SYS_getpid) > 0 ? 0 : -1;
    case OP_CLOCK:
        return clock_gettime(CLOCK_MONOTONIC, &ts);
    case OP_READ:
        return read(fd, &byte, 1) == 1 ? 0 : -1;
    case OP_OPEN_CLOSE: {
        int f = open(path, O_RDONLY | O_CLOEXEC);
        if (f < 0) return -1;
        return close(f);
    }
    case OP_STAT:
        return stat(path, &st);
    }
    return -1;
}

static int parse_op(const char *name, enum op *op) {
    static const char *names[] = {"getpid", "clock_gettime", "read", "open_close", "stat"};
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0) {
            *op = (enum op)i;
            return 0;
        }
    return -1;
}

static long long now_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Time one operation; prints its line. Returns 0, or 3 on a failed call. */
static int bench(const char *name, enum op op, long n, long cpu, long max_ms, const char *path) {
    int fd = -1;
    if (op == OP_READ && (fd = open("/dev/zero", O_RDONLY | O_CLOEXEC)) < 0) {
        fprintf(stderr, "llamadas: no se pudo abrir /dev/zero: %s\n", strerror(errno));
        return 3;
    }
    long warmup = n / 10 < 1000 ? n / 10 : 1000;
    for (long i = 0; i < warmup; i++) {
        if (once(op, fd, path) != 0) {
            fprintf(stderr, "llamadas: la operación %s falló: %s\n", name, strerror(errno));
            return 3;
        }
    }
    long long limit = max_ms > 0 ? max_ms * 1000000LL : 0;
    long long cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID), start = now_ns(CLOCK_MONOTONIC), stop, cpu_stop;
    long done = 0, failures = 0;
    while (done < n) {
        long chunk = n - done < 1024 ? n - done : 1024;
        for (long i = 0; i < chunk; i++)
            failures += once(op, fd, path) != 0;
        done += chunk;
        if (limit && now_ns(CLOCK_MONOTONIC) - start >= limit) break;
    }
    stop = now_ns(CLOCK_MONOTONIC);
    cpu_stop = now_ns(CLOCK_THREAD_CPUTIME_ID);
    if (fd >= 0) close(fd);
    if (failures) {
        fprintf(stderr, "llamadas: %ld de %ld llamadas %s fallaron\n", failures, done, name);
        return 3;
    }
    long long total = stop - start;
    long long cpu_total = cpu_stop - cpu_start;
    printf("llamadas operacion=%s n=%ld cpu=%ld ns_total=%lld ns_por_llamada=%.3f ns_cpu_por_llamada=%.3f pid=%d "
           "niveles_pid=%d\n", name, done, cpu, total, (double)total / (double)done, (double)cpu_total / (double)done,
           (int)getpid(), pid_levels());
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) return usage(argv[0]);
    char *end = NULL;
    long n = strtol(argv[2], &end, 10);
    if (!end || *end || n <= 0) return usage(argv[0]);
    long cpu = -1, max_ms = 0;
    if (argc > 3) {
        cpu = strtol(argv[3], &end, 10);
        if (!end || *end || cpu < -1 || cpu >= CPU_SETSIZE) return usage(argv[0]);
    }
    if (argc > 4) {
        max_ms = strtol(argv[4], &end, 10);
        if (!end || *end || max_ms < 0) return usage(argv[0]);
    }
    const char *path = argc > 5 ? argv[5] : "/dev/null";
    /* Check every operation name before running any. */
    char ops[256];
    snprintf(ops, sizeof ops, "%s", argv[1]);
    enum op op;
    char *save = NULL;
    for (char *tok = strtok_r(ops, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (parse_op(tok, &op) != 0) return usage(argv[0]);
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            fprintf(stderr, "llamadas: no se pudo fijar la CPU %ld: %s\n", cpu, strerror(errno));
            return 3;
        }
    }
    snprintf(ops, sizeof ops, "%s", argv[1]);
    save = NULL;
    for (char *tok = strtok_r(ops, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        parse_op(tok, &op);
        int rc = bench(tok, op, n, cpu, max_ms, path);
        if (rc) return rc;
    }
    return 0;
}
