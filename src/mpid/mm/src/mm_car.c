/*
 * CAR allocation and the iovec cursor every method moves bytes through.
 */
#include "mpidimpl.h"

/* Control CARs (CTS, acks, DATA envelopes) are short-lived; keep the freed ones on a list
 * so the steady state allocates nothing. */
static mm_car_t *car_free_list;

mm_car_t *mm_car_alloc(void)
{
    mm_car_t *car = car_free_list;

    if (car)
        car_free_list = car->qnext;
    else
        car = MPL_malloc(sizeof(*car), MPL_MEM_OTHER);
    if (car)
        memset(car, 0, sizeof(*car));
    return car;
}

void mm_car_free(mm_car_t * car)
{
    car->qnext = car_free_list;
    car_free_list = car;
}

size_t mm_buf_copy(mm_buf_t * b, void *flat, size_t len, int to_buf)
{
    size_t moved = 0;
    char *p = flat;

    while (moved < len && b->iov_idx < b->iov_count) {
        struct iovec *v = &b->iov[b->iov_idx];
        size_t n = MPL_MIN(v->iov_len - b->iov_off, len - moved);
        char *q = (char *) v->iov_base + b->iov_off;

        if (to_buf)
            memcpy(q, p + moved, n);
        else
            memcpy(p + moved, q, n);
        moved += n;
        b->iov_off += n;
        if (b->iov_off == v->iov_len) {
            b->iov_idx++;
            b->iov_off = 0;
        }
    }
    b->done += moved;
    return moved;
}

size_t mm_buf_transfer(mm_buf_t * dst, mm_buf_t * src, size_t len)
{
    size_t moved = 0;

    while (moved < len && src->iov_idx < src->iov_count) {
        struct iovec *v = &src->iov[src->iov_idx];
        size_t n = MPL_MIN(v->iov_len - src->iov_off, len - moved);

        n = mm_buf_copy(dst, (char *) v->iov_base + src->iov_off, n, 1);
        if (n == 0)
            break;
        moved += n;
        src->done += n;
        src->iov_off += n;
        if (src->iov_off == v->iov_len) {
            src->iov_idx++;
            src->iov_off = 0;
        }
    }
    return moved;
}

int mm_buf_to_iov(const mm_buf_t * b, struct iovec *iov, int max_iov)
{
    int n = 0;

    for (int i = b->iov_idx; i < b->iov_count && n < max_iov; i++) {
        size_t off = (i == b->iov_idx) ? b->iov_off : 0;
        if (b->iov[i].iov_len == off)
            continue;
        iov[n].iov_base = (char *) b->iov[i].iov_base + off;
        iov[n].iov_len = b->iov[i].iov_len - off;
        n++;
    }
    return n;
}

void mm_buf_advance(mm_buf_t * b, size_t n)
{
    b->done += n;
    while (n > 0 && b->iov_idx < b->iov_count) {
        size_t left = b->iov[b->iov_idx].iov_len - b->iov_off;
        size_t step = MPL_MIN(left, n);

        b->iov_off += step;
        n -= step;
        if (b->iov_off == b->iov[b->iov_idx].iov_len) {
            b->iov_idx++;
            b->iov_off = 0;
        }
    }
}
