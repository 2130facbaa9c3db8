/* Fuzz target: what two jobs exchange while connecting (src/mm_wire.c) — the connect
 * request and its reply on a port, and the blob of group descriptions the leaders swap.
 * The first byte picks the decoder. */
#include "fuzz.h"
#include "mm_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    uint64_t gpid;
    const char *cards;

    if (size < 1)
        return 0;
    switch (data[0] % 3) {
        case 0:{
            /* A REQ buffer as the receive leaves it: got bytes arrived, the rest zeroed. */
            mm_port_req_t *req = calloc(1, sizeof(*req));
            size_t got = size - 1 < sizeof(*req) ? size - 1 : sizeof(*req) + 1;
            memcpy(req, data + 1, size - 1 < sizeof(*req) ? size - 1 : sizeof(*req));
            if (mm_wire_port_req_check(req, got, &gpid, &cards) == MM_WIRE_OK) {
                FUZZ_CHECK(got == sizeof(*req) && req->ctx > 0 && req->ctx <= 65535);
                FUZZ_CHECK(cards == NULL || (cards > req->descr &&
                                             cards < req->descr + sizeof(req->descr)));
            }
            free(req);
            break;
        }
        case 1:{
            mm_port_reply_t reply = { 0 };
            size_t got = size - 1;
            memcpy(&reply, data + 1, got < sizeof(reply) ? got : sizeof(reply));
            if (mm_wire_port_reply_check(&reply, got) == MM_WIRE_OK)
                FUZZ_CHECK(got == sizeof(reply) && (reply.status == MM_PORT_REFUSED ||
                                                    reply.status == MM_PORT_DENIED ||
                                                    (reply.ctx > 0 && reply.ctx <= 65535)));
            break;
        }
        default:{
            char *blob = fuzz_copy(data + 1, size - 1);
            size_t pos = 0, last = 0;
            while (mm_wire_group_next(blob, size - 1, &pos, &gpid, &cards) == MM_WIRE_OK) {
                FUZZ_CHECK(pos > last && pos <= size - 1);
                last = pos;
            }
            free(blob);
            break;
        }
    }
    return 0;
}
