/* cronometro: time one command from inside its environment (experiment 3).
 *
 * Usage: cronometro [--root DIR] [--] PROGRAM [ARGS...]
 *
 * Forks, execs PROGRAM (after chroot(DIR) when --root is given), waits for it, and prints one line on
 * stderr:
 *     cronometro ns=<elapsed nanoseconds> estado=<exit status>
 * The clock (CLOCK_MONOTONIC) starts right before fork() and stops right after waitpid(), so the line
 * holds the cost of the work alone: whatever brought this program into the container (docker/podman
 * exec) is outside it. Exits with PROGRAM's exit status (128+N if killed by signal N; 127 if exec
 * failed). Built static so it runs inside any image, even one without a libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(const char *self) {
    fprintf(stderr, "uso: %s [--root DIR] [--] PROGRAMA [ARGUMENTOS...]\n", self);
}

int main(int argc, char **argv) {
    const char *root = NULL;
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            root = argv[i + 1];
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

    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cronometro: fork falló: %s\n", strerror(errno));
        return 125;
    }
    if (pid == 0) {
        if (root != NULL && (chroot(root) != 0 || chdir("/") != 0)) {
            fprintf(stderr, "cronometro: chroot a %s falló: %s\n", root, strerror(errno));
            _exit(126);
        }
        execvp(argv[i], &argv[i]);
        fprintf(stderr, "cronometro: no se pudo ejecutar %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "cronometro: waitpid falló: %s\n", strerror(errno));
            return 125;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    long long ns = (long long)(end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "cronometro ns=%lld estado=%d\n", ns, code);
    return code;
}
