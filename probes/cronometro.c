/* cronometro: time one command from inside its environment (experiment 3).
 *
 * Usage: cronometro [--root DIR] [--pico NOMBRE] [--] PROGRAM [ARGS...]
 *
 * Forks, execs PROGRAM (after chroot(DIR) when --root is given), waits for it, and prints one line on
 * stderr:
 *     cronometro ns=<elapsed nanoseconds> estado=<exit status> cpu_ns=<CPU nanoseconds>
 * The clock (CLOCK_MONOTONIC) starts right before fork() and stops right after waitpid(), so the line
 * holds the cost of the work alone: whatever brought this program into the container (docker/podman
 * exec) is outside it. cpu_ns is the CPU time (user + system) PROGRAM and every descendant it waited for
 * used (getrusage(RUSAGE_CHILDREN) once PROGRAM is reaped: this program has no other child), in the
 * kernel's microseconds: the time the work ran, not the time it waited for a CPU. Exits with PROGRAM's
 * exit status (128+N if killed by signal N; 127 if exec failed). Built static so it runs inside any
 * image, even one without a libc.
 *
 * With --pico NOMBRE, while PROGRAM runs, every PEEK_MS this program looks at its descendants called
 * NOMBRE (/proc/PID/task/PID/children, then /proc/PID/comm) and adds to the line what their memory
 * reached: pico_kb (the largest VmHWM, /proc/PID/status), mmap_kb and mmap_rss_kb (the anonymous
 * mapping outside the heap that held the most resident memory, /proc/PID/smaps: its size and its
 * resident part at that moment) and heap_kb (the largest [heap], the memory brk() gave). A child's exit
 * still wakes this program at once (SIGCHLD through sigtimedwait), so the clock stops as without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PEEK_MS 25
#define MAX_DEPTH 6

struct peak {
    long hwm_kb, mmap_kb, mmap_rss_kb, heap_kb;
};

/* VmHWM of one process, in kB; -1 if unreadable. */
static long vm_hwm(pid_t pid) {
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    }
    fclose(f);
    return kb;
}

/* Its mappings: the anonymous one (no file, not the heap or a stack) with the most resident memory, and
 * the heap's size. */
static void read_smaps(pid_t pid, struct peak *p) {
    char path[64], line[512], name[256];
    unsigned long start, end, rss;
    int kind = 0; /* 1: anonymous mapping, 2: [heap], 0: anything else */
    long size_kb = 0;
    snprintf(path, sizeof path, "/proc/%d/smaps", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    while (fgets(line, sizeof line, f) != NULL) {
        name[0] = '\0';
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &start, &end, name) >= 2) {
            size_kb = (long)((end - start) / 1024);
            kind = name[0] == '\0' ? 1 : strcmp(name, "[heap]") == 0 ? 2 : 0;
            if (kind == 2 && size_kb > p->heap_kb) p->heap_kb = size_kb;
        } else if (kind == 1 && sscanf(line, "Rss: %lu kB", &rss) == 1 && (long)rss > p->mmap_rss_kb) {
            p->mmap_rss_kb = (long)rss;
            p->mmap_kb = size_kb;
        }
    }
    fclose(f);
}

/* Walk the descendants of pid and look at the ones called `name`. */
static void peek(pid_t pid, const char *name, struct peak *p, int depth) {
    char path[64], comm[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fgets(comm, sizeof comm, f) != NULL) {
            comm[strcspn(comm, "\n")] = '\0';
            if (strcmp(comm, name) == 0) {
                long hwm = vm_hwm(pid);
                if (hwm > p->hwm_kb) { /* it grew: see where its memory sits now */
                    p->hwm_kb = hwm;
                    read_smaps(pid, p);
                }
            }
        }
        fclose(f);
    }
    if (depth >= MAX_DEPTH) return;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    f = fopen(path, "r");
    if (f == NULL) return;
    int child;
    while (fscanf(f, "%d", &child) == 1) peek((pid_t)child, name, p, depth + 1);
    fclose(f);
}

static void usage(const char *self) {
    fprintf(stderr, "uso: %s [--root DIR] [--] PROGRAMA [ARGUMENTOS...]\n", self);
}

int main(int argc, char **argv) {
    const char *root = NULL;
    const char *watch = NULL;
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[i + 1];
            i += 2;
        } else if (strcmp(argv[i], "--pico") == 0 && i + 1 < argc) {
            watch = argv[i + 1];
            i += 2;
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    if (i >= argc) {
        usage(argv[0]);
        return 2;
    }

    sigset_t chld, before;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    if (watch != NULL) sigprocmask(SIG_BLOCK, &chld, &before); /* sigtimedwait wakes on the child's exit */
    struct peak seen = {-1, -1, -1, -1};
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cronometro: fork falló: %s\n", strerror(errno));
        return 125;
    }
    if (pid == 0) {
        if (watch != NULL) sigprocmask(SIG_SETMASK, &before, NULL); /* PROGRAM gets the mask we got */
        if (root != NULL && (chroot(root) != 0 || chdir("/") != 0)) {
            fprintf(stderr, "cronometro: chroot a %s falló: %s\n", root, strerror(errno));
            _exit(126);
        }
        execvp(argv[i], &argv[i]);
        fprintf(stderr, "cronometro: no se pudo ejecutar %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (watch != NULL) {
        const struct timespec tick = {0, PEEK_MS * 1000000L};
        for (;;) {
            pid_t done = waitpid(pid, &status, WNOHANG);
            if (done == pid) break;
            if (done < 0 && errno != EINTR) {
                fprintf(stderr, "cronometro: waitpid falló: %s\n", strerror(errno));
                return 125;
            }
            if (sigtimedwait(&chld, NULL, &tick) < 0) peek(pid, watch, &seen, 0); /* the tick, not an exit */
        }
    } else {
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                fprintf(stderr, "cronometro: waitpid falló: %s\n", strerror(errno));
                return 125;
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long ns = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    struct rusage used;
    long long cpu_ns = -1;
    if (getrusage(RUSAGE_CHILDREN, &used) == 0) {
        cpu_ns = ((long long)(used.ru_utime.tv_sec + used.ru_stime.tv_sec) * 1000000LL + used.ru_utime.tv_usec +
                  used.ru_stime.tv_usec) * 1000LL;
    }
    if (watch != NULL) {
        fprintf(stderr,
                "cronometro ns=%lld estado=%d cpu_ns=%lld pico_kb=%ld mmap_kb=%ld mmap_rss_kb=%ld heap_kb=%ld\n", ns,
                code, cpu_ns, seen.hwm_kb, seen.mmap_kb, seen.mmap_rss_kb, seen.heap_kb);
    } else {
        fprintf(stderr, "cronometro ns=%lld estado=%d cpu_ns=%lld\n", ns, code, cpu_ns);
    }
    return code;
}
