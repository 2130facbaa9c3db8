/*
 * cma_shim: an LD_PRELOAD shim for cma_paths.sh. It wraps process_vm_readv() and
 * process_vm_writev(), which the shm method moves rendezvous payloads with (the receiver
 * reads, the sender writes its share), and appends one line per call to the file named by
 * MM_CMA_SHIM_LOG: "ok"/"wok" after passing a read/write on, or "denied"/"wdenied" after
 * failing it with EPERM as a kernel that forbids cross-memory attach would (MM_CMA_SHIM=deny
 * refuses both, MM_CMA_SHIM=deny-write only writes).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static void note(const char *what)
{
    const char *path = getenv("MM_CMA_SHIM_LOG");
    int fd;

    if (!path)
        return;
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
        (void) !write(fd, what, strlen(what));
        close(fd);
    }
}

typedef ssize_t (*vm_fn) (pid_t, const struct iovec *, unsigned long, const struct iovec *,
                          unsigned long, unsigned long);

/* One wrapper for both calls: refuse when MM_CMA_SHIM names this direction ("deny" both,
 * "deny-write" only the sender's writes), otherwise pass the call on and log it. */
static ssize_t wrap(const char *name, int write, pid_t pid, const struct iovec *local,
                    unsigned long nlocal, const struct iovec *remote, unsigned long nremote,
                    unsigned long flags)
{
    static vm_fn real[2];
    const char *mode = getenv("MM_CMA_SHIM");

    if (mode && (strcmp(mode, "deny") == 0 || (write && strcmp(mode, "deny-write") == 0))) {
        note(write ? "wdenied\n" : "denied\n");
        errno = EPERM;
        return -1;
    }
    if (!real[write])
        real[write] = (vm_fn) dlsym(RTLD_NEXT, name);
    note(write ? "wok\n" : "ok\n");
    return real[write] (pid, local, nlocal, remote, nremote, flags);
}

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    return wrap("process_vm_readv", 0, pid, local, nlocal, remote, nremote, flags);
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local, unsigned long nlocal,
                          const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    return wrap("process_vm_writev", 1, pid, local, nlocal, remote, nremote, flags);
}
