/*
 * cma_shim: an LD_PRELOAD shim for cma_paths.sh. It wraps process_vm_readv(), which the
 * shm method reads rendezvous payloads with, and appends one line per call to the file
 * named by MM_CMA_SHIM_LOG: "ok" after passing the call on, or, when MM_CMA_SHIM=deny,
 * "denied" after failing it with EPERM as a kernel that forbids cross-memory attach would.
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

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
                         const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
    static ssize_t(*real) (pid_t, const struct iovec *, unsigned long, const struct iovec *,
                           unsigned long, unsigned long);
    const char *mode = getenv("MM_CMA_SHIM");

    if (mode && strcmp(mode, "deny") == 0) {
        note("denied\n");
        errno = EPERM;
        return -1;
    }
    if (!real)
        real = (ssize_t(*)(pid_t, const struct iovec *, unsigned long, const struct iovec *,
                           unsigned long, unsigned long)) dlsym(RTLD_NEXT, "process_vm_readv");
    note("ok\n");
    return real(pid, local, nlocal, remote, nremote, flags);
}
