/* memtoca: allocate, touch and free memory, in phases the caller can watch (experiment sistema_vm).
 *
 * Usage: memtoca MB [PAUSA_S]
 *
 * Maps MB megabytes of anonymous memory, writes to every page (so the kernel really backs them), prints
 * "memtoca tocado mb=<MB>" on stdout, waits PAUSA_S seconds (default 3), unmaps them (the memory goes
 * back to the kernel that runs this program), prints "memtoca liberado", waits PAUSA_S seconds more and
 * exits. Inside a container the host gets the pages back at once; inside a VM they go back to the
 * guest's kernel, and the host sees whether QEMU keeps them. Built static so it runs in any image and
 * in the course's VM.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "uso: %s MB [PAUSA_S]\n", argv[0]);
        return 2;
    }
    long mb = strtol(argv[1], NULL, 10);
    int pause_s = argc == 3 ? atoi(argv[2]) : 3;
    if (mb <= 0 || mb > 1 << 20 || pause_s < 0) {
        fprintf(stderr, "memtoca: valores inválidos\n");
        return 2;
    }
    size_t size = (size_t)mb << 20;
    char *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        perror("memtoca: mmap");
        return 1;
    }
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < size; i += (size_t)page)
        mem[i] = (char)(i / (size_t)page) | 1;
    printf("memtoca tocado mb=%ld\n", mb);
    fflush(stdout);
    sleep((unsigned)pause_s);
    munmap(mem, size);
    printf("memtoca liberado\n");
    fflush(stdout);
    sleep((unsigned)pause_s);
    return 0;
}
