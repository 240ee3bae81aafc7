/* getpid_bench: cost of the getpid system call (seed 001).
 * Usage: getpid_bench [ITERATIONS]   prints "ns_por_llamada <float>" on stdout.
 * syscall(SYS_getpid) bypasses any libc caching, so every call enters the kernel. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    long iterations = argc > 1 ? atol(argv[1]) : 5000000L;
    if (iterations <= 0) {
        fprintf(stderr, "uso: %s [ITERACIONES>0]\n", argv[0]);
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < iterations; i++) {
        syscall(SYS_getpid);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
    printf("ns_por_llamada %.3f\n", ns / (double)iterations);
    return 0;
}
