/* Fuzz target: mm_wire_envelope_check (inline in include/mm_wire.h), the check every
 * method's envelopes pass before the engine acts on them. Invariant: an accepted envelope
 * never announces more than the engine may allocate for it. */
#include "fuzz.h"
#include "mm_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    mm_pkt_t pkt;
    uint64_t limit = 0;

    if (size < sizeof(pkt))
        return 0;
    memcpy(&pkt, data, sizeof(pkt));
    if (size >= sizeof(pkt) + sizeof(limit))
        memcpy(&limit, data + sizeof(pkt), sizeof(limit));
    if (mm_wire_envelope_check(&pkt, limit) == MM_WIRE_OK) {
        FUZZ_CHECK(pkt.version == MM_PKT_VERSION);
        /* rendezvous data: only on an RTS, and no more than the receiver's room for it */
        FUZZ_CHECK(pkt.aux_sz == 0 ||
                   (pkt.kind == MM_PKT_RTS && pkt.aux_sz <= MM_RNDV_DATA_MAX));
        FUZZ_CHECK(pkt.kind >= MM_PKT_EAGER && pkt.kind < MM_PKT_KIND_LAST);
        FUZZ_CHECK(pkt.data_sz <= MM_MSG_MAX);
        if (pkt.kind == MM_PKT_EAGER || pkt.kind == MM_PKT_EAGER_SYNC)
            FUZZ_CHECK(pkt.data_sz <= limit);
        switch (pkt.kind) {
            case MM_PKT_SYNC_ACK:
            case MM_PKT_CTS:
            case MM_PKT_CANCEL_REQ:
            case MM_PKT_CANCEL_RESP:
            case MM_PKT_RMA_CTRL:
            case MM_PKT_FIN:
                FUZZ_CHECK(pkt.data_sz == 0);   /* header-only kinds */
        }
    }
    return 0;
}
