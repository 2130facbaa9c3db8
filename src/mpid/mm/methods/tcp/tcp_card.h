/*
 * The tcp method's business card, "TOKEN:PORT:ADDR,ADDR...": TOKEN the listener's secret
 * (16 hex digits; a connection must present it), PORT its port, ADDRs its IPv4 addresses.
 * A card comes from another process (PMI, a port name, a connect request), so its parser
 * is a decoder in the sense of include/mm_wire.h: no MPICH header, fuzzed on its own.
 */
#ifndef TCP_CARD_H_INCLUDED
#define TCP_CARD_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#define TCP_MAX_ADDRS 8         /* addresses a card may list */
#define TCP_CARD_MAX 256        /* bytes of a card, NUL included (MM_METHOD_CARD_MAX) */

/* What a peer's card says. */
typedef struct tcp_peer {
    uint64_t token;
    uint16_t port;
    int naddrs;
    struct in_addr addrs[TCP_MAX_ADDRS];
} tcp_peer_t;

/* 1 if card (NUL-terminated, fewer than TCP_CARD_MAX bytes) is a card with at least one
 * address; *peer then says what it holds. Addresses that do not parse are skipped. */
int tcp_parse_card(const char *card, tcp_peer_t * peer);

#endif /* TCP_CARD_H_INCLUDED */
