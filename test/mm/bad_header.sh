#!/usr/bin/env bash
# bad_header: a tcp connection that delivers a malformed header is closed with an error
# naming the peer, and the receiving process neither crashes nor hangs (bad_header.c).
set -u
bin=$MM_TEST_BIN
gcc -O2 -shared -fPIC -o "$bin/corrupt_send.so" "$MM_TEST_SRC/corrupt_send.c" -ldl || exit 1
"$MM_PREFIX/bin/mpicc" -O2 -o "$bin/bad_header" "$MM_TEST_SRC/bad_header.c" || exit 1
# A sanitized install (MM_SANITIZE=address,...) wants ASan's runtime first in the library
# list, so it goes ahead of the shim in LD_PRELOAD.
asan_rt=$(ldd "$MM_PREFIX/lib/libmpich.so.12" | awk '/libasan/ { print $3 }')
"$MM_PREFIX/bin/mpiexec" -genv MPIR_CVAR_MM_METHODS self,tcp \
    -n 1 -env LD_PRELOAD "${asan_rt:+$asan_rt:}$bin/corrupt_send.so" "$bin/bad_header" : -n 1 "$bin/bad_header"
