/*
 * mm device: the registry of this process's windows, by the key that names a window in RMA
 * packets (its communicator's context id, the same in every member), and the check that an
 * address range lies in the memory a window exposes.
 *
 * Both answer questions about bytes off the wire (which window, which memory) for the
 * target side and the answers of operations; window creation and free (mm_win.c) are what
 * add and remove windows. Kept apart from creation so that the code handling packets does
 * not depend on the code that frees windows, which waits for their traffic.
 */

#include "mm_rma.h"

static MPIR_Win *win_list;

void mm_win_register(MPIR_Win * win)
{
    win->dev.next = win_list;
    win_list = win;
}

MPIR_Win *mm_win_lookup(uint32_t key)
{
    for (MPIR_Win * w = win_list; w; w = w->dev.next)
        if (w->dev.key == key)
            return w;
    return NULL;
}

void mm_win_unregister(MPIR_Win * win)
{
    for (MPIR_Win ** p = &win_list; *p; p = &(*p)->dev.next)
        if (*p == win) {
            *p = win->dev.next;
            return;
        }
}

int mm_win_range_ok(MPIR_Win * win, const char *addr, MPI_Aint len)
{
    uintptr_t a = (uintptr_t) addr, base = (uintptr_t) win->base;

    if (len == 0)
        return 1;
    if (len < 0 || a + (uintptr_t) len < a)
        return 0;       /* an address and length off the wire that wrap around */
    if (win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* Regions attached back to back may be accessed as one. */
        const char *cur = addr, *end = addr + len;
        while (cur < end) {
            mm_win_region_t *r = win->dev.regions;
            while (r && !(cur >= r->base && cur < r->base + r->size))
                r = r->next;
            if (r == NULL)
                return 0;
            cur = r->base + r->size;
        }
        return 1;
    }
    return a >= base && a - base <= (uintptr_t) win->size &&
        (uintptr_t) len <= (uintptr_t) win->size - (a - base);
}
