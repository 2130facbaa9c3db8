/*
 * The ib method's business card, "TOKEN:PORT:ADDR": TOKEN the process's secret (16 hex
 * digits, checked by the acceptor of a connect request), PORT its RDMA-CM listener's port,
 * ADDR the IPv4 address of the netdev that carries its RDMA device. A card comes from
 * another process (PMI, a port name), so its parser is a decoder in the sense of
 * include/mm_wire.h: no MPICH header, fuzzed on its own (test/fuzz/fuzz_ib_card.c).
 */
#ifndef IB_CARD_H_INCLUDED
#define IB_CARD_H_INCLUDED

#include <stdint.h>
#include <netinet/in.h>

#define IB_CARD_MAX 256         /* bytes of a card, NUL included (MM_METHOD_CARD_MAX) */

typedef struct ib_peer {
    uint64_t token;
    uint16_t port;
    struct in_addr addr;
} ib_peer_t;

/* 1 if card (NUL-terminated, fewer than IB_CARD_MAX bytes) is a whole ib card; *peer then
 * says what it holds. */
int ib_parse_card(const char *card, ib_peer_t * peer);

#endif /* IB_CARD_H_INCLUDED */
