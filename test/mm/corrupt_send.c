/*
 * corrupt_send: an LD_PRELOAD shim for bad_header.sh. It wraps sendmsg(), which the tcp
 * method writes packets with (its handshake uses send()), and sets the version byte of the
 * first packet this process sends to 99, so the peer receives a malformed header on an
 * established connection.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <sys/socket.h>

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    static ssize_t(*real) (int, const struct msghdr *, int);
    static int done;

    if (!real)
        real = (ssize_t(*)(int, const struct msghdr *, int)) dlsym(RTLD_NEXT, "sendmsg");
    if (!done && msg->msg_iovlen > 0 && msg->msg_iov[0].iov_len >= 1) {
        done = 1;
        ((uint8_t *) msg->msg_iov[0].iov_base)[0] = 99;
    }
    return real(fd, msg, flags);
}
